// The security matrix's fixture table: one line per route, keyed by `METHOD /path` exactly as the
// registry declares it. Each line builds a real resource of the owning organisation in the given
// environment and returns the paths (and body) that address it, so that another tenant's call hits
// someone else's existing resource, never a made-up id. A registry route without a line, or a line
// without a route, fails the matrix by name.
import type { Environment, Side } from '../../shared/db/tenant.ts';
import { client, createKey, createOrg, ownerSql } from '../helpers.ts';
import { claimBody, inDays, insertHome, openClaim, pdfBytes, provider, upload } from '../claims/fixtures.ts';
import { drainJobs, linkBilling, placeWithDates } from '../placements/fixtures.ts';
import { signedLease } from '../placements/payment-fixtures.ts';
import { completeHome, insertBooking, minimalHome } from '../properties/fixtures.ts';
import { recordEvent } from '../webhooks/support.ts';

export type Api = ReturnType<typeof client>;

/** An organisation of the matrix, with a key of every scope of its side in each environment. */
export interface Tenant {
  orgId: string;
  side: Side;
  keys: Record<Environment, string>;
  api: (environment: Environment) => Api;
}

export interface Context {
  /** The organisation whose resource the route addresses. */
  owner: Tenant;
  /** Another organisation of the same side, which must never reach the owner's resource. */
  stranger: Tenant;
}

export interface Target {
  /** Paths to the owner's resource: the first is the owner's; other tenants are refused on each (by reference and by id). */
  paths: [string, ...string[]];
  /** A valid body (built per call: multipart bodies are read once). */
  body?: () => unknown;
  /** Identifiers of the owner's a collection route shows the owner and nobody else. */
  shows?: string[];
  /** Organisations besides the owner whose data the refused calls must leave unchanged (a provider whose home is placed). */
  orgs?: string[];
}

export interface Fixture {
  /** The owner's side, for routes whose rule both sides satisfy; otherwise the side of the rule's scope. */
  side?: Side;
  /** A successful call ends the calling key: every call gets a fresh key. */
  consumesKey?: true;
  /** Why the resource can only be built in sandbox (the other environment is then checked one way). */
  sandboxOnlyBecause?: string;
  build: (context: Context, environment: Environment) => Promise<Target>;
}

const claimPaths = (claim: { id: string; claim_ref: string }, suffix = ''): [string, string] =>
  [`/claims/${claim.claim_ref}${suffix}`, `/claims/${claim.id}${suffix}`];

const created = <T>(what: string, res: { status: number; text: string; body: any }, pick: (body: any) => T): T => {
  if (res.status >= 300) throw new Error(`security fixture: ${what} not created: ${res.status} ${res.text}`);
  return pick(res.body);
};

/** The owner's request, with a provider's home on it; `placed` also places it and sets dates. */
async function placement({ owner }: Context, environment: Environment, placed = false) {
  const providerOrg = await provider();
  const home = await insertHome(providerOrg);
  const api = owner.api(environment);
  const claim = await openClaim(api, { household_email: 'family@example.com', adjuster_email: 'adjuster@example.com' });
  if (placed) await placeWithDates(api, claim.claim_ref, home);
  return { claim, home, orgs: [providerOrg] };
}

const onPlacement = (suffix: (home: string) => string, body?: (home: string) => unknown, placed = true): Fixture['build'] =>
  async (context, environment) => {
    const { claim, home, orgs } = await placement(context, environment, placed);
    return { paths: claimPaths(claim, suffix(home)), body: body && (() => body(home)), orgs };
  };

/** The owner and the stranger each with a sandbox clock, for the clock's routes (each reaches its own). */
const withClocks = (body?: unknown): Fixture['build'] => async ({ owner, stranger }) => {
  for (const who of [owner, stranger]) await who.api('sandbox').post('/sandbox/clock', {});
  return { paths: ['/sandbox/clock'], body: body === undefined ? undefined : () => body };
};

/** The owner's request with a home sent to its household (the household's link routes). */
const sentToHousehold = (path: (claim: string, home: string) => string): Fixture['build'] => async (context, environment) => {
  const { claim, home, orgs } = await placement(context, environment, false);
  const api = context.owner.api(environment);
  if (environment === 'live') await linkBilling(context.owner.orgId);
  created('send', await api.post(`/claims/${claim.claim_ref}/options`, { property_id: home, action: 'send', approve_budget: true }), () => null);
  return { paths: [path(claim.claim_ref, home), path(claim.id, home)], orgs };
};

const onSandboxHelper = (who: string, body: unknown): Fixture['build'] => async (context, environment) => {
  const { claim, home, orgs } = await placement(context, environment, true);
  return { paths: [`/sandbox/claims/${claim.claim_ref}/homes/${home}/${who}`, `/sandbox/claims/${claim.id}/homes/${home}/${who}`], body: () => body, orgs };
};

/** A refund request the owner (a provider) has to answer: a sandbox lease signed and paid, then a refund asked. */
async function refundRequest({ owner }: Context) {
  const s = await signedLease('sandbox', { providerOrg: owner.orgId });
  const paid = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
  if (paid.status !== 200) throw new Error(`security fixture: payment: ${paid.status} ${paid.text}`);
  await drainJobs(s.c.orgId);
  const id = created('refund request', await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, goodwill: true }), (b) => b.data.refund_request_id as string);
  return { id, orgs: [s.c.orgId] };
}

/** An application the owner (a provider) has to answer: a sandbox request sent the owner's home, and the household applied. */
async function application({ owner }: Context) {
  const home = await insertHome(owner.orgId);
  const c = await carrierTenant();
  const claim = await openClaim(c, { household_email: 'family@example.com' });
  await c.post(`/claims/${claim.claim_ref}/options`, { property_id: home, action: 'send', approve_budget: true });
  const applied = await c.post(`/sandbox/claims/${claim.claim_ref}/homes/${home}/household`, { action: 'apply' });
  if (applied.status !== 200) throw new Error(`security fixture: apply: ${applied.status} ${applied.text}`);
  const [row] = await ownerSql()<{ id: string; org_id: string }[]>`select id, org_id from app.claim_options where claim_id = ${claim.id}`;
  return { id: row.id, orgs: [row.org_id] };
}

async function carrierTenant() {
  const orgId = await createOrg('carrier');
  return client((await createKey(orgId, 'sandbox')).key);
}

const sandboxApplications = 'a household applies through the sandbox helper here (in live, through its own page)';

const liveRefundsNeedTheProcessor = 'a refund request needs a paid lease, and live payments go through the payment processor';

async function home({ owner }: Context, environment: Environment) {
  const externalId = `SEC-${crypto.randomUUID().slice(0, 8)}`;
  const id = created('home', await owner.api(environment).post('/properties', completeHome({ external_id: externalId })), (b) => b.data.id as string);
  return { id, externalId };
}

/** A home with its calendar export address issued. */
async function issuedExport(context: Context, environment: Environment): Promise<Target> {
  const { id } = await home(context, environment);
  created('calendar export', await context.owner.api(environment).post(`/properties/${id}/calendar-export`, {}), (b) => b.data.url as string);
  return { paths: [`/properties/${id}/calendar-export`] };
}

/** A home with another channel's calendar registered on it. */
async function importedFeed(context: Context, environment: Environment, suffix: string): Promise<Target> {
  const { id } = await home(context, environment);
  const feed = created('calendar feed', await context.owner.api(environment).post(`/properties/${id}/calendar-feeds`, { url: 'https://calendar.channel.example/feed.ics' }),
    (b) => b.data.id as string);
  return { paths: [`/properties/${id}/calendar-feeds/${feed}${suffix}`] };
}

async function endpoint({ owner }: Context, environment: Environment) {
  const url = 'https://hooks.customer.example/housing';
  return created('endpoint', await owner.api(environment).post('/webhooks', { url, description: environment }), (b) => b.data.id as string);
}

/** An endpoint, then an event that fans out to it (a delivery). */
async function eventWithDelivery(context: Context, environment: Environment) {
  const endpointId = await endpoint(context, environment);
  const eventId = await recordEvent(context.owner.orgId, environment, 'lease.sent', { reference: 'REQ-SECURE' });
  return { endpointId, eventId };
}

export const fixtures: Record<string, Fixture> = {
  // Housing requests
  'POST /claims': { build: async () => ({ paths: ['/claims'], body: () => claimBody() }) },
  'POST /claims/batch': { build: async () => ({ paths: ['/claims/batch'], body: () => ({ requests: [claimBody()] }) }) },
  'GET /claims': {
    build: async ({ owner }, environment) => {
      const claim = await openClaim(owner.api(environment));
      return { paths: ['/claims?limit=100'], shows: [claim.id, claim.claim_ref] };
    },
  },
  'GET /claims/{reference}': { build: async ({ owner }, environment) => ({ paths: claimPaths(await openClaim(owner.api(environment))) }) },
  'PATCH /claims/{reference}': {
    build: async ({ owner }, environment) => ({ paths: claimPaths(await openClaim(owner.api(environment))), body: () => ({ bedrooms: 3 }) }),
  },
  'GET /claims/{reference}/matches': { build: async ({ owner }, environment) => ({ paths: claimPaths(await openClaim(owner.api(environment)), '/matches') }) },
  'POST /claims/{reference}/source-more': {
    build: async ({ owner }, environment) => ({ paths: claimPaths(await openClaim(owner.api(environment)), '/source-more') }),
  },
  'POST /claims/{reference}/documents': {
    build: async ({ owner }, environment) => ({
      paths: claimPaths(await openClaim(owner.api(environment)), '/documents'),
      body: () => upload(pdfBytes, 'report.pdf'),
    }),
  },
  'GET /claims/{reference}/documents': {
    build: async ({ owner }, environment) => ({ paths: claimPaths(await openClaim(owner.api(environment)), '/documents') }),
  },
  'GET /claims/{reference}/documents/{documentId}': {
    build: async ({ owner }, environment) => {
      const api = owner.api(environment);
      const claim = await openClaim(api);
      const document = created('document', await api.post(`/claims/${claim.id}/documents`, upload(pdfBytes, 'report.pdf')), (b) => b.data.id as string);
      return { paths: claimPaths(claim, `/documents/${document}`) };
    },
  },
  'GET /claims/{reference}/timeline': { build: async ({ owner }, environment) => ({ paths: claimPaths(await openClaim(owner.api(environment)), '/timeline') }) },

  // Placement
  'GET /claims/{reference}/options/{propertyId}/budget': { build: onPlacement((home) => `/options/${home}/budget`, undefined, false) },
  'POST /claims/{reference}/options/{propertyId}/budget': { build: onPlacement((home) => `/options/${home}/budget`, () => ({ approved: true }), false) },
  'POST /claims/{reference}/options': {
    build: onPlacement(() => '/options', (home) => ({ property_id: home, action: 'place', approve_budget: true }), false),
  },
  'POST /claims/{reference}/dates': {
    build: onPlacement(() => '/dates', (home) => ({ property_id: home, move_in: inDays(45), move_out: inDays(120) })),
  },
  'POST /claims/{reference}/dates/approve-proposal': { build: onPlacement(() => '/dates/approve-proposal', (home) => ({ property_id: home })) },
  'POST /claims/{reference}/signer': {
    build: onPlacement(() => '/signer', (home) => ({ property_id: home, signer_name: 'Dana Reyes', signer_email: 'dana@carrier.example' })),
  },
  'GET /claims/{reference}/placement': { build: onPlacement(() => '/placement') },
  'POST /claims/{reference}/confirm-move-in': { build: onPlacement(() => '/confirm-move-in', (home) => ({ property_id: home })) },
  'POST /claims/{reference}/cancel-booking': { build: onPlacement(() => '/cancel-booking', (home) => ({ property_id: home })) },
  'POST /claims/{reference}/refund-request': { build: onPlacement(() => '/refund-request', (home) => ({ property_id: home })) },
  'POST /claims/{reference}/extensions': { build: onPlacement(() => '/extensions', (home) => ({ property_id: home, move_out: inDays(160) })) },
  'GET /claims/{reference}/extensions': { build: onPlacement((home) => `/extensions?property_id=${home}`) },
  'GET /claims/{reference}/statement': { build: onPlacement((home) => `/statement?property_id=${home}`) },

  // Homes
  'POST /properties': { build: async () => ({ paths: ['/properties'], body: () => completeHome() }) },
  'POST /properties/batch': { build: async () => ({ paths: ['/properties/batch'], body: () => ({ properties: [completeHome()] }) }) },
  'GET /properties': {
    build: async (context, environment) => ({ paths: ['/properties?limit=100'], shows: [(await home(context, environment)).id] }),
  },
  'GET /properties/readiness': {
    build: async ({ owner }, environment) => {
      const saved = created('home', await owner.api(environment).post('/properties', minimalHome()), (b) => b.data.id as string);
      return { paths: ['/properties/readiness'], shows: [saved] };
    },
  },
  'GET /properties/{ref}': {
    build: async (context, environment) => {
      const { id, externalId } = await home(context, environment);
      return { paths: [`/properties/${id}`, `/properties/${externalId}`] };
    },
  },
  'PATCH /properties/{ref}': {
    build: async (context, environment) => {
      const { id, externalId } = await home(context, environment);
      return { paths: [`/properties/${id}`, `/properties/${externalId}`], body: () => ({ status: 'pending' }) };
    },
  },
  'GET /properties/{ref}/availability': {
    build: async (context, environment) => ({ paths: [`/properties/${(await home(context, environment)).id}/availability`] }),
  },
  'POST /properties/{ref}/availability': {
    build: async (context, environment) => ({
      paths: [`/properties/${(await home(context, environment)).id}/availability`],
      body: () => ({ start_date: '2027-02-01', end_date: '2027-02-02' }),
    }),
  },
  'POST /properties/{ref}/availability/{block_id}/release': {
    build: async (context, environment) => {
      const { id } = await home(context, environment);
      const block = created('block', await context.owner.api(environment).post(`/properties/${id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-05' }),
        (b) => b.data.id as string);
      return { paths: [`/properties/${id}/availability/${block}/release`] };
    },
  },
  'POST /properties/{ref}/calendar-export': {
    build: async (context, environment) => ({ paths: [`/properties/${(await home(context, environment)).id}/calendar-export`], body: () => ({}) }),
  },
  'GET /properties/{ref}/calendar-export': { build: (context, environment) => issuedExport(context, environment) },
  'DELETE /properties/{ref}/calendar-export': { build: (context, environment) => issuedExport(context, environment) },
  'POST /properties/{ref}/calendar-feeds': {
    build: async (context, environment) => ({
      paths: [`/properties/${(await home(context, environment)).id}/calendar-feeds`],
      body: () => ({ url: 'https://calendar.channel.example/feed.ics' }),
    }),
  },
  'GET /properties/{ref}/calendar-feeds': {
    build: async (context, environment) => ({ paths: [`/properties/${(await home(context, environment)).id}/calendar-feeds`] }),
  },
  'DELETE /properties/{ref}/calendar-feeds/{feed_id}': { build: (context, environment) => importedFeed(context, environment, '') },
  'POST /properties/{ref}/calendar-feeds/{feed_id}/refresh': { build: (context, environment) => importedFeed(context, environment, '/refresh') },
  'POST /properties/availability': {
    build: async (context, environment) => {
      const { id } = await home(context, environment);
      // The answer echoes the reference the caller sent; what it must not do is act on another's home (tests/properties/security.test.ts).
      return { paths: ['/properties/availability'], body: () => ({ blocks: [{ property_id: id, start_date: '2027-03-01', end_date: '2027-03-02' }] }) };
    },
  },
  'GET /properties/bookings': {
    build: async (context, environment) => {
      const { id } = await home(context, environment);
      return { paths: ['/properties/bookings'], shows: [await insertBooking({ orgId: context.owner.orgId, environment, propertyId: id })] };
    },
  },
  'GET /properties/payouts': { build: async () => ({ paths: ['/properties/payouts'] }) },
  'GET /properties/applications': {
    sandboxOnlyBecause: sandboxApplications,
    build: async (context) => {
      const { id, orgs } = await application(context);
      return { paths: ['/properties/applications'], shows: [id], orgs };
    },
  },
  'POST /properties/applications/{id}': {
    sandboxOnlyBecause: sandboxApplications,
    build: async (context) => {
      const { id, orgs } = await application(context);
      return { paths: [`/properties/applications/${id}`], body: () => ({ decision: 'decline', reason: 'Not available' }), orgs };
    },
  },
  'GET /properties/refund-requests': {
    sandboxOnlyBecause: liveRefundsNeedTheProcessor,
    build: async (context) => {
      const { id, orgs } = await refundRequest(context);
      return { paths: ['/properties/refund-requests'], shows: [id], orgs };
    },
  },
  'POST /properties/refund-requests/{id}': {
    sandboxOnlyBecause: liveRefundsNeedTheProcessor,
    build: async (context) => {
      const { id, orgs } = await refundRequest(context);
      return { paths: [`/properties/refund-requests/${id}`], body: () => ({ decision: 'decline' }), orgs };
    },
  },

  // Events
  'GET /events/types': { build: async () => ({ paths: ['/events/types'] }) },
  // An event both sides' endpoints can receive, so the body fits either side's key.
  'POST /events/simulate': { build: async () => ({ paths: ['/events/simulate'], body: () => ({ event: 'booking.confirmed' }) }) },
  'GET /events': {
    build: async (context, environment) => ({ paths: ['/events'], shows: [(await eventWithDelivery(context, environment)).eventId] }),
  },
  'GET /events/{id}': {
    build: async (context, environment) => ({ paths: [`/events/${(await eventWithDelivery(context, environment)).eventId}`] }),
  },
  'POST /events/{id}/replay': {
    build: async (context, environment) => {
      // The stranger has endpoints too, so that its refusal is about whose event it is, not about having nowhere to replay to.
      await endpoint({ ...context, owner: context.stranger }, environment);
      return { paths: [`/events/${(await eventWithDelivery(context, environment)).eventId}/replay`] };
    },
  },

  // Webhooks
  'POST /webhooks': { build: async () => ({ paths: ['/webhooks'], body: () => ({ url: 'https://hooks.customer.example/new' }) }) },
  'GET /webhooks': { build: async (context, environment) => ({ paths: ['/webhooks'], shows: [await endpoint(context, environment)] }) },
  'GET /webhooks/deliveries': {
    build: async (context, environment) => {
      const { endpointId, eventId } = await eventWithDelivery(context, environment);
      return { paths: ['/webhooks/deliveries'], shows: [endpointId, eventId] };
    },
  },
  'PATCH /webhooks/{id}': {
    build: async (context, environment) => ({ paths: [`/webhooks/${await endpoint(context, environment)}`], body: () => ({ is_active: false }) }),
  },
  'DELETE /webhooks/{id}': { build: async (context, environment) => ({ paths: [`/webhooks/${await endpoint(context, environment)}`] }) },
  'POST /webhooks/{id}/rotate-secret': { build: async (context, environment) => ({ paths: [`/webhooks/${await endpoint(context, environment)}/rotate-secret`] }) },
  'POST /webhooks/{id}/test': { build: async (context, environment) => ({ paths: [`/webhooks/${await endpoint(context, environment)}/test`] }) },
  // Nothing abandoned to recover: a refused call that went through would still answer 202, and the stranger's 404 is about whose endpoint it is.
  'POST /webhooks/{id}/recover': {
    build: async (context, environment) => ({ paths: [`/webhooks/${await endpoint(context, environment)}/recover`], body: () => ({ since: '2026-01-01T00:00:00Z' }) }),
  },

  // Usage
  'GET /usage': { build: async () => ({ paths: ['/usage'] }) },
  'POST /usage/keys/self/revoke': { consumesKey: true, build: async () => ({ paths: ['/usage/keys/self/revoke'] }) },

  // Sandbox counterpart helpers
  // A body that would change the account, so a refused call that went through would show.
  'POST /sandbox/payouts': { build: async () => ({ paths: ['/sandbox/payouts'], body: () => ({ charges_enabled: false }) }) },
  // The clock is the calling organisation's own: each organisation reaches only its own.
  'GET /sandbox/emails': { build: async () => ({ paths: ['/sandbox/emails'] }) },
  'POST /sandbox/clock': { build: async () => ({ paths: ['/sandbox/clock'], body: () => ({}) }) },
  'GET /sandbox/clock': { build: withClocks() },
  'POST /sandbox/clock/advance': { build: withClocks({ frozen_time: new Date(Date.now() + 86_400_000).toISOString() }) },
  'DELETE /sandbox/clock': { build: withClocks() },
  'POST /sandbox/claims/{reference}/homes/{propertyId}/household': { build: onSandboxHelper('household', { action: 'save' }) },
  'POST /sandbox/claims/{reference}/homes/{propertyId}/landlord': { build: onSandboxHelper('landlord', { action: 'sign' }) },
  'POST /sandbox/claims/{reference}/homes/{propertyId}/payment': { build: onSandboxHelper('payment', { outcome: 'succeeded' }) },
  'GET /sandbox/claims/{reference}/homes/{propertyId}/household-link': { build: sentToHousehold((claim, home) => `/sandbox/claims/${claim}/homes/${home}/household-link`) },
  'POST /claims/{reference}/options/{propertyId}/household-link': { build: sentToHousehold((claim, home) => `/claims/${claim}/options/${home}/household-link`) },
};

/**
 * An organisation of the side with a key of every scope in each environment, able to place and be
 * placed in both: a provider takes charges, a carrier is linked to its billing account.
 */
export async function tenant(side: Side): Promise<Tenant> {
  const orgId = side === 'provider' ? await provider() : await createOrg('carrier');
  if (side === 'carrier') await linkBilling(orgId);
  const keys = { live: (await createKey(orgId, 'live')).key, sandbox: (await createKey(orgId, 'sandbox')).key };
  return { orgId, side, keys, api: (environment) => client(keys[environment]) };
}
