import { describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { completeHome, minimalHome } from './fixtures.ts';
import { connectLivePayouts } from '../placements/fixtures.ts';

describe('POST /properties', () => {
  it('creates a complete home: listed, verified, readable availability, amounts in major units', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ external_id: 'UNIT-1', monthly_rate: 2450.75, rent_4_6_months: 2300 }));
    expect(res.status).toBe(201);
    const home = res.body.data;
    expect(home).toMatchObject({
      api_external_id: 'UNIT-1',
      listed: true,
      verified: true,
      verified_via: 'available_dates',
      missing_fields: [],
      availability_via: ['complete_profile', 'available_dates'],
      monthly_rate: 2450.75,
      rent_4_6_months: 2300,
      rent_1_3_months: null,
      security_deposit: 1500,
      cleaning_fee: 0,
      image_url: 'https://img.example.com/a.jpg',
      image_urls: ['https://img.example.com/a.jpg', 'https://img.example.com/b.jpg'],
      status: 'available',
      contract_template: 'standard',
      currency: 'usd',
      test_data: false,
    });
    const [row] = await ownerSql()`select monthly_rate_cents, rent_4_6_months_cents from app.properties where id = ${home.id}`;
    expect(row).toEqual({ monthly_rate_cents: 245075, rent_4_6_months_cents: 230000 });
  });

  it('saves a home with only the required fields as not listed, naming every missing field in rule order', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', minimalHome());
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      listed: false,
      verified: false,
      verified_via: null,
      availability_via: [],
      missing_fields: [
        'sqft', 'image_url', 'description', 'amenities', 'pet_policy', 'available_from',
        'security_deposit', 'cleaning_fee', 'application_fee', 'pet_fee', 'furnished_status',
      ],
    });
  });

  it.each([
    ['security_deposit', { security_deposit: null }],
    ['cleaning_fee', { cleaning_fee: undefined }],
    ['amenities', { amenities: [] }],
    ['pet_policy', { pet_policy: '   ' }],
    ['image_url', { image_url: [] }],
    ['description', { description: '' }],
    ['available_from', { available_from: null }],
    ['furnished_status', { furnished_status: null }],
    ['sqft', { sqft: null }],
  ])('a home lacking %s is not listed, and only that field is missing', async (field, change) => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome(change));
    expect(res.status).toBe(201);
    expect(res.body.data.listed).toBe(false);
    expect(res.body.data.missing_fields).toEqual([field]);
  });

  it('accepts 0 for deposits and fees (not applicable) and "No pets" as an explicit pet policy', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ security_deposit: 0, cleaning_fee: 0, application_fee: 0, pet_fee: 0, pet_policy: 'No pets' }));
    expect(res.body.data).toMatchObject({ listed: true, missing_fields: [] });
  });

  it('with an existing external_id updates the same home in place: sent fields replace, omitted ones become absent, status is kept', async () => {
    const api = client((await createTenant('provider')).live);
    const first = await api.post('/properties', completeHome({ external_id: 'SYNC-1' }));
    await api.patch('/properties/SYNC-1', { status: 'unavailable' });
    const again = await api.post('/properties', completeHome({ external_id: 'SYNC-1', monthly_rate: 2600, pet_fee: undefined }));
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      id: first.body.data.id,
      monthly_rate: 2600,
      pet_fee: null,
      status: 'unavailable',
      listed: false,
      missing_fields: ['pet_fee'],
    });
    const [{ n }] = await ownerSql()`select count(*)::int as n from app.properties where external_id = 'SYNC-1' and org_id = (select org_id from app.properties where id = ${first.body.data.id})`;
    expect(n).toBe(1);
  });

  it('an update in place may set status explicitly', async () => {
    const api = client((await createTenant('provider')).live);
    await api.post('/properties', completeHome({ external_id: 'S-2' }));
    const res = await api.post('/properties', completeHome({ external_id: 'S-2', status: 'pending' }));
    expect(res.body.data.status).toBe('pending');
  });

  it('without external_id, a retry creates a second copy', async () => {
    const api = client((await createTenant('provider')).live);
    const body = minimalHome();
    const a = await api.post('/properties', body);
    const b = await api.post('/properties', body);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.data.id).not.toBe(b.body.data.id);
  });

  it('concurrent publishes of one external_id make one home', async () => {
    const api = client((await createTenant('provider')).live);
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => api.post('/properties', completeHome({ external_id: 'RACE', bedrooms: i }))));
    expect(responses.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
  });

  it('concurrent batches refreshing the same homes in opposite orders all succeed, one home per external_id', async () => {
    const api = client((await createTenant('provider')).live);
    const homes = Array.from({ length: 60 }, (_, i) => completeHome({ external_id: `ORDER-${i}` }));
    await api.post('/properties/batch', { properties: homes });
    for (let round = 0; round < 3; round++) {
      const responses = await Promise.all([
        api.post('/properties/batch', { properties: homes }),
        api.post('/properties/batch', { properties: [...homes].reverse() }),
        api.post('/properties/batch', { properties: [...homes.slice(30), ...homes.slice(0, 30)] }),
      ]);
      expect(responses.map((r) => [r.status, r.body.updated])).toEqual([[200, 60], [200, 60], [200, 60]]);
    }
    expect((await api.get('/properties?limit=100')).body.count).toBe(60);
  });

  it('the same external_id in live and sandbox gives two separate homes; a sandbox home is test data', async () => {
    const tenant = await createTenant('provider');
    const live = await client(tenant.live).post('/properties', completeHome({ external_id: 'BOTH' }));
    const sandbox = await client(tenant.sandbox).post('/properties', completeHome({ external_id: 'BOTH' }));
    expect(live.status).toBe(201);
    expect(sandbox.status).toBe(201);
    expect(live.body.data.id).not.toBe(sandbox.body.data.id);
    expect(live.body.data.test_data).toBe(false);
    expect(sandbox.body.data).toMatchObject({ test_data: true, listed: true, verified: true });
  });

  it('accepts the fields the specification leaves unnamed: pet rent, pet deposit, utilities, contract template', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ pet_rent: 35, pet_deposit: 300, utilities_included: false, utilities_monthly: 120.5, contract_template: 'own', currency: 'usd' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ pet_rent: 35, pet_deposit: 300, utilities_included: false, utilities_monthly: 120.5, contract_template: 'own' });
  });

  it('normalises the state code to upper case and accepts a single photograph address', async () => {
    const api = client((await createTenant('provider')).live);
    const res = await api.post('/properties', completeHome({ state: ' tx ', image_url: 'https://img.example.com/only.jpg' }));
    expect(res.body.data).toMatchObject({ state: 'TX', image_url: 'https://img.example.com/only.jpg', image_urls: ['https://img.example.com/only.jpg'] });
  });
});

describe('PATCH /properties/{id|external_id}', () => {
  it('changes only the sent fields, by id or external_id, and recomputes readiness', async () => {
    const api = client((await createTenant('provider')).live);
    const created = await api.post('/properties', minimalHome({ external_id: 'P-1' }));
    const id = created.body.data.id;
    const rest = completeHome();
    const { address, city, state, zip_code, monthly_rate, bedrooms, bathrooms, ...fill } = rest;
    const patched = await api.patch(`/properties/${id}`, fill);
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, listed: true, verified: true, missing_fields: [], address: created.body.data.address });
    const byRef = await api.patch('/properties/P-1', { status: 'pending', monthly_rate: 1999.99 });
    expect(byRef.body.data).toMatchObject({ id, status: 'pending', monthly_rate: 1999.99, listed: true });
  });

  it('null clears an optional field, which can unlist the home', async () => {
    const api = client((await createTenant('provider')).live);
    const { body } = await api.post('/properties', completeHome());
    const res = await api.patch(`/properties/${body.data.id}`, { amenities: null, cleaning_fee: null });
    expect(res.body.data).toMatchObject({ amenities: null, cleaning_fee: null, listed: false, verified: false, missing_fields: ['amenities', 'cleaning_fee'] });
  });

  it.each(['available', 'pending', 'unavailable'])('sets status %s', async (status) => {
    const api = client((await createTenant('provider')).live);
    const { body } = await api.post('/properties', completeHome());
    const res = await api.patch(`/properties/${body.data.id}`, { status });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe(status);
  });

  it('an empty patch changes nothing and answers the home', async () => {
    const api = client((await createTenant('provider')).live);
    const { body } = await api.post('/properties', completeHome());
    const res = await api.patch(`/properties/${body.data.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body.data.updated_at).toBe(body.data.updated_at);
  });

  it('can change and clear the external_id', async () => {
    const api = client((await createTenant('provider')).live);
    const { body } = await api.post('/properties', completeHome({ external_id: 'OLD' }));
    expect((await api.patch('/properties/OLD', { external_id: 'NEW' })).body.data.api_external_id).toBe('NEW');
    expect((await api.get('/properties/NEW')).body.data.id).toBe(body.data.id);
    expect((await api.patch('/properties/NEW', { external_id: null })).body.data.api_external_id).toBeNull();
  });
});

describe('GET /properties and GET /properties/{id|external_id}', () => {
  it('pages newest first with readiness per home, filters by status, and ends with next_cursor null', async () => {
    const api = client((await createTenant('provider')).live);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.post('/properties', i % 2 ? minimalHome() : completeHome())).body.data.id);
    await api.patch(`/properties/${ids[0]}`, { status: 'unavailable' });

    const first = await api.get('/properties?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(2);
    expect(first.body.data.map((h: any) => h.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.data[0]).toHaveProperty('verified_via');
    expect(first.body.data[1]).toMatchObject({ listed: false, verified: false });
    const second = await api.get(`/properties?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((h: any) => h.id)).toEqual([ids[2], ids[1]]);
    const third = await api.get(`/properties?limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toMatchObject({ count: 1, next_cursor: null });
    expect(third.body.data[0].id).toBe(ids[0]);

    const unavailable = await api.get('/properties?status=unavailable');
    expect(unavailable.body.data.map((h: any) => h.id)).toEqual([ids[0]]);
  });

  it('a page that empties because homes changed status since the cursor was issued is an empty last page', async () => {
    const api = client((await createTenant('provider')).live);
    const older = (await api.post('/properties', completeHome())).body.data.id;
    await api.post('/properties', completeHome());
    const first = await api.get('/properties?limit=1&status=available');
    expect(first.body.next_cursor).toEqual(expect.any(String));
    await api.patch(`/properties/${older}`, { status: 'unavailable' });
    const second = await api.get(`/properties?limit=1&status=available&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ data: [], count: 0, next_cursor: null });
  });

  it('defaults to 25 per page', async () => {
    const api = client((await createTenant('provider')).live);
    await api.post('/properties/batch', { properties: Array.from({ length: 26 }, () => minimalHome()) });
    const res = await api.get('/properties');
    expect(res.body.count).toBe(25);
    expect(res.body.next_cursor).toEqual(expect.any(String));
  });

  it('reads one home by id or by external_id', async () => {
    const api = client((await createTenant('provider')).live);
    const { body } = await api.post('/properties', completeHome({ external_id: 'READ-1' }));
    expect((await api.get(`/properties/${body.data.id}`)).body.data).toEqual(body.data);
    expect((await api.get('/properties/READ-1')).body.data.id).toBe(body.data.id);
  });
});

describe('GET /properties/readiness', () => {
  it('counts listed homes, ranks blockers by how many homes they hold back, and gives up to twenty examples', async () => {
    const tenant = await createTenant('provider');
    // Charges on, so that only the listings hold homes back (tests/properties/offered.test.ts: the payout account).
    await connectLivePayouts(tenant.orgId);
    const api = client(tenant.live);
    const homes = [
      ...Array.from({ length: 3 }, () => completeHome()),
      ...Array.from({ length: 20 }, () => completeHome({ pet_fee: null })),
      completeHome({ pet_fee: null, amenities: [], external_id: 'NEWEST' }),
    ];
    const res = await api.post('/properties/batch', { properties: homes });
    expect(res.status).toBe(201);
    const readiness = await api.get('/properties/readiness');
    expect(readiness.status).toBe(200);
    expect(readiness.body.data).toMatchObject({
      total: 24,
      listed: 3,
      not_listed: 21,
      offered: 3,
      not_offered: 21,
      blockers: [
        { field: 'pet_fee', homes: 21 },
        { field: 'amenities', homes: 1 },
      ],
    });
    expect(readiness.body.data.examples).toHaveLength(20);
    for (const example of readiness.body.data.examples) {
      expect(Object.keys(example).sort()).toEqual(['external_id', 'missing_fields', 'name', 'not_offered_because', 'property_id']);
      expect(example.missing_fields).toContain('pet_fee');
      expect(example.not_offered_because).toEqual(['listing_incomplete']);
    }
  });

  it('puts the most recently changed homes first among the examples', async () => {
    const api = client((await createTenant('provider')).live);
    const a = (await api.post('/properties', minimalHome())).body.data.id;
    const b = (await api.post('/properties', minimalHome())).body.data.id;
    await api.patch(`/properties/${a}`, { name: 'Touched' });
    const res = await api.get('/properties/readiness');
    expect(res.body.data.examples.map((e: any) => e.property_id)).toEqual([a, b]);
    expect(res.body.data.examples[0].name).toBe('Touched');
  });

  it('an empty portfolio reads as zeros', async () => {
    const api = client((await createTenant('provider')).live);
    expect((await api.get('/properties/readiness')).body.data).toEqual({ total: 0, listed: 0, not_listed: 0, offered: 0, not_offered: 0, blockers: [], warnings: [], examples: [] });
  });
});
