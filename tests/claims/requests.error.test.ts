import { describe, expect, it } from 'vitest';
import { call, ownerSql } from '../helpers.ts';
import { at, carrier, claimBody, inDays, openClaim, spot } from './fixtures.ts';

const here = spot(3, 0);

async function refused(res: { status: number; body: any }, field: string, code = 'invalid_field', status = 422) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, field });
  expect(res.body.error.message).toEqual(expect.any(String));
}

describe('POST /claims validation (422 invalid_field naming the first bad field)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a missing required field', { loss_address: undefined }, 'loss_address'],
    ['the first of several missing fields', { loss_city: undefined, adults: undefined }, 'loss_city'],
    ['a required field before an optional one (the order of the guide)', { target_move_in: undefined, loss_lat: 'north', loss_lng: 1 }, 'target_move_in'],
    ['a field wrong on its own before a rule across fields', { loss_state: 'Texas', bedrooms: '3' }, 'bedrooms'],
    ['a wrong type', { bedrooms: '3' }, 'bedrooms'],
    ['a fraction where an integer is needed', { sqft: 900.5 }, 'sqft'],
    ['a value out of range', { est_length_months: 0 }, 'est_length_months'],
    ['too many adults', { adults: 31 }, 'adults'],
    ['a bathroom count not in halves', { bathrooms: 1.25 }, 'bathrooms'],
    ['a date in another format', { target_move_in: '12/01/2026' }, 'target_move_in'],
    ['an impossible date', { target_move_in: '2027-02-30' }, 'target_move_in'],
    ['a move-in in the past', { target_move_in: inDays(-3) }, 'target_move_in'],
    ['a move-in more than two years ahead', { target_move_in: inDays(800) }, 'target_move_in'],
    ['a state that is not a US state', { loss_state: 'Texas' }, 'loss_state'],
    ['a malformed US ZIP code', { loss_zip: '7870' }, 'loss_zip'],
    ['a ZIP+4 with a bad suffix', { loss_zip: '78701-12' }, 'loss_zip'],
    ['a household language that is not a BCP 47 tag', { household_language: 'spanish please' }, 'household_language'],
    ['a household language with an empty subtag', { household_language: 'es--PR' }, 'household_language'],
    ['a property_type outside its set', { property_type: 'castle' }, 'property_type'],
    ['a furnishing outside its set', { furnishing: 'semi' }, 'furnishing'],
    ['a rent_payer outside its set', { rent_payer: 'insurer' }, 'rent_payer'],
    ['a deposit_payer outside its set', { deposit_payer: 'landlord' }, 'deposit_payer'],
    ['a fees_payer outside its set', { fees_payer: 'nobody' }, 'fees_payer'],
    ['a priority outside its set', { priority: 'asap' }, 'priority'],
    ['a budget with fractions of a cent', { max_budget: 10.001 }, 'max_budget'],
    ['a negative budget', { max_budget: -5 }, 'max_budget'],
    ['an email that is not one', { adjuster_email: 'nobody' }, 'adjuster_email'],
    ['a latitude without longitude', { loss_lat: 30.1, loss_lng: undefined }, 'loss_lng'],
    ['a longitude without latitude', { loss_lat: undefined }, 'loss_lat'],
    ['a latitude out of range', { loss_lat: 91, loss_lng: 0 }, 'loss_lat'],
    ['a loss outside the US without coordinates', { loss_country: 'CA', loss_state: 'ON', loss_zip: 'M5V 2T6', loss_lat: undefined, loss_lng: undefined }, 'loss_lat'],
    ['pets without their detail', { has_pets: true, number_of_pets: 1 }, 'pet_details'],
    ['pet detail without pets', { pet_details: 'a dog' }, 'pet_details'],
    ['an unknown field', { colour: 'blue' }, 'colour'],
    ['occupants, which is derived', { occupants: 3 }, 'occupants'],
    ['a search radius over the limit', { search_radius_miles: 500 }, 'search_radius_miles'],
    ['text with a NUL character, which the database cannot store', { adjuster_name: 'Sam\u0000Lee' }, 'adjuster_name'],
    ['an external_id with a NUL character', { external_id: 'CLM\u0000' }, 'external_id'],
    ['a list item with a NUL character', { amenities: ['wifi', 'parking\u0000'] }, 'amenities.1'],
  ];
  it.each(cases)('refuses %s', async (_name, change, field) => {
    const c = await carrier();
    const body = { ...claimBody(at(here)), ...change };
    await refused(await c.liveApi.post('/claims', JSON.parse(JSON.stringify(body))), field);
    expect((await c.liveApi.get('/claims')).body.count).toBe(0);
  });

  it('refuses a US ZIP code the service does not know when no coordinates are sent', async () => {
    const c = await carrier();
    const res = await c.liveApi.post('/claims', claimBody({ loss_zip: '00000' }));
    await refused(res, 'loss_zip');
    expect(res.body.error?.message).toMatch(/loss_lat/);
  });

  it('accepts a loss outside the US with coordinates and free-form state and postcode', async () => {
    const c = await carrier();
    const res = await c.liveApi.post('/claims', claimBody({ loss_country: 'ca', loss_state: 'Ontario', loss_zip: 'M5V 2T6', loss_lat: 43.64, loss_lng: -79.39 }));
    expect(res.status).toBe(201);
    expect((await c.liveApi.get(`/claims/${res.body.data.id}`)).body.data).toMatchObject({ loss_country: 'CA', loss_state: 'Ontario', loss_zip: 'M5V 2T6' });
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const c = await carrier();
    const res = await call('POST', '/claims', { key: c.live, body: '{"loss_address": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_json');
  });

  it('answers 400 could_not_create when the database refuses the request, and a batch keeps its other items', async () => {
    const c = await carrier();
    const sql = ownerSql();
    // A rule of the database that validation does not know about, for this organisation only.
    await sql.unsafe(`
      -- An integrity rule (class 23) for one external_id, a value the database cannot store (class 22) for another.
      create or replace function app.test_refuse_claim() returns trigger language plpgsql as $$
      begin
        if new.external_id = 'REFUSED' then raise exception 'refused for the test' using errcode = 'check_violation'; end if;
        raise exception 'out of range for the test' using errcode = 'numeric_value_out_of_range';
      end $$;
      create trigger test_refuse_claim before insert on app.claims for each row
        when (new.org_id = '${c.orgId}' and new.external_id in ('REFUSED', 'OUT-OF-RANGE')) execute function app.test_refuse_claim();`);
    try {
      for (const externalId of ['REFUSED', 'OUT-OF-RANGE']) {
        const single = await c.liveApi.post('/claims', claimBody({ ...at(here), external_id: externalId }));
        expect(single.status).toBe(400);
        expect(single.body.error).toEqual({ code: 'could_not_create', message: expect.any(String), doc_url: expect.stringMatching(/#error-could_not_create$/) });
      }
      const batch = await c.liveApi.post('/claims/batch', {
        requests: ['FINE', 'REFUSED', 'OUT-OF-RANGE'].map((externalId) => claimBody({ ...at(here), external_id: externalId })),
      });
      expect(batch.status).toBe(207);
      expect(batch.body.results.map((r: any) => [r.external_id, r.ok, r.error?.code])).toEqual([
        ['FINE', true, undefined], ['REFUSED', false, 'could_not_create'], ['OUT-OF-RANGE', false, 'could_not_create'],
      ]);
      expect((await c.liveApi.get('/claims')).body.data.map((r: any) => r.api_external_id)).toEqual(['FINE']);
    } finally {
      await sql.unsafe('drop trigger test_refuse_claim on app.claims; drop function app.test_refuse_claim();');
    }
  });
});

describe('GET /claims query validation', () => {
  it("refuses a cursor of another organisation's list or of the other environment's, instead of an empty page", async () => {
    const c = await carrier();
    const other = await carrier();
    for (let i = 0; i < 2; i++) {
      await openClaim(c.liveApi, at(here));
      await openClaim(other.liveApi, at(here));
    }
    const theirCursor = (await other.liveApi.get('/claims?limit=1')).body.next_cursor;
    const liveCursor = (await c.liveApi.get('/claims?limit=1')).body.next_cursor;
    expect((await c.liveApi.get(`/claims?limit=1&cursor=${liveCursor}`)).body.count).toBe(1);
    await refused(await c.liveApi.get(`/claims?cursor=${theirCursor}`), 'cursor');
    await refused(await c.sandboxApi.get(`/claims?cursor=${liveCursor}`), 'cursor');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['status=open', 'status'],
    ['status=housing_options_found,nope', 'status'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=2026-11-21T10:00:00', 'updated_since'],
    ['updated_since=0000-01-01T00:00:00Z', 'updated_since'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from(JSON.stringify(['x'])).toString('base64url')}`, 'cursor'],
  ])('refuses %s', async (query, field) => {
    const c = await carrier();
    await refused(await c.liveApi.get(`/claims?${query}`), field);
  });
});

describe('GET /claims/{reference}', () => {
  it.each(['REQ-000000', 'REQ-ABCDEF', 'nonsense', '7f9c1b7e-0000-4000-8000-000000000000'])('answers 404 not_found for %s', async (reference) => {
    const c = await carrier();
    const res = await c.liveApi.get(`/claims/${reference}`);
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });
});

describe('PATCH /claims/{reference} refusals', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['occupants, which is derived', { occupants: 4 }, 'occupants'],
    ['the loss address', { loss_address: '1 New St' }, 'loss_address'],
    ['the loss ZIP code', { loss_zip: '78702' }, 'loss_zip'],
    ['the loss coordinates', { loss_lat: 30.1 }, 'loss_lat'],
    ["the household's identity", { policyholder_name: 'Someone Else' }, 'policyholder_name'],
    ['the external_id', { external_id: 'NEW' }, 'external_id'],
    ['has_pets: true alone', { has_pets: true }, 'number_of_pets'],
    ['has_pets: true without breeds', { has_pets: true, number_of_pets: 1, pet_details: 'dog' }, 'pet_breeds'],
    ['pet detail on a request without pets', { number_of_pets: 2 }, 'has_pets'],
    ['pet detail alongside has_pets: false', { has_pets: false, pet_details: 'none' }, 'pet_details'],
    ['an empty change', {}, 'body'],
    ['null for a required field', { bedrooms: null }, 'bedrooms'],
    ['an unknown field', { status_primary: 'in_stay' }, 'status_primary'],
    ['a move-in in the past', { target_move_in: inDays(-5) }, 'target_move_in'],
    ['a furnishing outside its set', { furnishing: 'bare' }, 'furnishing'],
    ['text with a NUL character', { external_reference: 'EXT\u00001' }, 'external_reference'],
    ['a household language that is not a BCP 47 tag', { household_language: 'es_PR!' }, 'household_language'],
  ];
  it.each(cases)('refuses %s', async (_name, change, field) => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const before = (await c.liveApi.get(`/claims/${made.id}`)).body.data;
    const res = await c.liveApi.patch(`/claims/${made.claim_ref}`, change);
    await refused(res, field);
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data).toEqual(before);
  });

  it('names the reason the loss address is fixed', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const res = await c.liveApi.patch(`/claims/${made.id}`, { loss_city: 'Dallas' });
    expect(res.body.error?.message).toMatch(/different request/);
  });

  it('answers 400 invalid_json for a body that is not JSON, and changes nothing', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const before = (await c.liveApi.get(`/claims/${made.id}`)).body.data;
    const res = await call('PATCH', `/claims/${made.id}`, { key: c.live, body: '{"bedrooms": 4', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_json');
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data).toEqual(before);
  });

  it('answers 404 for an unknown reference', async () => {
    const c = await carrier();
    const res = await c.liveApi.patch('/claims/REQ-ZZZZZZ', { bedrooms: 2 });
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });
});

describe('POST /claims/batch body', () => {
  it.each([
    ['more than 50 items', { requests: Array.from({ length: 51 }, () => claimBody()) }, 'requests'],
    ['no items', { requests: [] }, 'requests'],
    ['items that are not a list', { requests: 'all' }, 'requests'],
    ['an unknown top-level field', { requests: [claimBody()], replace: true }, 'replace'],
  ])('refuses %s with 422 invalid_field', async (_name, body, field) => {
    const c = await carrier();
    await refused(await c.liveApi.post('/claims/batch', body), field);
    expect((await c.liveApi.get('/claims')).body.count).toBe(0);
  });
});
