// Whether matching offers a home, and why not: a complete, verified live home whose provider's payout
// account cannot take charges is listed and verified, yet matching leaves it out. The home and the
// readiness read say so, instead of showing nothing in the way.
import { describe, expect, it } from 'vitest';
import { carrier, inDays, openClaim } from '../claims/fixtures.ts';
import { client, createTenant } from '../helpers.ts';
import { completeHome } from './fixtures.ts';
import { connectLivePayouts } from '../placements/fixtures.ts';

describe('a home matching cannot offer', () => {
  it('a live home whose payout account cannot take charges says why, and readiness names the payout account as its blocker', async () => {
    // Tromsø, Norway: no other suite puts homes or requests there.
    const point = { latitude: 69.6492, longitude: 18.9553 };
    const tenant = await createTenant('provider');
    const api = client(tenant.live);
    const home = (await api.post('/properties', completeHome({ ...point, available_from: inDays(0) }))).body.data;
    const read = (await api.get(`/properties/${home.id}`)).body.data;
    expect(read).toMatchObject({ listed: true, verified: true, missing_fields: [], offered: false, not_offered_because: ['charges_disabled'] });

    const readiness = (await api.get('/properties/readiness')).body.data;
    expect(readiness).toMatchObject({ total: 1, listed: 1, not_listed: 0, offered: 0, not_offered: 1, blockers: [{ field: 'payout_account', homes: 1 }] });
    expect(readiness.examples).toEqual([
      { property_id: home.id, external_id: null, name: home.name ?? read.name, missing_fields: [], not_offered_because: ['charges_disabled'] },
    ]);
    const c = await carrier();
    const claim = await openClaim(c.liveApi, { loss_lat: point.latitude, loss_lng: point.longitude });
    const matched = async () => (await c.liveApi.get(`/claims/${claim.id}/matches`)).body.data.map((m: any) => m.property_id);
    expect(await matched()).not.toContain(home.id);

    // The operator connects the payout account for local live testing: the home is offered and matched.
    await connectLivePayouts(tenant.orgId);
    expect((await api.get(`/properties/${home.id}`)).body.data).toMatchObject({ offered: true, not_offered_because: [] });
    expect((await api.get('/properties/readiness')).body.data).toMatchObject({ offered: 1, not_offered: 0, blockers: [], examples: [] });
    expect(await matched()).toContain(home.id);
  });

  it('a home marked unavailable or with an incomplete listing says so too', async () => {
    const api = client((await createTenant('provider')).sandbox);
    const unavailable = (await api.post('/properties', completeHome({ status: 'unavailable' }))).body.data;
    const incomplete = (await api.post('/properties', completeHome({ pet_fee: null }))).body.data;
    expect((await api.get(`/properties/${unavailable.id}`)).body.data).toMatchObject({ offered: false, not_offered_because: ['unavailable'] });
    expect((await api.get(`/properties/${incomplete.id}`)).body.data).toMatchObject({ offered: false, not_offered_because: ['listing_incomplete'] });
    expect((await api.get('/properties/readiness')).body.data).toMatchObject({ total: 2, listed: 1, offered: 0, not_offered: 2 });
  });
});

describe('payout connect (operator console)', () => {
  it('is refused unless the settings say local live testing, and always with a live-mode processor key', async () => {
    const { consoleCommand } = await import('../helpers.ts');
    const tenant = await createTenant('provider');
    const saved = { testing: process.env.LOCAL_LIVE_TESTING, stripe: process.env.STRIPE_SECRET_KEY };
    try {
      delete process.env.LOCAL_LIVE_TESTING;
      await expect(consoleCommand('payout', 'connect', '--org', tenant.orgId)).rejects.toMatchObject({ code: 'production_settings' });
      process.env.LOCAL_LIVE_TESTING = 'true';
      process.env.STRIPE_SECRET_KEY = 'sk_live_0000';
      await expect(consoleCommand('payout', 'connect', '--org', tenant.orgId)).rejects.toMatchObject({ code: 'production_settings', message: expect.stringContaining('STRIPE_SECRET_KEY') });
    } finally {
      for (const [name, value] of [['LOCAL_LIVE_TESTING', saved.testing], ['STRIPE_SECRET_KEY', saved.stripe]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect((await client(tenant.live).get('/properties/payouts')).body.data).toMatchObject({ connected: false, charges_enabled: false });
    const connected = await connectLivePayouts(tenant.orgId);
    expect(connected.data).toMatchObject({ environment: 'live', connected: true, charges_enabled: true, payouts_enabled: true, onboarding_status: 'complete' });
    expect((await client(tenant.live).get('/properties/payouts')).body.data).toMatchObject({ connected: true, charges_enabled: true, finish_setup_url: null });
  });
});
