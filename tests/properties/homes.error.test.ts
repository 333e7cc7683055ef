import { describe, expect, it } from 'vitest';
import { call, client, createTenant } from '../helpers.ts';
import { completeHome, minimalHome } from './fixtures.ts';

describe('POST /properties refusals', () => {
  it.each(['address', 'city', 'state', 'zip_code', 'monthly_rate', 'bedrooms', 'bathrooms'])('requires %s (422 invalid_field)', async (field) => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', minimalHome({ [field]: undefined }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });

  it.each([
    ['monthly_rate', 0],
    ['monthly_rate', -5],
    ['monthly_rate', 10.005],
    ['security_deposit', -1],
    ['rent_1_3_months', 0],
    ['bedrooms', 1.5],
    ['bathrooms', 1.3],
    ['sqft', 0],
    ['furnished_status', 'half'],
    ['status', 'sold'],
    ['available_from', '2026-02-30'],
    ['zip_code', '7870'],
    ['state', 'Texas'],
    ['latitude', 91],
    ['image_url', 'ftp://img.example.com/a.jpg'],
    ['amenities', 'wifi'],
    ['currency', 'eur'],
    ['contract_template', 'custom'],
    ['external_id', ''],
  ])('refuses %s = %j with 422 naming the field', async (field, value) => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ [field]: value }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });

  it.each([
    ['name', 'Maple\u0000Court'],
    ['description', 'Quiet\u0000'],
    ['pet_policy', '\u0000'],
    ['external_id', 'U\u00001'],
    ['image_url', 'https://img.example.com/a\u0000.jpg'],
  ])('refuses a NUL character in %s with 422 naming the field, not a server error', async (field, value) => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ [field]: value }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });

  it('refuses a NUL character inside amenities, naming the entry', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ amenities: ['wifi', 'pool\u0000'] }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field: 'amenities.1' });
  });

  it('refuses an unknown field', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ listed: true }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field: 'listed' });
  });

  it('refuses a body that is not JSON', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', '{not json', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_json');
  });

  it('offers no DELETE: 405 with the methods allowed', async () => {
    const tenant = await createTenant('provider');
    const api = client(tenant.live);
    const { body } = await api.post('/properties', completeHome());
    const res = await api.delete(`/properties/${body.data.id}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('PATCH');
  });
});

describe('PATCH /properties/{ref} refusals', () => {
  it('404 for an unknown id or external_id', async () => {
    const api = client((await createTenant('provider')).live);
    for (const ref of [crypto.randomUUID(), 'NOPE']) {
      const res = await api.patch(`/properties/${ref}`, { status: 'pending' });
      expect(res.status).toBe(404);
      expect(res.body.error?.code).toBe('not_found');
    }
  });

  it('refuses an external_id already used by another home', async () => {
    const api = client((await createTenant('provider')).live);
    await api.post('/properties', completeHome({ external_id: 'TAKEN' }));
    const { body } = await api.post('/properties', completeHome({ external_id: 'MINE' }));
    const res = await api.patch(`/properties/${body.data.id}`, { external_id: 'TAKEN' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field: 'external_id' });
  });

  it.each([
    ['address', null],
    ['monthly_rate', 0],
    ['status', 'gone'],
    ['verified', true],
  ])('refuses %s = %j', async (field, value) => {
    const api = client((await createTenant('provider')).live);
    const { body } = await api.post('/properties', completeHome());
    const res = await api.patch(`/properties/${body.data.id}`, { [field]: value });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });
});

describe('an external_id that is a word of a fixed route under /properties', () => {
  // The first segments of the routes under /properties that are not a {ref}: GET /properties/bookings
  // must reach the bookings, never a home whose external_id is `bookings`, so no home may take one.
  const fixedWords = async () => {
    const doc = (await call('GET', '/openapi.json')).body as unknown as { paths: Record<string, unknown> };
    const words = Object.keys(doc.paths).flatMap((path) => /^\/properties\/([^/{]+)/.exec(path)?.[1] ?? []);
    return [...new Set(words)].sort();
  };

  it('is refused with 422 invalid_field naming the reserved words, on create, update and in a batch', async () => {
    const words = await fixedWords();
    expect(words).toEqual(expect.arrayContaining(['applications', 'availability', 'batch', 'bookings', 'payouts', 'readiness', 'refund-requests']));
    const api = client((await createTenant('provider')).live);
    const { body: home } = await api.post('/properties', completeHome({ external_id: 'MINE' }));
    for (const word of words) {
      const created = await api.post('/properties', completeHome({ external_id: word }));
      expect(created.status, word).toBe(422);
      expect(created.body.error).toMatchObject({ code: 'invalid_field', field: 'external_id' });
      for (const each of words) expect(created.body.error?.message).toContain(each);
      const patched = await api.patch(`/properties/${home.data.id}`, { external_id: word });
      expect(patched.status, word).toBe(422);
      expect(patched.body.error).toMatchObject({ code: 'invalid_field', field: 'external_id' });
    }
    const batch = await api.post('/properties/batch', { properties: [completeHome({ external_id: 'readiness' }), completeHome({ external_id: 'R-1' })] });
    expect(batch.status).toBe(207);
    expect(batch.body.results[0]).toMatchObject({ ok: false, error: { code: 'invalid_field', field: 'external_id' } });
    expect((await api.get('/properties/MINE')).body.data.id).toBe(home.data.id);
  });

  it('is refused only as the whole word: a reference that merely contains one is a home like any other', async () => {
    const api = client((await createTenant('provider')).live);
    for (const external_id of ['Bookings', 'bookings-2', 'batch 7']) {
      const created = await api.post('/properties', completeHome({ external_id }));
      expect(created.status, external_id).toBe(201);
      expect((await api.get(`/properties/${encodeURIComponent(external_id)}`)).body.data.id).toBe(created.body.data.id);
    }
  });
});

describe('GET /properties refusals', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['status=sold', 'status'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from(JSON.stringify(['x'])).toString('base64url')}`, 'cursor'],
  ])('%s → 422 on %s', async (query, field) => {
    const api = client((await createTenant('provider')).live);
    const res = await api.get(`/properties?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });

  it('404 for an unknown home, also for a reference no home can have', async () => {
    const api = client((await createTenant('provider')).live);
    expect((await api.get(`/properties/${crypto.randomUUID()}`)).status).toBe(404);
    const nul = await api.get('/properties/UNIT%00204');
    expect(nul.status).toBe(404);
    expect(nul.body.error?.code).toBe('not_found');
  });
});

describe('POST /properties/batch', () => {
  it('handles items independently: 207 with per-item results in input order, created and updated counted apart', async () => {
    const api = client((await createTenant('provider')).live);
    const existing = await api.post('/properties', completeHome({ external_id: 'E-1' }));
    const res = await api.post('/properties/batch', {
      properties: [
        completeHome({ external_id: 'E-1', monthly_rate: 3000 }),
        completeHome({ external_id: 'N-1' }),
        completeHome({ external_id: 'BAD', monthly_rate: 0 }),
        minimalHome(),
        completeHome({ external_id: 'N-1' }),
        'not a home',
        completeHome({ surprise: 1 }),
      ],
    });
    expect(res.status).toBe(207);
    expect(Object.keys(res.body)).toEqual(['created', 'failed', 'updated', 'results']);
    expect(res.body).toMatchObject({ created: 2, updated: 1, failed: 4 });
    expect(res.body.results.map((r: any) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const [e1, n1, bad, minimal, dup, text, unknown] = res.body.results;
    expect(e1).toMatchObject({ index: 0, external_id: 'E-1', ok: true, updated: true, data: { id: existing.body.data.id, listed: true } });
    expect(n1).toMatchObject({ index: 1, external_id: 'N-1', ok: true, updated: false, data: { api_external_id: 'N-1', listed: true, missing_fields: [], availability_via: ['complete_profile', 'available_dates'] } });
    expect(bad).toMatchObject({ index: 2, external_id: 'BAD', ok: false, error: { code: 'invalid_field', field: 'monthly_rate' } });
    expect(minimal).toMatchObject({ index: 3, external_id: null, ok: true, data: { listed: false } });
    expect(dup).toMatchObject({ index: 4, external_id: 'N-1', ok: false, error: { code: 'invalid_field', field: 'external_id' } });
    expect(text).toMatchObject({ index: 5, external_id: null, ok: false, error: { code: 'invalid_field', message: expect.stringMatching(/^The item: /) } });
    expect(text.error).not.toHaveProperty('field');
    expect(unknown).toMatchObject({ index: 6, ok: false, error: { code: 'invalid_field', field: 'surprise' } });
    expect((await api.get('/properties/E-1')).body.data.monthly_rate).toBe(3000);
    expect((await api.get('/properties/BAD')).status).toBe(404);
  });

  it('an item the database could not store (a NUL character) is refused alone', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties/batch', { properties: [completeHome({ external_id: 'GOOD' }), completeHome({ description: 'x\u0000' })] });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ created: 1, failed: 1 });
    expect(res.body.results[1]).toMatchObject({ ok: false, error: { code: 'invalid_field', field: 'description' } });
    expect((await api.get('/properties/GOOD')).status).toBe(200);
  });

  it('answers 201 when every item goes through, 200 when every item refreshed an existing home, 422 when every item fails', async () => {
    const api = client((await createTenant('provider')).live);
    const ok = await api.post('/properties/batch', { properties: [completeHome(), completeHome()] });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ created: 2, updated: 0, failed: 0 });
    const refreshed = [completeHome({ external_id: 'UP-1' }), completeHome({ external_id: 'UP-2' })];
    expect((await api.post('/properties/batch', { properties: [refreshed[0]] })).status).toBe(201);
    const mixed = await api.post('/properties/batch', { properties: refreshed });
    expect([mixed.status, mixed.body.created, mixed.body.updated]).toEqual([201, 1, 1]);
    const again = await api.post('/properties/batch', { properties: refreshed });
    expect([again.status, again.body.created, again.body.updated]).toEqual([200, 0, 2]);
    const bad = await api.post('/properties/batch', { properties: [{}, { address: 'x' }] });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ created: 0, failed: 2 });
    expect(bad.body.results.map((r: any) => [r.index, r.ok, r.error.code])).toEqual([[0, false, 'invalid_field'], [1, false, 'invalid_field']]);
  });

  it('accepts 100 items and refuses 101 or none', async () => {
    const api = client((await createTenant('provider')).live);
    const hundred = await api.post('/properties/batch', { properties: Array.from({ length: 100 }, (_, i) => minimalHome({ external_id: `H-${i}` })) });
    expect(hundred.status).toBe(201);
    expect(hundred.body.created).toBe(100);
    const tooMany = await api.post('/properties/batch', { properties: Array.from({ length: 101 }, () => minimalHome()) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: 'invalid_field', field: 'properties' });
    const none = await api.post('/properties/batch', { properties: [] });
    expect(none.status).toBe(422);
    const missing = await api.post('/properties/batch', {});
    expect(missing.body.error).toMatchObject({ code: 'invalid_field', field: 'properties' });
  });

  it('a retry of the same items with external_id refreshes the same homes (no duplicates)', async () => {
    const api = client((await createTenant('provider')).live);
    const body = { properties: [completeHome({ external_id: 'R-1' }), completeHome({ external_id: 'R-2' })] };
    const first = await api.post('/properties/batch', body);
    const second = await api.post('/properties/batch', body);
    expect(second.body).toMatchObject({ created: 0, updated: 2 });
    expect(second.body.results.map((r: any) => r.data.id)).toEqual(first.body.results.map((r: any) => r.data.id));
  });

  it('with an Idempotency-Key a retry of items without external_id replays instead of duplicating', async () => {
    const api = client((await createTenant('provider')).live);
    const body = { properties: [minimalHome()] };
    const first = await api.post('/properties/batch', body, { 'Idempotency-Key': 'batch-1' });
    const second = await api.post('/properties/batch', body, { 'Idempotency-Key': 'batch-1' });
    expect(second.text).toBe(first.text);
    expect((await api.get('/properties')).body.count).toBe(1);
  });
});
