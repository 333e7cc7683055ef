// Fixtures of the fuzz test, in one place: the real ids path parameters can take, per route family,
// and the operations that need a key of their own. A path parameter without a fixture gets random
// and nonexistent values (which must answer 4xx, never 5xx); a route family that needs real ids to be
// fuzzed in depth adds an entry to `pathFixtures` and, if needed, a step to `createFixtures`.
import { client, createKey, createTenant } from '../helpers.ts';
import { claimBody, inDays, pdfBytes, sourced, upload } from '../claims/fixtures.ts';
import { completeHome, minimalHome } from '../properties/fixtures.ts';

export type Side = 'carrier' | 'provider';

export interface World {
  keys: Record<Side, string>;
  orgs: Record<Side, string>;
  /** Real values by fixture name (see pathFixtures). */
  ids: Record<string, string[]>;
}

/**
 * Real values for a path parameter: the first entry whose path template matches (a prefix of the
 * operation's path) and whose parameter name matches supplies `ids[fixture]` of the key's side.
 */
export const pathFixtures: { path: RegExp; param: string; fixture: (side: Side) => string }[] = [
  { path: /^\/properties\/\{ref\}/, param: 'ref', fixture: () => 'home' },
  { path: /^\/properties\/\{ref\}\/availability\/\{block_id\}/, param: 'block_id', fixture: () => 'block' },
  { path: /^\/claims\/\{reference\}/, param: 'reference', fixture: () => 'claim' },
  { path: /^\/claims\/\{reference\}\/documents\/\{documentId\}/, param: 'documentId', fixture: () => 'document' },
  { path: /^\/webhooks\/\{id\}/, param: 'id', fixture: (side) => `${side}:endpoint` },
  { path: /^\/events\/\{id\}/, param: 'id', fixture: (side) => `${side}:event` },
];

/**
 * Valid bodies per operation: the fuzzer puts one fault at a time into them (besides bodies generated
 * from the document), so that a fault deep in a full body is not masked by another refusal.
 */
export const bodyExamples: Record<string, (world: World) => unknown[]> = {
  'POST /properties': () => [completeHome(), minimalHome()],
  'PATCH /properties/{ref}': () => [completeHome(), { monthly_rate: 2100, available_from: '2027-02-01' }],
  'POST /properties/batch': () => [{ properties: [completeHome(), minimalHome()] }],
  'POST /properties/{ref}/availability': () => [{ start_date: '2027-03-01', end_date: '2027-03-02', reason: 'owner stay' }],
  'POST /properties/availability': (world) => [{ blocks: [{ property_id: world.ids.home[0], start_date: '2027-04-01', end_date: '2027-04-02', reason: 'repairs' }] }],
  'POST /claims': () => [claimBody({ max_budget: 3200, ale_limit: 30000, adjuster_name: 'Dana Reyes', policyholder_name: 'Lee Park' })],
  'PATCH /claims/{reference}': () => [{ max_budget: 3000, ale_limit: 20000, adjuster_name: 'Dana Reyes', target_move_in: inDays(40) }],
  'POST /claims/batch': () => [{ requests: [claimBody({ max_budget: 2500 }), claimBody()] }],
  'POST /webhooks': () => [{ url: 'https://hooks.example.com/fuzz-new', description: 'claims system' }],
  'PATCH /webhooks/{id}': () => [{ url: 'https://hooks.example.com/fuzz-moved', description: 'moved', is_active: true }],
};

/** Operations whose success ends the calling key: each call gets a fresh key of the side. */
export const consumesKey = new Set(['POST /usage/keys/self/revoke']);

/** Operations whose request body is multipart: the parts a valid upload has. */
export const multipartParts: Record<string, () => FormData> = {
  'POST /claims/{reference}/documents': () => upload(pdfBytes, 'report.pdf', { kind: 'other', description: 'fuzz' }),
};

/** A fresh key of the side's organisation (for consumesKey operations). */
export const freshKey = async (world: World, side: Side) => (await createKey(world.orgs[side], 'sandbox')).key;

function expectCreated<T>(what: string, res: { status: number; text: string; body: any }, pick: (body: any) => T): T {
  if (res.status >= 300) throw new Error(`fuzz fixture ${what} not created: ${res.status} ${res.text}`);
  return pick(res.body);
}

/** Sandbox tenants of both sides, and one real resource of each family the path fixtures name. */
export async function createFixtures(): Promise<World> {
  const [carrier, provider] = [await createTenant('carrier'), await createTenant('provider')];
  const keys = { carrier: carrier.sandbox, provider: provider.sandbox };
  const [c, p] = [client(keys.carrier), client(keys.provider)];
  const ids: Record<string, string[]> = {};

  const home = expectCreated('home', await p.post('/properties', completeHome({ external_id: 'FUZZ-HOME-1' })), (b) => b.data.id as string);
  const block = expectCreated('block', await p.post(`/properties/${home}/availability`, { start_date: '2027-01-10', end_date: '2027-01-12' }), (b) => b.data.id as string);
  ids.home = [home, 'FUZZ-HOME-1'];
  ids.block = [block];

  const claim = expectCreated('claim', await c.post('/claims', claimBody({ external_id: 'FUZZ-CLAIM-1' })), (b) => b.data as { id: string; claim_ref: string });
  await sourced(claim.id);
  ids.claim = [claim.claim_ref, claim.id];
  const document = expectCreated('document', await c.post(`/claims/${claim.claim_ref}/documents`, upload(pdfBytes, 'report.pdf')), (b) => b.data.id as string);
  ids.document = [document];

  for (const [side, api] of [['carrier', c], ['provider', p]] as const) {
    const endpoint = expectCreated('endpoint', await api.post('/webhooks', { url: 'https://hooks.example.com/fuzz', description: 'fuzz' }), (b) => b.data.id as string);
    ids[`${side}:endpoint`] = [endpoint];
    const events = await api.get('/events?limit=5');
    ids[`${side}:event`] = (events.body?.data ?? []).map((e: { id: string }) => e.id);
  }
  return { keys, orgs: { carrier: carrier.orgId, provider: provider.orgId }, ids };
}
