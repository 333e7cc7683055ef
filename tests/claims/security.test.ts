import { beforeAll, describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { at, carrier, claimBody, openClaim, pdfBytes, spot, upload, useTemporaryDataDir } from './fixtures.ts';

// What the generated security matrix (tests/security) cannot ask of every route: lists and
// references that mix tenants (another organisation's external_id, another's document through
// one's own request) and requests the service opened itself.

type Owner = Awaited<ReturnType<typeof carrier>>;

const here = spot(7, 0);
let owner: Owner;
let liveClaim: { id: string; claim_ref: string };
let sandboxClaim: { id: string; claim_ref: string };
let documentId: string;
let otherOrg: Owner;

beforeAll(async () => {
  await useTemporaryDataDir();
  owner = await carrier();
  otherOrg = await carrier();
  liveClaim = await openClaim(owner.liveApi, at(here));
  sandboxClaim = await openClaim(owner.sandboxApi, at(here));
  documentId = (await owner.liveApi.post(`/claims/${liveClaim.id}/documents`, upload(pdfBytes, 'a.pdf'))).body.data.id;
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
    expect(res.body.error?.code).toBe('not_found');
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
