import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql, errorOf } from '../helpers.ts';
import { completeHome, insertBooking } from './fixtures.ts';

// What the generated security matrix (tests/security) cannot ask of every route: what lists,
// cursors, external ids and bulk availability show or touch of another organisation's or the
// other environment's homes.

interface Owner {
  tenant: Awaited<ReturnType<typeof createTenant>>;
  homeId: string;
  blockId: string;
}

let owner: Owner;
let stranger: Awaited<ReturnType<typeof createTenant>>;

beforeAll(async () => {
  const tenant = await createTenant('provider');
  const api = client(tenant.live);
  const home = (await api.post('/properties', completeHome({ external_id: 'SEC-1' }))).body.data;
  const block = (await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-05' })).body.data;
  await insertBooking({ orgId: tenant.orgId, environment: 'live', propertyId: home.id });
  owner = { tenant, homeId: home.id, blockId: block.id };
  stranger = await createTenant('provider');
});

describe('collection routes stay within the organisation and environment', () => {
  it("GET /properties and readiness show none of another organisation's or environment's homes", async () => {
    for (const key of [stranger.live, owner.tenant.sandbox]) {
      const list = await client(key).get('/properties');
      expect(list.body.data.map((h: any) => h.id)).not.toContain(owner.homeId);
      const readiness = await client(key).get('/properties/readiness');
      expect(readiness.body.data.examples.map((e: any) => e.property_id)).not.toContain(owner.homeId);
    }
    expect((await client(stranger.live).get('/properties/readiness')).body.data.total).toBe(0);
  });

  it("a cursor naming another organisation's or environment's home or booking is refused, not answered with an empty last page", async () => {
    const [bookingId] = (await client(owner.tenant.live).get('/properties/bookings')).body.data.map((b: any) => b.id);
    const cursorOf = (id: string) => Buffer.from(JSON.stringify([id])).toString('base64url');
    for (const key of [stranger.live, owner.tenant.sandbox]) {
      for (const path of [`/properties?cursor=${cursorOf(owner.homeId)}`, `/properties/bookings?cursor=${cursorOf(bookingId)}`]) {
        const res = await client(key).get(path);
        expect(res.status, path).toBe(422);
        expect(errorOf(res.body)).toMatchObject({ code: 'invalid_field', field: 'cursor' });
      }
    }
    // A cursor of one list is not one of the other.
    expect((await client(owner.tenant.live).get(`/properties?cursor=${cursorOf(bookingId)}`)).body.error?.field).toBe('cursor');
  });

  it("POST /properties with another tenant's external_id creates a separate home and leaves theirs alone", async () => {
    for (const key of [stranger.live, owner.tenant.sandbox]) {
      const res = await client(key).post('/properties', completeHome({ external_id: 'SEC-1', monthly_rate: 1 }));
      expect(res.status).toBe(201);
      expect(res.body.data.id).not.toBe(owner.homeId);
    }
    const batch = await client(stranger.live).post('/properties/batch', { properties: [completeHome({ external_id: 'SEC-1', monthly_rate: 2 })] });
    expect(batch.body.results[0].data!.id).not.toBe(owner.homeId);
    const [row] = await ownerSql()`select monthly_rate_cents from app.properties where id = ${owner.homeId}`;
    expect(row.monthly_rate_cents).toBe(245000);
  });

  it("POST /properties/availability refuses another tenant's home per item and touches nothing of it", async () => {
    for (const key of [stranger.live, owner.tenant.sandbox]) {
      const res = await client(key).post('/properties/availability', {
        replace: true,
        blocks: [{ property_id: owner.homeId, start_date: '2027-04-01', end_date: '2027-04-02' }],
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ blocked: 0, failed: 1, replaced_existing: 0, homes_touched: 0 });
      expect(res.body.results.every((r: any) => r.error.code === 'not_found' && r.property_id === null)).toBe(true);
    }
    const [{ n }] = await ownerSql()`select count(*)::int as n from app.availability_blocks where id = ${owner.blockId}`;
    expect(n).toBe(1);
  });

  it("GET /properties/bookings and /payouts show only the caller's own organisation and environment", async () => {
    expect((await client(stranger.live).get('/properties/bookings')).body.data).toEqual([]);
    expect((await client(owner.tenant.sandbox).get('/properties/bookings')).body.data).toEqual([]);
    expect((await client(owner.tenant.live).get('/properties/bookings')).body.count).toBe(1);
    await client(stranger.sandbox).post('/sandbox/payouts', { charges_enabled: false });
    expect((await client(owner.tenant.sandbox).get('/properties/payouts')).body.data.charges_enabled).toBe(true);
  });
});
