import { beforeAll, describe, expect, it } from 'vitest';
import { scopesBySide } from '../../shared/http/scopes.ts';
import { client, createKey, createTenant, ownerSql } from '../helpers.ts';
import { completeHome, insertBooking } from './fixtures.ts';

// Every provider route against: another organisation, the other environment, a key without the
// route's scope, and a carrier key.

interface Owner {
  tenant: Awaited<ReturnType<typeof createTenant>>;
  homeId: string;
  blockId: string;
}

let owner: Owner;
/** The same organisation's test home, published with its sandbox key. */
let sandboxOwner: Owner;
let stranger: Awaited<ReturnType<typeof createTenant>>;
let carrier: Awaited<ReturnType<typeof createTenant>>;

beforeAll(async () => {
  const tenant = await createTenant('provider');
  const api = client(tenant.live);
  const home = (await api.post('/properties', completeHome({ external_id: 'SEC-1' }))).body.data;
  const block = (await api.post(`/properties/${home.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-05' })).body.data;
  await insertBooking({ orgId: tenant.orgId, environment: 'live', propertyId: home.id });
  owner = { tenant, homeId: home.id, blockId: block.id };
  const sandboxApi = client(tenant.sandbox);
  const testHome = (await sandboxApi.post('/properties', completeHome({ external_id: 'SEC-TEST' }))).body.data;
  const testBlock = (await sandboxApi.post(`/properties/${testHome.id}/availability`, { start_date: '2027-01-01', end_date: '2027-01-05' })).body.data;
  sandboxOwner = { tenant, homeId: testHome.id, blockId: testBlock.id };
  stranger = await createTenant('provider');
  carrier = await createTenant('carrier');
});

interface RouteCase {
  name: string;
  method: 'get' | 'post' | 'patch';
  path: (o: Owner) => string;
  body?: (o: Owner) => unknown;
  scope: string;
}

const routes: RouteCase[] = [
  { name: 'POST /properties', method: 'post', path: () => '/properties', body: () => completeHome(), scope: 'properties:write' },
  { name: 'POST /properties/batch', method: 'post', path: () => '/properties/batch', body: () => ({ properties: [completeHome()] }), scope: 'properties:write' },
  { name: 'GET /properties', method: 'get', path: () => '/properties', scope: 'properties:read' },
  { name: 'GET /properties/readiness', method: 'get', path: () => '/properties/readiness', scope: 'properties:read' },
  { name: 'GET /properties/{ref}', method: 'get', path: (o) => `/properties/${o.homeId}`, scope: 'properties:read' },
  { name: 'PATCH /properties/{ref}', method: 'patch', path: (o) => `/properties/${o.homeId}`, body: () => ({ status: 'pending' }), scope: 'properties:write' },
  { name: 'GET /properties/{ref}/availability', method: 'get', path: (o) => `/properties/${o.homeId}/availability`, scope: 'properties:read' },
  {
    name: 'POST /properties/{ref}/availability', method: 'post', path: (o) => `/properties/${o.homeId}/availability`,
    body: () => ({ start_date: '2027-02-01', end_date: '2027-02-02' }), scope: 'properties:write',
  },
  { name: 'POST /properties/{ref}/availability/{block}/release', method: 'post', path: (o) => `/properties/${o.homeId}/availability/${o.blockId}/release`, scope: 'properties:write' },
  {
    name: 'POST /properties/availability', method: 'post', path: () => '/properties/availability',
    body: (o) => ({ blocks: [{ property_id: o.homeId, start_date: '2027-03-01', end_date: '2027-03-02' }] }), scope: 'properties:write',
  },
  { name: 'GET /properties/bookings', method: 'get', path: () => '/properties/bookings', scope: 'bookings:read' },
  { name: 'GET /properties/payouts', method: 'get', path: () => '/properties/payouts', scope: 'payouts:read' },
];

const send = (key: string, route: RouteCase, target: Owner = owner) => {
  const api = client(key);
  const path = route.path(target);
  if (route.method === 'get') return api.get(path);
  return api[route.method](path, route.body?.(target));
};

describe.each(routes)('$name', (route) => {
  it('403 forbidden, naming the scope, for a key without it', async () => {
    const others = scopesBySide.provider.filter((s) => s !== route.scope);
    const key = await createKey(owner.tenant.orgId, 'live', { scopes: [...others, 'webhooks:manage'] });
    const res = await send(key.key, route);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toContain(route.scope);
  });

  it('403 forbidden for a carrier key', async () => {
    const res = await send(carrier.live, route);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

const homeRoutes = routes.filter((r) => r.path({ homeId: 'X', blockId: 'Y' } as Owner).includes('/X'));

describe.each(homeRoutes)('$name on a home that is not the caller\'s', (route) => {
  it('404 not_found for another organisation', async () => {
    const res = await send(stranger.live, route);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('404 not_found for the other environment of the same organisation, in both directions', async () => {
    const fromSandbox = await send(owner.tenant.sandbox, route);
    expect(fromSandbox.status).toBe(404);
    expect(fromSandbox.body.error.code).toBe('not_found');
    const fromLive = await send(owner.tenant.live, route, sandboxOwner);
    expect(fromLive.status).toBe(404);
    expect(fromLive.body.error.code).toBe('not_found');
  });
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
        expect(res.body.error).toMatchObject({ code: 'invalid_field', field: 'cursor' });
      }
    }
    // A cursor of one list is not one of the other.
    expect((await client(owner.tenant.live).get(`/properties?cursor=${cursorOf(bookingId)}`)).body.error.field).toBe('cursor');
  });

  it("POST /properties with another tenant's external_id creates a separate home and leaves theirs alone", async () => {
    for (const key of [stranger.live, owner.tenant.sandbox]) {
      const res = await client(key).post('/properties', completeHome({ external_id: 'SEC-1', monthly_rate: 1 }));
      expect(res.status).toBe(201);
      expect(res.body.data.id).not.toBe(owner.homeId);
    }
    const batch = await client(stranger.live).post('/properties/batch', { properties: [completeHome({ external_id: 'SEC-1', monthly_rate: 2 })] });
    expect(batch.body.results[0].data.id).not.toBe(owner.homeId);
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
