import { describe, expect, it } from 'vitest';
import { createOrg, ownerSql } from '../helpers.ts';
import { at, blockHome, carrier, eventsOf, inDays, insertHome, milesNorth, openClaim, provider, spot } from './fixtures.ts';

// Each test works around its own point of the grid (row 0), so it sees only the homes it made.

const matchIds = async (api: Awaited<ReturnType<typeof carrier>>['liveApi'], reference: string) => {
  const res = await api.get(`/claims/${reference}/matches`);
  expect(res.status).toBe(200);
  return res.body.data.map((m: any) => m.property_id);
};

describe('GET /claims/{reference}/matches', () => {
  it('returns the contract fields, best first, with count', async () => {
    const origin = spot(0, 0);
    const c = await carrier();
    const home = await insertHome(await provider(), { ...pointOf(milesNorth(origin, 2)), name: 'Birch House', monthly_rate_cents: 245050 });
    const made = await openClaim(c.liveApi, at(origin));
    const res = await c.liveApi.get(`/claims/${made.claim_ref}/matches`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(res.body.data[0]).toEqual({
      property_id: home, name: 'Birch House', city: 'Austin', state: 'TX', zip_code: '78701', monthly_rate: 2450.5, currency: 'usd',
      distance_miles: 2, score: expect.any(Number), score_parts: expect.objectContaining({ distance: expect.any(Number) }),
    });
    const parts = res.body.data[0].score_parts;
    expect(Object.values(parts).reduce((a: number, b: any) => a + b, 0)).toBeCloseTo(res.body.data[0].score, 0);
  });

  it('keeps live requests to real homes; sandbox requests see real and test homes', async () => {
    const origin = spot(0, 1);
    const c = await carrier();
    const providerOrg = await provider();
    const real = await insertHome(providerOrg, { ...pointOf(origin), environment: 'live' });
    const test = await insertHome(providerOrg, { ...pointOf(origin), environment: 'sandbox' });
    const live = await openClaim(c.liveApi, at(origin));
    const sandbox = await openClaim(c.sandboxApi, at(origin));
    expect(await matchIds(c.liveApi, live.id)).toEqual([real]);
    expect((await matchIds(c.sandboxApi, sandbox.id)).sort()).toEqual([real, test].sort());
  });

  it('matches within the search radius only, and a changed radius applies at once', async () => {
    const origin = spot(0, 2);
    const c = await carrier();
    const providerOrg = await provider();
    const near = await insertHome(providerOrg, pointOf(milesNorth(origin, 10)));
    const far = await insertHome(providerOrg, pointOf(milesNorth(origin, 30)));
    const made = await openClaim(c.liveApi, at(origin));
    const res = await c.liveApi.get(`/claims/${made.id}/matches`);
    expect(res.body.data.map((m: any) => [m.property_id, m.distance_miles])).toEqual([[near, 10]]);
    await c.liveApi.patch(`/claims/${made.id}`, { search_radius_miles: 40 });
    expect(await matchIds(c.liveApi, made.id)).toEqual([near, far]);
    await c.liveApi.patch(`/claims/${made.id}`, { search_radius_miles: 5 });
    expect(await matchIds(c.liveApi, made.id)).toEqual([]);
  });

  it('offers only verified homes not marked unavailable, available and free on the move-in, whose provider takes charges', async () => {
    const origin = spot(0, 3);
    const moveIn = inDays(30);
    const c = await carrier();
    const providerOrg = await provider();
    const point = pointOf(origin);
    const good = await insertHome(providerOrg, point);
    const pending = await insertHome(providerOrg, { ...point, status: 'pending' });
    const unavailable = await insertHome(providerOrg, { ...point, status: 'unavailable' });
    const later = await insertHome(providerOrg, { ...point, available_from: inDays(31) });
    const blocked = await insertHome(providerOrg, point);
    await blockHome(blocked, 'live', inDays(25), moveIn);
    const blockedBefore = await insertHome(providerOrg, point);
    await blockHome(blockedBefore, 'live', inDays(20), inDays(29));
    const heldInSandbox = await insertHome(providerOrg, point);
    await blockHome(heldInSandbox, 'sandbox', moveIn, inDays(60));
    const unverified = await insertHome(providerOrg, point);
    await ownerSql()`update app.properties set description = null where id = ${unverified}`;
    const noCharges = await insertHome(await createOrg('provider'), point);

    const live = await openClaim(c.liveApi, { ...at(origin), target_move_in: moveIn });
    expect((await matchIds(c.liveApi, live.id)).sort()).toEqual([good, pending, blockedBefore, heldInSandbox].sort());
    expect(await matchIds(c.liveApi, live.id)).not.toContain(unavailable);
    expect(await matchIds(c.liveApi, live.id)).not.toContain(later);
    expect(await matchIds(c.liveApi, live.id)).not.toContain(noCharges);
    expect(await matchIds(c.liveApi, live.id)).not.toContain(unverified);
    expect(await matchIds(c.liveApi, live.id)).not.toContain(blocked);

    // A sandbox request reads the sandbox calendar and the provider's sandbox payout account
    // (connected by default): the sandbox hold counts, the live block and the live account do not.
    const sandbox = await openClaim(c.sandboxApi, { ...at(origin), target_move_in: moveIn });
    const forSandbox = await matchIds(c.sandboxApi, sandbox.id);
    expect(forSandbox).toEqual(expect.arrayContaining([good, blocked, noCharges]));
    expect(forSandbox).not.toContain(heldInSandbox);

    // A later move-in date clears the block and the availability date.
    await c.liveApi.patch(`/claims/${live.id}`, { target_move_in: inDays(45) });
    const afterChange = await matchIds(c.liveApi, live.id);
    expect(afterChange).toEqual(expect.arrayContaining([blocked, later]));
  });

  it("measures from the loss ZIP's centroid without coordinates, and locates homes without coordinates by their ZIP", async () => {
    const c = await carrier();
    const providerOrg = await provider();
    // Akutan, AK 99553: centroid 54.143, -165.7854 (GeoNames); no other suite puts homes there.
    const byZip = await insertHome(providerOrg, { latitude: null, longitude: null, zip_code: '99553' });
    const byCoordinates = await insertHome(providerOrg, pointOf(milesNorth({ lat: 54.143, lng: -165.7854 }, 5)));
    const made = await openClaim(c.liveApi, { loss_city: 'Akutan', loss_state: 'AK', loss_zip: '99553' });
    const res = await c.liveApi.get(`/claims/${made.id}/matches`);
    expect(res.body.data.map((m: any) => [m.property_id, m.distance_miles])).toEqual([[byZip, 0], [byCoordinates, 5]]);
  });

  it('ranks by the score: size, furnishing, pets and budget fit outweigh a few miles', async () => {
    const origin = spot(0, 4);
    const c = await carrier();
    const providerOrg = await provider();
    const tooSmallButClose = await insertHome(providerOrg, { ...pointOf(origin), bedrooms: 1 });
    const noPets = await insertHome(providerOrg, { ...pointOf(milesNorth(origin, 1)), bedrooms: 2, pet_policy: 'No pets allowed.' });
    const overBudget = await insertHome(providerOrg, { ...pointOf(milesNorth(origin, 2)), bedrooms: 2, monthly_rate_cents: 300000 });
    const fits = await insertHome(providerOrg, { ...pointOf(milesNorth(origin, 5)), bedrooms: 2, amenities: ['wifi', 'Wheelchair accessible'] });
    const made = await openClaim(c.liveApi, {
      ...at(origin), bedrooms: 2, max_budget: 2500, accessibility_needs: ['wheelchair_accessible'],
      has_pets: true, number_of_pets: 1, pet_details: 'a cat', pet_breeds: ['tabby'],
    });
    const res = await c.liveApi.get(`/claims/${made.id}/matches`);
    expect(res.body.data.map((m: any) => m.property_id)).toEqual([fits, overBudget, noPets, tooSmallButClose]);
    const byId = Object.fromEntries(res.body.data.map((m: any) => [m.property_id, m.score_parts]));
    expect(byId[tooSmallButClose].bedrooms).toBe(0);
    expect(byId[noPets].pets).toBe(0);
    expect(byId[overBudget].budget).toBe(6);
    expect(byId[fits].accessibility).toBe(10);
    const scores = res.body.data.map((m: any) => m.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('applies changed household needs to the next matching at once', async () => {
    const origin = spot(0, 5);
    const c = await carrier();
    const providerOrg = await provider();
    const twoBed = await insertHome(providerOrg, { ...pointOf(origin), bedrooms: 2, furnished_status: 'furnished' });
    const fourBed = await insertHome(providerOrg, { ...pointOf(milesNorth(origin, 3)), bedrooms: 4, furnished_status: 'unfurnished', sqft: 1800 });
    const made = await openClaim(c.liveApi, { ...at(origin), bedrooms: 2, furnishing: 'furnished' });
    expect(await matchIds(c.liveApi, made.id)).toEqual([twoBed, fourBed]);
    await c.liveApi.patch(`/claims/${made.id}`, { bedrooms: 4, sqft: 1700, furnishing: 'unfurnished', adults: 5 });
    expect(await matchIds(c.liveApi, made.id)).toEqual([fourBed, twoBed]);
  });

  it('honours limit, best first', async () => {
    const origin = spot(0, 6);
    const c = await carrier();
    const providerOrg = await provider();
    const homes = [];
    for (let miles = 1; miles <= 4; miles++) homes.push(await insertHome(providerOrg, pointOf(milesNorth(origin, miles))));
    const made = await openClaim(c.liveApi, at(origin));
    const res = await c.liveApi.get(`/claims/${made.id}/matches?limit=2`);
    expect(res.body.data.map((m: any) => m.property_id)).toEqual(homes.slice(0, 2));
    expect(res.body.count).toBe(2);
    const invalid = await c.liveApi.get(`/claims/${made.id}/matches?limit=0`);
    expect(invalid.status).toBe(422);
    expect(invalid.body.error?.field).toBe('limit');
  });

  it('moves a fresh request to housing_options_found when matching first finds homes, once', async () => {
    const origin = spot(0, 7);
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(origin));
    expect(made.status_primary).toBe('housing_needs_collected');
    expect(await matchIds(c.liveApi, made.id)).toEqual([]);
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.status_primary).toBe('housing_needs_collected');

    await insertHome(await provider(), pointOf(origin));
    await matchIds(c.liveApi, made.id);
    await matchIds(c.liveApi, made.id);
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.status_primary).toBe('housing_options_found');
    expect((await eventsOf(c.orgId)).map((e) => e.payload)).toEqual([
      expect.objectContaining({ status: 'housing_needs_collected', previous_status: null }),
      { request_id: made.id, reference: made.claim_ref, external_id: null, status: 'housing_options_found', previous_status: 'housing_needs_collected' },
    ]);
  });

  it('moves a fresh request on when an amendment brings homes into reach', async () => {
    const origin = spot(0, 8);
    const c = await carrier();
    await insertHome(await provider(), pointOf(milesNorth(origin, 35)));
    const made = await openClaim(c.liveApi, at(origin));
    expect(made.status_primary).toBe('housing_needs_collected');
    const res = await c.liveApi.patch(`/claims/${made.id}`, { search_radius_miles: 50 });
    expect(res.body.data.status_primary).toBe('housing_options_found');
  });

  it('never moves a request that is further along back', async () => {
    const origin = spot(0, 9);
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(origin));
    await ownerSql()`update app.claims set status_primary = 'lease_execution' where id = ${made.id}`;
    await insertHome(await provider(), pointOf(origin));
    expect(await matchIds(c.liveApi, made.id)).toHaveLength(1);
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.status_primary).toBe('lease_execution');
  });
});

function pointOf(point: { lat: number; lng: number }) {
  return { latitude: point.lat, longitude: point.lng };
}

