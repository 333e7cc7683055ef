// Every placement route and sandbox helper against: another organisation's request (404), the other
// environment's request (404), a key without the route's scope (403 naming it), a provider's key
// (403), and, for the helpers, a live key (403 sandbox_only). Nothing is written by a refused call.
import { beforeAll, describe, expect, it } from 'vitest';
import { scopesBySide } from '../../shared/http/scopes.ts';
import { carrier, insertHome, openClaim, provider } from '../claims/fixtures.ts';
import { client, createKey, createTenant, ownerSql } from '../helpers.ts';
import { inDays, linkBilling } from './fixtures.ts';

type Api = ReturnType<typeof client>;
type Owner = Awaited<ReturnType<typeof carrier>>;

let owner: Owner;
let otherOrg: Owner;
let providerApi: Api;
let home: string;
let live: { id: string; claim_ref: string };
let sandbox: { id: string; claim_ref: string };

beforeAll(async () => {
  owner = await carrier();
  otherOrg = await carrier();
  await linkBilling(owner.orgId);
  await linkBilling(otherOrg.orgId);
  home = await insertHome(await provider());
  live = await openClaim(owner.liveApi, { household_email: 'f@example.com' });
  sandbox = await openClaim(owner.sandboxApi, { household_email: 'f@example.com' });
  providerApi = client((await createTenant('provider')).live);
});

interface Route {
  name: string;
  scope: string;
  call: (api: Api, reference: string) => Promise<{ status: number; body: any }>;
}

const dates = () => ({ property_id: home, move_in: inDays(40), move_out: inDays(100) });
const routes: Route[] = [
  { name: 'GET budget', scope: 'options:read', call: (api, ref) => api.get(`/claims/${ref}/options/${home}/budget`) },
  { name: 'POST budget', scope: 'options:write', call: (api, ref) => api.post(`/claims/${ref}/options/${home}/budget`, { approved: true }) },
  { name: 'POST options', scope: 'options:write', call: (api, ref) => api.post(`/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: true }) },
  { name: 'POST dates', scope: 'options:write', call: (api, ref) => api.post(`/claims/${ref}/dates`, dates()) },
  { name: 'POST dates/approve-proposal', scope: 'options:write', call: (api, ref) => api.post(`/claims/${ref}/dates/approve-proposal`, { property_id: home }) },
  { name: 'POST signer', scope: 'options:write', call: (api, ref) => api.post(`/claims/${ref}/signer`, { property_id: home }) },
  { name: 'GET placement', scope: 'placements:read', call: (api, ref) => api.get(`/claims/${ref}/placement`) },
  { name: 'POST sandbox household', scope: 'options:write', call: (api, ref) => api.post(`/sandbox/claims/${ref}/homes/${home}/household`, { action: 'save' }) },
  { name: 'POST sandbox landlord', scope: 'options:write', call: (api, ref) => api.post(`/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'sign' }) },
];
const sandboxHelpers = routes.filter((r) => r.name.startsWith('POST sandbox'));
const apiRoutes = routes.filter((r) => !sandboxHelpers.includes(r));

const writes = async () => (await ownerSql()`
  select (select count(*) from app.claim_homes where property_id = ${home})::int as homes,
         (select count(*) from app.budget_approvals where property_id = ${home})::int as approvals`)[0];

describe.each(apiRoutes)('$name', (route) => {
  it("answers 404 not_found for another organisation's request, by claim_ref and by id", async () => {
    const before = await writes();
    for (const reference of [live.claim_ref, live.id]) {
      const res = await route.call(otherOrg.liveApi, reference);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await writes()).toEqual(before);
  });

  it("answers 404 not_found for the other environment's request, both ways", async () => {
    for (const [api, reference] of [[owner.sandboxApi, live.claim_ref], [owner.liveApi, sandbox.claim_ref]] as const) {
      const res = await route.call(api, reference);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe.each(sandboxHelpers)('$name', (route) => {
  it("answers 404 not_found for another organisation's request and for a live request's reference", async () => {
    const other = await createKey(otherOrg.orgId, 'sandbox');
    expect((await route.call(client(other.key), sandbox.claim_ref)).body.error.code).toBe('not_found');
    expect((await route.call(owner.sandboxApi, live.claim_ref)).body.error.code).toBe('not_found');
  });

  it('answers 403 sandbox_only to a live key, before anything else', async () => {
    const res = await route.call(owner.liveApi, live.claim_ref);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('sandbox_only');
  });
});

describe.each(routes)('$name', (route) => {
  it('answers 403 forbidden naming the scope to a key without it', async () => {
    const env = sandboxHelpers.includes(route) ? 'sandbox' : 'live';
    const key = await createKey(owner.orgId, env, { scopes: scopesBySide.carrier.filter((s) => s !== route.scope) });
    const res = await route.call(client(key.key), env === 'live' ? live.claim_ref : sandbox.claim_ref);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toContain(route.scope);
  });

  it("answers 403 forbidden to a provider's key", async () => {
    const key = sandboxHelpers.includes(route) ? client((await createTenant('provider')).sandbox) : providerApi;
    const res = await route.call(key, live.claim_ref);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('the placement of one organisation never shows in another', () => {
  it("a home placed by one carrier is not on another carrier's placement, and its hold reason is not shown", async () => {
    const mine = await openClaim(owner.sandboxApi);
    const h = await insertHome(await provider());
    await owner.sandboxApi.post(`/claims/${mine.claim_ref}/options`, { property_id: h, action: 'place', approve_budget: true });
    await owner.sandboxApi.post(`/claims/${mine.claim_ref}/dates`, { property_id: h, move_in: inDays(40), move_out: inDays(100) });
    const theirs = await openClaim(otherOrg.sandboxApi);
    expect((await otherOrg.sandboxApi.get(`/claims/${theirs.claim_ref}/placement`)).body.data.homes).toEqual([]);
    const refused = await otherOrg.sandboxApi.post(`/claims/${theirs.claim_ref}/options`, { property_id: h, action: 'place', approve_budget: true });
    expect(refused.body.error.code).toBe('could_not_place');
    expect(refused.body.error.message).not.toContain(mine.claim_ref);
  });
});
