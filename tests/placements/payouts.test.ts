import { describe, expect, it } from 'vitest';
import { carrier, inDays, openClaim } from '../claims/fixtures.ts';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { completeHome } from '../properties/fixtures.ts';

const canTakeCharges = async (orgId: string, env: string) =>
  (await ownerSql()`select app.can_take_charges(${orgId}, ${env}) as ok`)[0].ok;

describe('POST /sandbox/payouts', () => {
  it('turning charges off makes the provider unplaceable in sandbox; turning them on again restores it', async () => {
    const tenant = await createTenant('provider');
    const api = client(tenant.sandbox);
    expect(await canTakeCharges(tenant.orgId, 'sandbox')).toBe(true);

    const off = await api.post('/sandbox/payouts', { charges_enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ environment: 'sandbox', connected: true, charges_enabled: false, payouts_enabled: true, onboarding_status: 'pending', finish_setup_url: expect.any(String) });
    expect(await canTakeCharges(tenant.orgId, 'sandbox')).toBe(false);
    expect((await api.get('/properties/payouts')).body.data).toEqual(off.body.data);

    const on = await api.post('/sandbox/payouts', { charges_enabled: true });
    expect(on.body.data).toMatchObject({ charges_enabled: true, onboarding_status: 'complete', finish_setup_url: null });
    expect(await canTakeCharges(tenant.orgId, 'sandbox')).toBe(true);
  });

  it("with charges off a sandbox request no longer matches the provider's homes; with charges on again it does", async () => {
    // Queenstown, New Zealand: no other suite puts homes or requests there.
    const point = { latitude: -45.0312, longitude: 168.6626 };
    const tenant = await createTenant('provider');
    const api = client(tenant.sandbox);
    const home = (await api.post('/properties', completeHome({ ...point, available_from: inDays(0) }))).body.data;
    expect(home).toMatchObject({ test_data: true, verified: true });
    const c = await carrier();
    const claim = await openClaim(c.sandboxApi, { loss_lat: point.latitude, loss_lng: point.longitude });
    const matched = async () => (await c.sandboxApi.get(`/claims/${claim.id}/matches`)).body.data.map((m: any) => m.property_id);

    expect(await matched()).toContain(home.id);
    await api.post('/sandbox/payouts', { charges_enabled: false });
    expect(await matched()).not.toContain(home.id);
    await api.post('/sandbox/payouts', { charges_enabled: true });
    expect(await matched()).toContain(home.id);
  });

  it('disconnecting turns charges and payouts off; reconnecting with both completes setup', async () => {
    const tenant = await createTenant('provider');
    const api = client(tenant.sandbox);
    const off = await api.post('/sandbox/payouts', { connected: false });
    expect(off.body.data).toMatchObject({ connected: false, charges_enabled: false, payouts_enabled: false, onboarding_status: 'not_started', bank_account_last4: null });
    const on = await api.post('/sandbox/payouts', { connected: true, charges_enabled: true, payouts_enabled: true });
    expect(on.body.data).toMatchObject({ connected: true, charges_enabled: true, payouts_enabled: true, onboarding_status: 'complete', bank_account_last4: '6789' });
  });

  it('changes only the sandbox account: the live account stays not connected', async () => {
    const tenant = await createTenant('provider');
    await client(tenant.sandbox).post('/sandbox/payouts', { charges_enabled: false });
    expect((await client(tenant.live).get('/properties/payouts')).body.data.connected).toBe(false);
    expect(await canTakeCharges(tenant.orgId, 'live')).toBe(false);
  });

  // The security matrix sends a valid body; this one is invalid, so the refusal must come first.
  it('a live key learns sandbox_only before anything about its body, and its account is untouched', async () => {
    const tenant = await createTenant('provider');
    const res = await client(tenant.live).post('/sandbox/payouts', { charges_enabled: 'yes', unknown: 1 });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('sandbox_only');
    expect(await canTakeCharges(tenant.orgId, 'live')).toBe(false);
  });

  it('concurrent changes to a new account all apply: none is computed from a stale starting state', async () => {
    for (let round = 0; round < 5; round++) {
      const tenant = await createTenant('provider');
      const api = client(tenant.sandbox);
      await Promise.all([api.post('/sandbox/payouts', { charges_enabled: false }), api.post('/sandbox/payouts', { payouts_enabled: false })]);
      expect((await api.get('/properties/payouts')).body.data).toMatchObject({ connected: true, charges_enabled: false, payouts_enabled: false });
    }
  });

  it('an empty body answers the current status', async () => {
    const tenant = await createTenant('provider');
    const res = await client(tenant.sandbox).post('/sandbox/payouts', {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ connected: true, charges_enabled: true });
  });

  it.each([
    [{ connected: 'yes' }, 'connected'],
    [{ connected: false, charges_enabled: true }, 'charges_enabled'],
    [{ bank_account_last4: '1234' }, 'bank_account_last4'],
  ])('refuses %j (422 on %s)', async (body, field) => {
    const tenant = await createTenant('provider');
    const res = await client(tenant.sandbox).post('/sandbox/payouts', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  });

  it("one provider's change never touches another's account", async () => {
    const a = await createTenant('provider');
    const b = await createTenant('provider');
    await client(a.sandbox).post('/sandbox/payouts', { charges_enabled: false });
    expect((await client(b.sandbox).get('/properties/payouts')).body.data.charges_enabled).toBe(true);
    expect(await canTakeCharges(b.orgId, 'sandbox')).toBe(true);
  });
});
