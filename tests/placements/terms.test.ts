// What was signed is what is charged: a contract version freezes the terms it was issued with, and
// every payment of it is priced from them, whatever the provider changes on the home afterwards.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
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
  it('keeps the signed lease, and prices what was paid again from its terms: a shorter stay in a dearer tier owes the difference', async () => {
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
    // Four months at the 4-6 month rate became a stay of under three: the month paid now costs the 1-3 month rate.
    expect(entry?.detail).toMatchObject({ shortened: true, refund_due: -200, currency: 'usd', move_out_date: shorter });
    expect(entry?.summary).toContain('200.00 USD more is due');
  });
});
