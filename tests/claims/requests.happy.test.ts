import { describe, expect, it } from 'vitest';
import { call, ownerSql } from '../helpers.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { at, carrier, claimBody, eventsOf, inDays, insertHome, milesNorth, openClaim, provider, sourced, spot } from './fixtures.ts';

const refPattern = /^REQ-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$/;
// No home is ever put near `here`: requests opened there stay at housing_needs_collected.
const here = spot(2, 0);

describe('POST /claims', () => {
  it('creates a request at housing_needs_collected (201) and announces it', async () => {
    const c = await carrier();
    const res = await c.liveApi.post('/claims', claimBody({ ...at(here), external_id: 'CLM-1' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      claim_ref: expect.stringMatching(refPattern),
      status_primary: 'housing_needs_collected',
      created_at: expect.any(String),
      idempotent: false,
    });
    const events = await eventsOf(c.orgId);
    expect(events).toHaveLength(1);
    expect(events[0].environment).toBe('live');
    expect(events[0].payload).toEqual({
      request_id: res.body.data.id, reference: res.body.data.claim_ref, external_id: 'CLM-1',
      status: 'housing_needs_collected', previous_status: null,
    });
    expect(definitionOf('request.status_changed', 'carrier')!.payload.safeParse(events[0].payload).success).toBe(true);
  });

  it('stores every optional field and reads it back in full', async () => {
    const c = await carrier();
    const body = claimBody({
      ...at(here), loss_state: 'tx', loss_zip: '78701-1234', external_id: 'CLM-FULL', external_reference: 'CLAIM 77-1',
      policyholder_name: 'Dana Reyes', max_budget: 3200.5, ale_limit: 30000, fees_payer: 'policyholder', deposit_payer: 'tpa', search_radius_miles: 40,
      priority: 'urgent', household_email: 'dana@example.com', household_phone: '+1 512 555 0100', adjuster_name: 'Sam Lee',
      adjuster_email: 'sam@carrier.example', adjuster_phone: '(512) 555-0199', children: 2, accessibility_needs: ['wheelchair_accessible'],
      amenities: ['parking'], laundry_preference: 'in_unit', parking_preference: 'garage', has_pets: true, number_of_pets: 2,
      pet_details: 'two cats', pet_breeds: ['siamese', 'tabby'], household_language: 'es-pr',
    });
    const created = await c.liveApi.post('/claims', body);
    expect(created.status).toBe(201);
    const res = await c.liveApi.get(`/claims/${created.body.data.claim_ref}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: created.body.data.id, claim_ref: created.body.data.claim_ref, status_primary: 'housing_needs_collected',
      loss_address: '12 Harbor Lane', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701-1234', loss_country: 'US',
      loss_lat: here.lat, loss_lng: here.lng, policyholder_name: 'Dana Reyes', target_move_in: body.target_move_in,
      est_length_months: 4, max_budget: 3200.5, ale_limit: 30000, currency: 'usd', rent_payer: 'carrier', deposit_payer: 'tpa',
      fees_payer: 'policyholder', search_radius_miles: 40, priority: 'urgent', household_email: 'dana@example.com',
      household_phone: '+1 512 555 0100', household_language: 'es-PR', adjuster_name: 'Sam Lee', adjuster_email: 'sam@carrier.example', adjuster_phone: '(512) 555-0199',
      bedrooms: 2, bathrooms: 1.5, sqft: 900, adults: 2, children: 2, occupants: 4, property_type: 'apartment', furnishing: 'furnished',
      accessibility_needs: ['wheelchair_accessible'], amenities: ['parking'], laundry_preference: 'in_unit', parking_preference: 'garage',
      has_pets: true, number_of_pets: 2, pet_details: 'two cats', pet_breeds: ['siamese', 'tabby'], external_reference: 'CLAIM 77-1',
      api_external_id: 'CLM-FULL', coordinator_assigned: false,
    });
    const [row] = await ownerSql()`select max_budget_cents, ale_limit_cents from app.claims where id = ${created.body.data.id}`;
    expect(row).toEqual({ max_budget_cents: 320050, ale_limit_cents: 3000000 });
  });

  it('returns the existing request with idempotent: true for a repeated external_id (200), per environment', async () => {
    const c = await carrier();
    const first = await c.liveApi.post('/claims', claimBody({ ...at(here), external_id: 'CLM-REPEAT' }));
    const again = await c.liveApi.post('/claims', claimBody({ ...at(here), external_id: 'CLM-REPEAT', bedrooms: 5 }));
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...first.body.data, idempotent: true });
    expect((await c.liveApi.get(`/claims/${first.body.data.id}`)).body.data.bedrooms).toBe(2);
    const sandbox = await c.sandboxApi.post('/claims', claimBody({ ...at(here), external_id: 'CLM-REPEAT' }));
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.data.id).not.toBe(first.body.data.id);
    expect(await eventsOf(c.orgId)).toHaveLength(2);
  });

  it('replays the first answer to a retry with the same Idempotency-Key, without external_id; another body is 409', async () => {
    const c = await carrier();
    const body = claimBody(at(here));
    const first = await c.liveApi.post('/claims', body, { 'Idempotency-Key': 'open-1' });
    const retry = await c.liveApi.post('/claims', body, { 'Idempotency-Key': 'open-1' });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const other = await c.liveApi.post('/claims', { ...body, bedrooms: 3 }, { 'Idempotency-Key': 'open-1' });
    expect(other.status).toBe(409);
    expect(other.body.error?.code).toBe('idempotency_key_reused');
    expect((await c.liveApi.get('/claims')).body.count).toBe(1);
  });

  it('creates one request when the same external_id arrives concurrently', async () => {
    const c = await carrier();
    const results = await Promise.all(Array.from({ length: 6 }, () => c.liveApi.post('/claims', claimBody({ ...at(here), external_id: 'CLM-RACE' }))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const [{ count }] = await ownerSql()`select count(*)::int as count from app.claims where org_id = ${c.orgId}`;
    expect(count).toBe(1);
  });

  it('answers housing_needs_collected; sourcing runs after the commit: a round with its crawl request, then housing_options_found', async () => {
    const c = await carrier();
    const origin = spot(2, 1);
    await insertHome(await provider(), { latitude: milesNorth(origin, 3).lat, longitude: origin.lng, environment: 'sandbox' });
    const res = await c.sandboxApi.post('/claims', claimBody({ ...at(origin), loss_zip: '99701' }));
    expect(res.status).toBe(201);
    expect(res.body.data.status_primary).toBe('housing_needs_collected');
    await sourced(res.body.data.id);
    expect((await c.sandboxApi.get(`/claims/${res.body.data.id}`)).body.data.status_primary).toBe('housing_options_found');
    const rounds = await ownerSql()`
      select trigger, matches_found, crawl_postcode, crawl_status, crawl_request, coordinator_email from app.sourcing_rounds where claim_id = ${res.body.data.id}`;
    expect(rounds).toEqual([{
      trigger: 'opened', matches_found: 1, crawl_postcode: '99701', crawl_status: 'recorded',
      coordinator_email: 'sandbox-coordinator@sandbox.invalid',
      crawl_request: expect.objectContaining({ reference: res.body.data.claim_ref, postcode: '99701', latitude: origin.lat, radius_miles: 25 }),
    }]);
    const events = await eventsOf(c.orgId);
    expect(events.map((e) => [e.environment, e.payload.previous_status, e.payload.status])).toEqual([
      ['sandbox', null, 'housing_needs_collected'],
      ['sandbox', 'housing_needs_collected', 'housing_options_found'],
    ]);
  });
});

describe('GET /claims', () => {
  it('lists newest first with the list-item fields, pages by cursor, filters by status and updated_since', async () => {
    const c = await carrier();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await openClaim(c.liveApi, { ...at(here), external_id: `L-${i}`, max_budget: 1000 + i }));
    const first = await c.liveApi.get('/claims?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(2);
    expect(first.body.data.map((r: any) => r.id)).toEqual([made[4].id, made[3].id]);
    expect(first.body.data[0]).toEqual({
      id: made[4].id, claim_ref: made[4].claim_ref, status_primary: 'housing_needs_collected', created_at: expect.any(String),
      updated_at: expect.any(String), loss_city: 'Austin', loss_state: 'TX', target_move_in: inDays(30), max_budget: 1004,
      bedrooms: 2, external_reference: null, api_external_id: 'L-4',
    });
    const second = await c.liveApi.get(`/claims?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((r: any) => r.id)).toEqual([made[2].id, made[1].id]);
    const last = await c.liveApi.get(`/claims?limit=2&cursor=${second.body.next_cursor}`);
    expect(last.body.data.map((r: any) => r.id)).toEqual([made[0].id]);
    expect(last.body.next_cursor).toBeNull();
    expect((await c.liveApi.get('/claims')).body.count).toBe(5);

    await ownerSql()`update app.claims set status_primary = 'options_sent' where id = ${made[1].id}`;
    const filtered = await c.liveApi.get('/claims?status=options_sent,lease_signed');
    expect(filtered.body.data.map((r: any) => r.id)).toEqual([made[1].id]);

    const [{ since }] = await ownerSql()`select clock_timestamp() as since`;
    await c.liveApi.patch(`/claims/${made[3].id}`, { external_reference: 'touched' });
    const changed = await c.liveApi.get(`/claims?updated_since=${encodeURIComponent(since.toISOString())}`);
    expect(changed.body.data.map((r: any) => r.id)).toEqual([made[3].id]);

    // Found by the caller's own reference; another organisation's or environment's is not found.
    const byExternalId = await c.liveApi.get('/claims?external_id=L-2');
    expect(byExternalId.body).toMatchObject({ count: 1, next_cursor: null, data: [{ id: made[2].id, api_external_id: 'L-2' }] });
    expect((await c.liveApi.get('/claims?external_id=L-9')).body).toMatchObject({ count: 0, data: [] });
    expect((await c.sandboxApi.get('/claims?external_id=L-2')).body.count).toBe(0);
    expect((await (await carrier()).liveApi.get('/claims?external_id=L-2')).body.count).toBe(0);
    expect((await c.liveApi.get('/claims?external_id=')).body.error).toMatchObject({ code: 'invalid_field', field: 'external_id' });
  });
});

describe('GET /claims/{reference}', () => {
  it('reads by claim_ref in any case and by id', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    for (const reference of [made.claim_ref, made.claim_ref.toLowerCase(), made.id]) {
      const res = await c.liveApi.get(`/claims/${reference}`);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(made.id);
    }
  });
});

describe('PATCH /claims/{reference}', () => {
  it('changes commercials and needs, derives occupants, and clears optional fields with null', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, { ...at(here), max_budget: 2000, adjuster_name: 'Old Name' });
    const res = await c.liveApi.patch(`/claims/${made.claim_ref}`, {
      max_budget: 2500, ale_limit: 20000, rent_payer: 'tpa', deposit_payer: 'carrier', fees_payer: 'carrier', target_move_in: inDays(40),
      est_length_months: 6, external_reference: 'EXT-9', search_radius_miles: 60, priority: 'high', household_email: 'h@example.com',
      household_phone: '5125550101', adjuster_name: null, adjuster_email: 'a@example.com', adjuster_phone: '5125550102',
      bedrooms: 3, bathrooms: 2, sqft: 1200, adults: 3, children: 2, property_type: 'house', furnishing: 'any',
      accessibility_needs: ['elevator'], amenities: ['washer'], laundry_preference: 'on_site', parking_preference: 'street',
    });
    expect(res.status).toBe(200);
    expect(res.body.placement_in_progress).toBeUndefined();
    expect(res.body.data).toMatchObject({
      id: made.id, max_budget: 2500, ale_limit: 20000, rent_payer: 'tpa', deposit_payer: 'carrier', fees_payer: 'carrier',
      target_move_in: inDays(40), est_length_months: 6, external_reference: 'EXT-9', search_radius_miles: 60, priority: 'high',
      household_email: 'h@example.com', household_phone: '5125550101', adjuster_name: null, adjuster_email: 'a@example.com',
      adjuster_phone: '5125550102', bedrooms: 3, bathrooms: 2, sqft: 1200, adults: 3, children: 2, occupants: 5, property_type: 'house',
      furnishing: 'any', accessibility_needs: ['elevator'], amenities: ['washer'], laundry_preference: 'on_site', parking_preference: 'street',
    });
    const cleared = await c.liveApi.patch(`/claims/${made.id}`, { max_budget: null, children: 0 });
    expect(cleared.body.data).toMatchObject({ max_budget: null, occupants: 3 });
    // The household's language: stored canonical, cleared with null (not stated).
    expect((await c.liveApi.patch(`/claims/${made.id}`, { household_language: 'ES' })).body.data.household_language).toBe('es');
    expect((await c.liveApi.patch(`/claims/${made.id}`, { household_language: null })).body.data.household_language).toBeNull();
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data).toMatchObject({ max_budget: null, occupants: 3, bedrooms: 3 });
  });

  it('adds pets with their detail, changes the detail, and withdrawing pets clears it', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const added = await c.liveApi.patch(`/claims/${made.id}`, { has_pets: true, number_of_pets: 1, pet_details: 'calm dog', pet_breeds: ['beagle'] });
    expect(added.body.data).toMatchObject({ has_pets: true, number_of_pets: 1, pet_details: 'calm dog', pet_breeds: ['beagle'] });
    const changed = await c.liveApi.patch(`/claims/${made.id}`, { number_of_pets: 2, pet_breeds: ['beagle', 'pug'] });
    expect(changed.body.data).toMatchObject({ has_pets: true, number_of_pets: 2, pet_details: 'calm dog', pet_breeds: ['beagle', 'pug'] });
    const withdrawn = await c.liveApi.patch(`/claims/${made.id}`, { has_pets: false });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.data).toMatchObject({ has_pets: false, number_of_pets: null, pet_details: null, pet_breeds: null });
  });

  it('carries placement_in_progress while a home has dates or a lease, and leaves those homes untouched', async () => {
    const c = await carrier();
    const elsewhere = spot(2, 2);
    const made = await openClaim(c.liveApi, at(elsewhere));
    const providerOrg = await provider();
    const placing = await insertHome(providerOrg, { latitude: elsewhere.lat, longitude: elsewhere.lng });
    const offered = await insertHome(providerOrg, { latitude: elsewhere.lat, longitude: elsewhere.lng });
    const cancelled = await insertHome(providerOrg, { latitude: elsewhere.lat, longitude: elsewhere.lng });
    // Placed with dates (the lease under way holds the calendar), only offered, and placed then cancelled.
    await ownerSql()`insert into app.carrier_billing_accounts (org_id, account_ref) values (${c.orgId}, 'acct-test')`;
    await c.liveApi.patch(`/claims/${made.id}`, { household_email: 'family@example.com', adjuster_email: 'adjuster@example.com' });
    for (const home of [placing, cancelled]) {
      expect((await c.liveApi.post(`/claims/${made.id}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
      expect((await c.liveApi.post(`/claims/${made.id}/dates`, { property_id: home, move_in: inDays(30), move_out: inDays(120) })).status).toBe(200);
    }
    expect((await c.liveApi.post(`/claims/${made.id}/options`, { property_id: offered, action: 'send', approve_budget: true })).status).toBe(200);
    await ownerSql()`update app.claim_options set option_status = 'cancelled', cancelled_at = now() where property_id = ${cancelled}`;
    const holds = () => ownerSql()`select start_date, end_date, source from app.availability_blocks where property_id = ${placing}`;
    const holdsBefore = await holds();
    const res = await c.liveApi.patch(`/claims/${made.id}`, { bedrooms: 4, target_move_in: inDays(45), max_budget: 1000 });
    expect(res.status).toBe(200);
    expect(res.body.data.bedrooms).toBe(4);
    expect(res.body.placement_in_progress).toEqual({
      note: expect.stringContaining('cancel'),
      homes: [{ property_id: placing, status: 'awaiting_lease', move_in_date: inDays(30) }],
    });
    const [home] = await ownerSql()`select lease_status, move_in_date from app.claim_options where property_id = ${placing}`;
    expect(home).toEqual({ lease_status: 'awaiting_lease', move_in_date: inDays(30) });
    expect(await holds()).toEqual(holdsBefore);
    expect(holdsBefore).toHaveLength(1);
  });
});

describe('POST /claims/batch', () => {
  it('creates every item (201) with per-item external_id idempotency, also within the batch', async () => {
    const c = await carrier();
    const existing = await openClaim(c.liveApi, { ...at(here), external_id: 'B-OLD' });
    const res = await c.liveApi.post('/claims/batch', {
      requests: [
        claimBody({ ...at(here), external_id: 'B-1' }),
        claimBody({ ...at(here), external_id: 'B-OLD' }),
        claimBody({ ...at(here) }),
        claimBody({ ...at(here), external_id: 'B-1' }),
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(4);
    expect(res.body.failed).toBe(0);
    const [one, old, anonymous, oneAgain] = res.body.results;
    expect(one).toEqual({ index: 0, external_id: 'B-1', ok: true, data: expect.objectContaining({ claim_ref: expect.stringMatching(refPattern), idempotent: false }) });
    expect(old).toEqual({ index: 1, external_id: 'B-OLD', ok: true, data: expect.objectContaining({ id: existing.id, idempotent: true }) });
    expect(anonymous).toMatchObject({ index: 2, external_id: null, ok: true, data: { idempotent: false } });
    expect(oneAgain).toMatchObject({ index: 3, external_id: 'B-1', ok: true, data: { id: one.data!.id, idempotent: true } });
    const [{ count }] = await ownerSql()`select count(*)::int as count from app.claims where org_id = ${c.orgId}`;
    expect(count).toBe(3);
    expect(await eventsOf(c.orgId)).toHaveLength(3);
  });

  it('answers housing_needs_collected for every item; one job sources the batch after the commit', async () => {
    const c = await carrier();
    const origin = spot(2, 3);
    await insertHome(await provider(), { latitude: origin.lat, longitude: origin.lng });
    const res = await c.liveApi.post('/claims/batch', {
      requests: [claimBody({ ...at(origin), external_id: 'S-1' }), claimBody(at(origin)), claimBody(at(here))],
    });
    expect(res.status).toBe(201);
    expect(res.body.results.map((r: any) => r.data.status_primary)).toEqual(Array(3).fill('housing_needs_collected'));
    const ids: string[] = res.body.results.map((r: any) => r.data.id);
    const jobs = await ownerSql()`select payload from app.jobs where org_id = ${c.orgId} and kind = 'source_new_requests'`;
    expect(jobs).toEqual([{ payload: { request_ids: expect.arrayContaining(ids) } }]);
    await sourced(...ids);
    const statuses = await Promise.all(ids.map(async (id) => (await c.liveApi.get(`/claims/${id}`)).body.data.status_primary));
    expect(statuses).toEqual(['housing_options_found', 'housing_options_found', 'housing_needs_collected']);
    const moves = (await eventsOf(c.orgId)).filter((e) => e.payload.previous_status !== null);
    expect(moves.map((e) => e.payload.request_id).sort()).toEqual(ids.slice(0, 2).sort());
  });

  it('lets concurrent batches naming the same external_ids in opposite orders both succeed, one request per id', async () => {
    const c = await carrier();
    for (let round = 0; round < 4; round++) {
      const items = Array.from({ length: 50 }, (_, i) => claimBody({ ...at(here), external_id: `R${round}-${i}` }));
      const [forward, backward] = await Promise.all([
        c.liveApi.post('/claims/batch', { requests: items }),
        c.liveApi.post('/claims/batch', { requests: [...items].reverse() }),
      ]);
      expect([forward.status, backward.status]).toEqual([201, 201]);
      const ids = (res: typeof forward) => new Map(res.body.results.map((r: any) => [r.external_id, r.data.id]));
      expect(ids(backward)).toEqual(ids(forward));
    }
    const [{ count }] = await ownerSql()`select count(*)::int as count from app.claims where org_id = ${c.orgId}`;
    expect(count).toBe(200);
  });

  it('answers 207 when some items fail; the others are created', async () => {
    const c = await carrier();
    const res = await c.liveApi.post('/claims/batch', {
      requests: [claimBody({ ...at(here), external_id: ' M-1 ' }), claimBody({ external_id: 'M-2', bedrooms: 'two' }), claimBody({ ...at(here), loss_zip: '1234' }), 'not an object'],
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ created: 1, failed: 3 });
    // The external_id as stored (trimmed), the one a later repeat is matched against.
    expect(res.body.results[0]).toMatchObject({ index: 0, external_id: 'M-1', ok: true });
    expect(res.body.results[1]).toEqual({ index: 1, external_id: 'M-2', ok: false, error: { code: 'invalid_field', message: expect.any(String), field: 'bedrooms', doc_url: expect.stringMatching(/#error-invalid_field$/) } });
    expect(res.body.results[2]).toMatchObject({ index: 2, ok: false, error: { code: 'invalid_field', field: 'loss_zip' } });
    // An item refused as a whole names no field (`body` would mean the whole request).
    expect(res.body.results[3]).toEqual({ index: 3, external_id: null, ok: false, error: { code: 'invalid_field', message: expect.stringMatching(/^The item: /), doc_url: expect.stringMatching(/#error-invalid_field$/) } });
    expect((await c.liveApi.get('/claims')).body.count).toBe(1);
  });

  it('answers 400 invalid_json for a body that is not JSON, and creates nothing', async () => {
    const c = await carrier();
    const res = await call('POST', '/claims/batch', { key: c.live, body: '{"requests": [', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_json');
    expect((await c.liveApi.get('/claims')).body.count).toBe(0);
  });

  it('answers 422 with the batch result when every item fails', async () => {
    const c = await carrier();
    const res = await c.liveApi.post('/claims/batch', { requests: [{ external_id: 'F-1' }, claimBody({ furnishing: 'gilded' })] });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['created', 'failed', 'results']);
    expect(res.body).toMatchObject({ created: 0, failed: 2 });
    expect(res.body.results.map((r: any) => [r.index, r.external_id, r.error.field])).toEqual([[0, 'F-1', 'loss_address'], [1, null, 'furnishing']]);
  });
});
