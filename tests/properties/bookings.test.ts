import { describe, expect, it } from 'vitest';
import { client, createKey, createTenant } from '../helpers.ts';
import { splitCharge } from '../../shared/properties/earnings.ts';
import { completeHome, insertBooking, insertPayment } from './fixtures.ts';

async function providerWithHome(key: 'live' | 'sandbox' = 'live') {
  const tenant = await createTenant('provider');
  const home = (await client(tenant[key]).post('/properties', completeHome({ external_id: 'BK-1', name: 'Cedar 1' }))).body.data;
  return { tenant, home };
}

describe('GET /properties/bookings', () => {
  it('lists bookings with every field and the earnings of each settled charge', async () => {
    const { tenant, home } = await providerWithHome();
    const bookingId = await insertBooking({ orgId: tenant.orgId, environment: 'live', propertyId: home.id, checkIn: '2026-12-01', checkOut: '2027-03-01' });
    // First charge: rent 2,450 + deposit 1,500 + pet fee 250.
    const split = splitCharge({ rentCents: 245000, depositCents: 150000, feesCents: 25000 });
    const paymentId = await insertPayment({
      orgId: tenant.orgId, environment: 'live', propertyId: home.id, bookingId,
      rentCents: 245000, depositCents: 150000, feesCents: 25000,
      platformFeeCents: split.platformFeeCents, processingFeeCents: split.processingFeeCents, paidAt: '2026-11-25T10:00:00Z',
    });
    await insertPayment({ orgId: tenant.orgId, environment: 'live', propertyId: home.id, bookingId, status: 'failed', rentCents: 245000, platformFeeCents: 0, processingFeeCents: 0 });

    const res = await client(tenant.live).get('/properties/bookings');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 1, next_cursor: null });
    expect(res.body.data[0]).toEqual({
      id: bookingId,
      property_id: home.id,
      property: { name: 'Cedar 1', api_external_id: 'BK-1' },
      booking_status: 'confirmed',
      check_in: '2026-12-01',
      check_out: '2027-03-01',
      move_in_confirmed_at: null,
      cancelled_at: null,
      completed_at: null,
      created_at: expect.any(String),
      payments: [
        {
          id: paymentId,
          charge_type: 'initial',
          status: 'succeeded',
          gross: 4200,
          platform_fee: 196,
          processing_fee: 122.1,
          net_to_you: 3881.9,
          currency: 'usd',
          paid_at: '2026-11-25T10:00:00.000Z',
        },
      ],
    });
  });

  it('pages newest first and shows cancelled bookings', async () => {
    const { tenant, home } = await providerWithHome();
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await insertBooking({ orgId: tenant.orgId, environment: 'live', propertyId: home.id, createdAt: `2026-11-0${i + 1}T00:00:00Z`, status: i === 0 ? 'cancelled' : 'confirmed' }));
    }
    const api = client(tenant.live);
    const first = await api.get('/properties/bookings?limit=2');
    expect(first.body.data.map((b: any) => b.id)).toEqual([ids[2], ids[1]]);
    const second = await api.get(`/properties/bookings?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ count: 1, next_cursor: null });
    expect(second.body.data[0]).toMatchObject({ id: ids[0], booking_status: 'cancelled', cancelled_at: expect.any(String), payments: [] });
  });

  it('a sandbox booking of a real home shows to the sandbox key, with the home named, and never to the live key', async () => {
    const { tenant, home } = await providerWithHome('live');
    const bookingId = await insertBooking({ orgId: tenant.orgId, environment: 'sandbox', propertyId: home.id });
    const sandbox = await client(tenant.sandbox).get('/properties/bookings');
    expect(sandbox.body.data).toHaveLength(1);
    expect(sandbox.body.data[0]).toMatchObject({ id: bookingId, property: { name: 'Cedar 1', api_external_id: 'BK-1' } });
    expect((await client(tenant.live).get('/properties/bookings')).body.data).toEqual([]);
  });

  it('refuses a bad cursor or limit', async () => {
    const { tenant } = await providerWithHome();
    const api = client(tenant.live);
    expect((await api.get('/properties/bookings?cursor=zzz')).body.error).toMatchObject({ code: 'invalid_field', field: 'cursor' });
    expect((await api.get('/properties/bookings?limit=500')).body.error).toMatchObject({ code: 'invalid_field', field: 'limit' });
  });
});

describe('GET /properties/payouts', () => {
  it('a live account starts not connected, with a finish_setup_url', async () => {
    const tenant = await createTenant('provider');
    const res = await client(tenant.live).get('/properties/payouts');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      environment: 'live', connected: false, onboarding_status: 'not_started', charges_enabled: false, payouts_enabled: false,
      bank_account_last4: null, finish_setup_url: expect.stringMatching(/\/functions\/v1\/pay\/setup\/[\w-]+\.[\w-]+\.[\w-]+$/),
    });
  });

  it('a payouts:read key reads the state without the setup link, whose page starts onboarding; properties:write gets the link', async () => {
    const tenant = await createTenant('provider');
    const readOnly = client((await createKey(tenant.orgId, 'live', { scopes: ['payouts:read'] })).key);
    const read = await readOnly.get('/properties/payouts');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ environment: 'live', connected: false, onboarding_status: 'not_started', finish_setup_url: null });
    const sandboxRead = client((await createKey(tenant.orgId, 'sandbox', { scopes: ['payouts:read'] })).key);
    expect((await sandboxRead.get('/properties/payouts')).body.data).toMatchObject({ environment: 'sandbox', finish_setup_url: null });

    const writer = client((await createKey(tenant.orgId, 'live', { scopes: ['payouts:read', 'properties:write'] })).key);
    expect((await writer.get('/properties/payouts')).body.data.finish_setup_url).toMatch(/\/functions\/v1\/pay\/setup\/[\w-]+\.[\w-]+\.[\w-]+$/);
    // The write scope alone does not read the account: the route stays payouts:read.
    const writeOnly = client((await createKey(tenant.orgId, 'live', { scopes: ['properties:write'] })).key);
    expect((await writeOnly.get('/properties/payouts')).status).toBe(403);
  });

  it('a sandbox account starts connected with charges and payouts enabled', async () => {
    const tenant = await createTenant('provider');
    const res = await client(tenant.sandbox).get('/properties/payouts');
    expect(res.body.data).toMatchObject({
      environment: 'sandbox', connected: true, onboarding_status: 'complete', charges_enabled: true, payouts_enabled: true,
      bank_account_last4: '6789', finish_setup_url: null,
    });
  });
});
