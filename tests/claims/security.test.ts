import { beforeAll, describe, expect, it } from 'vitest';
import { client, createKey, createTenant, ownerSql } from '../helpers.ts';
import { scopesBySide } from '../../shared/http/scopes.ts';
import { at, carrier, claimBody, openClaim, pdfBytes, spot, upload, useTemporaryDataDir } from './fixtures.ts';

// Every housing-request route against: another organisation's request (404), the other
// environment's request (404), a key without the route's scope (403 forbidden naming it), and a
// provider's key (403).

type Api = ReturnType<typeof client>;
type Owner = Awaited<ReturnType<typeof carrier>>;

const here = spot(7, 0);
let owner: Owner;
let liveClaim: { id: string; claim_ref: string };
let sandboxClaim: { id: string; claim_ref: string };
let documentId: string;
let otherOrg: Owner;
let providerApi: Api;

beforeAll(async () => {
  await useTemporaryDataDir();
  owner = await carrier();
  otherOrg = await carrier();
  liveClaim = await openClaim(owner.liveApi, at(here));
  sandboxClaim = await openClaim(owner.sandboxApi, at(here));
  documentId = (await owner.liveApi.post(`/claims/${liveClaim.id}/documents`, upload(pdfBytes, 'a.pdf'))).body.data.id;
  providerApi = client((await createTenant('provider')).live);
});

interface Route {
  name: string;
  scope: string;
  /** Calls the route on the given request reference (ignored by routes without one). */
  call: (api: Api, reference: string) => Promise<{ status: number; body: any }>;
}

const routes: Route[] = [
  { name: 'POST /claims', scope: 'claims:write', call: (api) => api.post('/claims', claimBody(at(here))) },
  { name: 'POST /claims/batch', scope: 'claims:write', call: (api) => api.post('/claims/batch', { requests: [claimBody(at(here))] }) },
  { name: 'GET /claims', scope: 'claims:read', call: (api) => api.get('/claims') },
  { name: 'GET /claims/{reference}', scope: 'claims:read', call: (api, ref) => api.get(`/claims/${ref}`) },
  { name: 'PATCH /claims/{reference}', scope: 'claims:write', call: (api, ref) => api.patch(`/claims/${ref}`, { bedrooms: 3 }) },
  { name: 'GET /claims/{reference}/matches', scope: 'options:read', call: (api, ref) => api.get(`/claims/${ref}/matches`) },
  { name: 'POST /claims/{reference}/source-more', scope: 'claims:write', call: (api, ref) => api.post(`/claims/${ref}/source-more`) },
  { name: 'POST /claims/{reference}/documents', scope: 'claims:write', call: (api, ref) => api.post(`/claims/${ref}/documents`, upload(pdfBytes, 'a.pdf')) },
  { name: 'GET /claims/{reference}/documents', scope: 'claims:read', call: (api, ref) => api.get(`/claims/${ref}/documents`) },
  { name: 'GET /claims/{reference}/documents/{documentId}', scope: 'claims:read', call: (api, ref) => api.get(`/claims/${ref}/documents/${documentId}`) },
  { name: 'GET /claims/{reference}/timeline', scope: 'claims:read', call: (api, ref) => api.get(`/claims/${ref}/timeline`) },
];
const byReference = routes.filter((r) => r.name.includes('{reference}'));

describe.each(byReference)('$name', (route) => {
  it("answers 404 not_found for another organisation's request, by claim_ref and by id", async () => {
    for (const reference of [liveClaim.claim_ref, liveClaim.id]) {
      const res = await route.call(otherOrg.liveApi, reference);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it("answers 404 not_found for the other environment's request, both ways", async () => {
    for (const [api, reference] of [[owner.sandboxApi, liveClaim.claim_ref], [owner.liveApi, sandboxClaim.claim_ref]] as const) {
      const res = await route.call(api, reference);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe.each(routes)('$name', (route) => {
  it('answers 403 forbidden naming the scope to a key without it', async () => {
    const key = await createKey(owner.orgId, 'live', { scopes: scopesBySide.carrier.filter((s) => s !== route.scope) });
    const res = await route.call(client(key.key), liveClaim.claim_ref);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toContain(route.scope);
  });

  it("answers 403 forbidden naming the scope to a provider's key", async () => {
    const res = await route.call(providerApi, liveClaim.claim_ref);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toContain(route.scope);
  });
});

describe('isolation of lists and references', () => {
  it("lists only the caller's own requests of its environment", async () => {
    const other = await openClaim(otherOrg.liveApi, at(here));
    const listed = (await owner.liveApi.get('/claims?limit=100')).body.data.map((r: any) => r.id);
    expect(listed).toContain(liveClaim.id);
    expect(listed).not.toContain(sandboxClaim.id);
    expect(listed).not.toContain(other.id);
    expect((await owner.sandboxApi.get('/claims?limit=100')).body.data.map((r: any) => r.id)).toEqual([sandboxClaim.id]);
  });

  it("treats another organisation's external_id as new, never returning its request", async () => {
    const theirs = await otherOrg.liveApi.post('/claims', claimBody({ ...at(here), external_id: 'SHARED-REF' }));
    const ours = await owner.liveApi.post('/claims', claimBody({ ...at(here), external_id: 'SHARED-REF' }));
    expect(ours.status).toBe(201);
    expect(ours.body.data.id).not.toBe(theirs.body.data.id);
  });

  it("does not serve another organisation's document through one's own request", async () => {
    const theirs = await openClaim(otherOrg.liveApi, at(here));
    const theirDocument = (await otherOrg.liveApi.post(`/claims/${theirs.id}/documents`, upload(pdfBytes, 'b.pdf'))).body.data.id;
    const res = await owner.liveApi.get(`/claims/${liveClaim.id}/documents/${theirDocument}`);
    expect(res.status).toBe(404);
  });

  it("does not serve the other environment's document through one's own request", async () => {
    const res = await owner.sandboxApi.get(`/claims/${sandboxClaim.id}/documents/${documentId}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await owner.sandboxApi.get(`/claims/${sandboxClaim.id}/documents`)).body.count).toBe(0);
  });

  it('never shows requests opened inside the service by coordinators', async () => {
    const [hidden] = await ownerSql()<{ id: string; claim_ref: string }[]>`
      insert into app.claims (org_id, environment, claim_ref, opened_via, loss_address, loss_city, loss_state, loss_zip,
        origin_lat, origin_lng, target_move_in, est_length_months, rent_payer, deposit_payer, bedrooms, bathrooms, sqft, adults,
        property_type, furnishing)
      values (${owner.orgId}, 'live', 'REQ-SRVC22', 'service', '1 Staff Way', 'Austin', 'TX', '78701', ${here.lat}, ${here.lng},
        current_date + 30, 3, 'carrier', 'carrier', 2, 1, 800, 1, 'apartment', 'any')
      returning id, claim_ref`;
    expect((await owner.liveApi.get(`/claims/${hidden.claim_ref}`)).status).toBe(404);
    expect((await owner.liveApi.get(`/claims/${hidden.id}/timeline`)).status).toBe(404);
    expect((await owner.liveApi.get('/claims?limit=100')).body.data.map((r: any) => r.id)).not.toContain(hidden.id);
  });
});
