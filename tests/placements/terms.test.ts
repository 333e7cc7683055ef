// What was signed is what is charged: a contract version freezes the terms it was issued with, and
// every payment of it is priced from them, whatever the provider changes on the home afterwards.
import { describe, expect, it } from 'vitest';
import { client, createKey, ownerSql } from '../helpers.ts';
import { signedLease } from './payment-fixtures.ts';
import { clockAt, drainJobs, inDays, placeWithDates, scene } from './fixtures.ts';

type Signed = Awaited<ReturnType<typeof signedLease>>;

/** A signed sandbox placement on a sandbox home, so that the provider's sandbox key can edit it. */
const signed = () => signedLease('sandbox', { home: { environment: 'sandbox' } });

/** Pays what is due now through the sandbox payer, and answers the charge recorded. */
async function pay(s: Signed) {
  const res = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
  expect(res.status).toBe(200);
  const [payment] = res.body.data.payments;
  return { amount: payment.amount, platform_fee: payment.platform_fee };
}

describe('terms frozen at issue', () => {
  it('two identical signed placements charge the same after one provider raises its rates, fees and deposit', async () => {
    const [kept, changed] = [await signed(), await signed()];
    const before = (await changed.api.get(`/claims/${changed.ref}/placement`)).body.data.homes[0].lease!;
    expect(before.terms).toMatchObject({
      currency: 'usd', monthly_rate: 2500, security_deposit: 1500, household_has_pets: false, address: expect.any(String), city: 'Austin',
      // The budget review's figures for the version's dates, frozen with it.
      stay: { months: 3, tier_applied: 'monthly_rate', first_payment: 2500 + 1500, deposits: 1500, rent_over_stay: expect.any(Number) },
    });

    const patched = await changed.providerApi.patch(`/properties/${changed.home}`, {
      monthly_rate: 4800, rent_1_3_months: 4200, rent_4_6_months: 4200, security_deposit: 9000, cleaning_fee: 500,
    });
    expect(patched.status).toBe(200);

    const [a, b] = [await pay(kept), await pay(changed)];
    expect(b).toEqual(a);
    // The lease still shows the terms it was signed on, not the home's new rates.
    const after = (await changed.api.get(`/claims/${changed.ref}/placement`)).body.data.homes[0].lease!;
    expect(after.terms).toEqual(before.terms);
  });

  it('a change of the request\'s pets after signing, or the home unlisted, does not change or stop the signed stay\'s charge', async () => {
    const [kept, changed] = [await signed(), await signed()];
    expect((await changed.api.patch(`/claims/${changed.ref}`, {
      has_pets: true, number_of_pets: 1, pet_details: 'one calm dog', pet_breeds: ['beagle'],
    })).status).toBe(200);
    expect((await changed.providerApi.patch(`/properties/${changed.home}`, { status: 'unavailable' })).status).toBe(200);
    expect(await pay(changed)).toEqual(await pay(kept));
  });

  it('the terms of a version never change once written', async () => {
    const s = await signed();
    await expect(ownerSql()`update app.lease_agreements set terms = '{}'::jsonb where id = ${s.lease.id}`).rejects.toThrow(/never change/);
  });
});

describe('shortening after move-in', () => {
  it('keeps the signed lease and the signed price of the nights kept: a shorter stay owes nothing more, even in a dearer tier', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    await ownerSql()`update app.properties set rent_1_3_months_cents = 240000, rent_4_6_months_cents = 220000 where id = ${s.home}`;
    const lease = await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(160));
    await drainJobs(s.c.orgId);
    for (const [who, action] of [['household', 'sign'], ['landlord', 'sign']] as const) {
      expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/${who}`, { action })).status).toBe(200);
    }
    const paid = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    expect(paid.body.data.payments[0].amount).toBe(2200 + 1500);
    await clockAt(s.api, lease.move_in_date);
    expect((await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home })).status).toBe(200);
    // A later rate change on the home must not matter: the paid month is priced again from the signed terms.
    await ownerSql()`update app.properties set rent_1_3_months_cents = 990000 where id = ${s.home}`;

    const shorter = inDays(110);
    const res = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: lease.move_in_date, move_out: shorter });
    expect(res.status).toBe(200);
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home.lease).toMatchObject({ id: lease.id, move_out_date: lease.move_out_date, shortened_move_out_date: shorter, status: 'fully_signed' });
    const entry = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.find((e) => e.type === 'dates.changed');
    // Four months at the 4-6 month rate became a stay of under three: every night kept keeps the price it was signed at
    // (the ledger releases the nights given back, never prices the kept ones again), and nothing paid was given back.
    expect(entry?.detail).toMatchObject({ shortened: true, refund_due: 0, currency: 'usd', move_out_date: shorter });
    expect(entry?.summary).not.toContain('more is due');
    // The review shows what the checkout charges: the signed 4-6 month rate, not the home's raised rates.
    const review = (await s.api.get(`/claims/${s.ref}/options/${s.home}/budget`)).body.data;
    expect(review).toMatchObject({ basis: 'signed_terms', lease_id: lease.id, monthly: { tier_applied: 'rent_4_6_months', rent_tier: 2200 } });
  });
});

describe('the budget review of a signed stay', () => {
  const cents = (amount: number) => Math.round(amount * 100);
  const review = async (s: Pick<Signed, 'api' | 'ref' | 'home'>) => {
    const res = await s.api.get(`/claims/${s.ref}/options/${s.home}/budget`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const raise = async (s: Pick<Signed, 'providerApi' | 'home'>) => {
    const res = await s.providerApi.patch(`/properties/${s.home}`, {
      monthly_rate: 6000, rent_1_3_months: 6000, rent_4_6_months: 6000, security_deposit: 9000,
    });
    expect(res.status).toBe(200);
  };

  it('shows the signed terms after a rate rise: the tier, the totals and the first payment the checkout charges', async () => {
    const s = await signedLease('sandbox', { home: { environment: 'sandbox', monthly_rate_cents: 300000 } });
    const terms = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].lease!.terms!;
    await raise(s);

    const after = await review(s);
    expect(after).toMatchObject({ basis: 'signed_terms', lease_id: s.lease.id, monthly: { list_rate: 3000, rent_tier: 3000 } });
    expect(after.totals.rent_over_stay).toBe(terms.stay.rent_over_stay);
    expect(after.stay.months).toBe(terms.stay.months);
    expect(after.deposits.security_deposit).toBe(1500);

    // What the payer is charged first is what the review says, to the cent.
    const paid = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    expect(paid.status).toBe(200);
    const charged = paid.body.data.payments.reduce((sum: number, payment: { amount: number }) => sum + cents(payment.amount), 0);
    expect(cents(after.totals.first_payment)).toBe(charged);
  });

  it('shows the home as it stands until both have signed: a rate change before then is in the review', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox', monthly_rate_cents: 300000 } });
    await placeWithDates(s.api, s.ref, s.home);
    await drainJobs(s.c.orgId);
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' })).status).toBe(200);
    await raise({ home: s.home, providerApi: client((await createKey(s.providerOrg, 'sandbox')).key) });

    expect(await review(s)).toMatchObject({
      basis: 'live_rates', lease_id: null, monthly: { list_rate: 6000, rent_tier: 6000 }, deposits: { security_deposit: 9000 },
    });
  });
});
