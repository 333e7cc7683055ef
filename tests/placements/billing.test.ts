// The pure billing modules: periods of a stay, a signed lease's charges on the ledger, and what is due now.
import { describe, expect, it } from 'vitest';
import { chargeParts, payerOf, type ChargePart, type DueCharge, type PayerOf } from '../../shared/placements/billing.ts';
import { chargeDueNow, chargeKey, chargesOf, leaseCharges, sharesDue, type SettledByCharge } from '../../shared/placements/ledger.ts';
import { addMonths, billingPeriods } from '../../shared/placements/periods.ts';
import { price, type PricedHome } from '../../shared/placements/pricing.ts';

const home: PricedHome = {
  name: 'Maple', currency: 'usd', monthly_rate_cents: 300_000, rent_1_3_months_cents: null, rent_4_6_months_cents: null,
  rent_7_9_months_cents: null, rent_10_12_months_cents: null, security_deposit_cents: 150_000, cleaning_fee_cents: 45_000,
  application_fee_cents: null, pet_fee_cents: null, pet_rent_cents: null, pet_deposit_cents: null, utilities_included: true, utilities_monthly_cents: null,
};
const request = { target_move_in: '2027-01-31', est_length_months: 3, has_pets: false, max_budget_cents: null, ale_limit_cents: null };

const onePayer: PayerOf = { rent: 'carrier', deposit: 'carrier', fees: 'carrier' };
const all = new Set<ChargePart>(['rent', 'deposit', 'fees']);

/** Parts paid, by the first day of the period of the signed lease's charge ('lease' is its id here). */
type PaidParts = Map<string, Set<ChargePart>>;
/** Every part of each period paid. */
const paidWhole = (...starts: string[]): PaidParts => new Map(starts.map((start) => [start, all]));

/**
 * What is due now on a stay signed by one lease, as the checkout reads it: the lease's charges as
 * posted to its ledger, the parts paid so far, the shares of the first unpaid charge.
 */
function dueNow(p: ReturnType<typeof price>, stay: { moveIn: string; moveOut: string }, payers: PayerOf, paid: PaidParts, today: string) {
  const charges = chargesOf(leaseCharges('lease', p, stay));
  const byCharge: SettledByCharge = new Map(charges.map((c) => {
    const parts = paid.get(c.periodStart) ?? new Set<ChargePart>();
    const paidParts = Object.fromEntries(chargeParts.map((part) => [part, parts.has(part) ? 1 : 0])) as Record<ChargePart, number>;
    return [chargeKey(c), { paid: paidParts, refunded: { rent: 0, deposit: 0, fees: 0 }, payer: {} }];
  }));
  const charge = chargeDueNow(charges, byCharge, today);
  return charge ? { charge, shares: sharesDue(charge, payers, byCharge) } : null;
}

describe('billing', () => {
  it('clamps to the end of shorter months', () => {
    expect(addMonths('2027-01-31', 1)).toBe('2027-02-28');
    expect(addMonths('2027-12-15', 1)).toBe('2028-01-15');
  });

  it('splits a stay into monthly periods, the last one shorter', () => {
    expect(billingPeriods('2027-01-01', '2027-03-16')).toEqual([
      { index: 0, start: '2027-01-01', end: '2027-01-31', share: { used: 31, full: 31 } },
      { index: 1, start: '2027-02-01', end: '2027-02-28', share: { used: 28, full: 28 } },
      { index: 2, start: '2027-03-01', end: '2027-03-15', share: { used: 15, full: 31 } },
    ]);
  });

  it('the first payment is due at once with fees and deposits; later months from their first day, the last prorated', () => {
    const stay = { moveIn: '2027-01-01', moveOut: '2027-03-16' };
    const p = price(home, request, { move_in: stay.moveIn, move_out: stay.moveOut });
    const [first] = dueNow(p, stay, onePayer, paidWhole(), '2026-12-01')!.shares;
    expect(first).toMatchObject({ chargeType: 'initial', payer: 'carrier', rentCents: 300_000, depositCents: 150_000, feesCents: 45_000 });
    expect(first.split).toMatchObject({ grossCents: 495_000, platformFeeCents: 24_000 });
    expect(dueNow(p, stay, onePayer, paidWhole('2027-01-01'), '2027-01-20')).toBeNull();
    expect(dueNow(p, stay, onePayer, paidWhole('2027-01-01'), '2027-02-01')!.shares).toMatchObject([{ chargeType: 'rent', rentCents: 300_000, depositCents: 0, periodStart: '2027-02-01' }]);
    const [last] = dueNow(p, stay, onePayer, paidWhole('2027-01-01', '2027-02-01'), '2027-03-01')!.shares;
    expect(last.rentCents).toBe(Math.round((300_000 * 15) / 31));
    expect(last.split.platformFeeCents).toBe(Math.round(last.rentCents * 0.08));
    expect(dueNow(p, stay, onePayer, paidWhole('2027-01-01', '2027-02-01', '2027-03-01'), '2027-03-10')).toBeNull();
  });
});

describe('one month-counting rule for the review and the checkout', () => {
  const home: PricedHome = {
    name: 'Loft', currency: 'usd', monthly_rate_cents: 240_000, rent_1_3_months_cents: 230_000, rent_4_6_months_cents: 220_000,
    rent_7_9_months_cents: null, rent_10_12_months_cents: null, security_deposit_cents: 150_000, cleaning_fee_cents: 20_000,
    application_fee_cents: 5_000, pet_fee_cents: 30_000, pet_rent_cents: 7_500, pet_deposit_cents: 25_000,
    utilities_included: false, utilities_monthly_cents: 12_345,
  };
  const request = { target_move_in: '2026-12-01', est_length_months: 4, has_pets: true, max_budget_cents: null, ale_limit_cents: null };

  it.each([
    ['120 nights', '2026-12-01', '2027-03-31'],
    ['whole months', '2026-12-01', '2027-04-01'],
    ['31 January to mid-May', '2027-01-31', '2027-05-17'],
    ['30 days in February', '2027-02-01', '2027-03-03'],
  ])('%s: the review\'s cost of the stay and service fee are the sum of every charge the checkout makes', (_, moveIn, moveOut) => {
    const p = price(home, request, { move_in: moveIn, move_out: moveOut });
    const charges: DueCharge[] = [];
    const paid = new Map<string, Set<ChargePart>>();
    for (let due = dueNow(p, { moveIn, moveOut }, onePayer, paid, moveOut); due; due = dueNow(p, { moveIn, moveOut }, onePayer, paid, moveOut)) {
      charges.push(due.charge);
      paid.set(due.charge.periodStart, all);
    }
    const sum = (pick: (c: DueCharge) => number) => charges.reduce((total, c) => total + pick(c), 0);
    expect(charges).toHaveLength(p.months);
    // What the stay costs, deposits aside, and the service fee: charged exactly as reviewed.
    expect(sum((c) => c.rentCents + c.feesCents)).toBe(p.costOfStay);
    expect(sum((c) => c.rentCents)).toBe(p.rentOverStay);
    expect(sum((c) => c.split.platformFeeCents)).toBe(p.serviceFeeOverStay);
    expect(sum((c) => c.depositCents)).toBe(p.depositsTotal);
  });
});

describe('a charge split between payers', () => {
  const home: PricedHome = {
    name: 'Cedar', currency: 'usd', monthly_rate_cents: 300_000, rent_1_3_months_cents: null, rent_4_6_months_cents: null,
    rent_7_9_months_cents: null, rent_10_12_months_cents: null, security_deposit_cents: 150_000, cleaning_fee_cents: 45_000,
    application_fee_cents: null, pet_fee_cents: 20_000, pet_rent_cents: 5_000, pet_deposit_cents: 30_000, utilities_included: true, utilities_monthly_cents: null,
  };
  const request = { target_move_in: '2027-01-01', est_length_months: 3, has_pets: true, max_budget_cents: null, ale_limit_cents: null };
  const stay = { moveIn: '2027-01-01', moveOut: '2027-04-01' };
  const p = price(home, request, { move_in: stay.moveIn, move_out: stay.moveOut });

  it('the fees payer defaults to the rent payer', () => {
    expect(payerOf({ rent_payer: 'tpa', deposit_payer: 'policyholder', fees_payer: null })).toEqual({ rent: 'tpa', deposit: 'policyholder', fees: 'tpa' });
  });

  it('one share per payer, each with its own lines and fees; together they are the whole charge', () => {
    const due = dueNow(p, stay, { rent: 'carrier', deposit: 'policyholder', fees: 'carrier' }, new Map(), '2026-12-01')!;
    expect(due.shares.map((share) => share.payer)).toEqual(['carrier', 'policyholder']);
    const [carrier, household] = due.shares;
    expect(carrier).toMatchObject({ rentCents: 300_000, depositCents: 0, feesCents: 45_000 + 20_000 + 5_000 });
    expect(carrier.lines.map((line) => line.part)).not.toContain('deposit');
    expect(household).toMatchObject({ rentCents: 0, depositCents: 180_000, feesCents: 0 });
    expect(household.lines.map((line) => line.label)).toEqual(['Security deposit (refundable)', 'Pet deposit (refundable)']);
    // The platform fee is from rent only: the deposit share pays none, the rent share all of it.
    expect(household.split.platformFeeCents).toBe(0);
    expect(carrier.split.platformFeeCents).toBe(due.charge.split.platformFeeCents);
    expect(carrier.split.grossCents + household.split.grossCents).toBe(due.charge.split.grossCents);
  });

  it('a period stays due until every part is paid; the next one comes only after', () => {
    const payers: PayerOf = { rent: 'carrier', deposit: 'policyholder', fees: 'tpa' };
    expect(dueNow(p, stay, payers, new Map(), '2026-12-01')!.shares.map((share) => share.payer)).toEqual(['carrier', 'policyholder', 'tpa']);
    const paid = new Map([['2027-01-01', new Set<ChargePart>(['deposit'])]]);
    const due = dueNow(p, stay, payers, paid, '2027-02-01')!;
    expect(due.charge.periodStart).toBe('2027-01-01');
    expect(due.shares.map((share) => share.payer)).toEqual(['carrier', 'tpa']);
    paid.set('2027-01-01', new Set<ChargePart>(['deposit', 'rent', 'fees']));
    expect(dueNow(p, stay, payers, paid, '2027-02-01')!.shares.map((share) => [share.payer, share.periodStart])).toEqual([['carrier', '2027-02-01'], ['tpa', '2027-02-01']]);
  });

  it('an amended payer pays only what is still unpaid', () => {
    const paid = new Map([['2027-01-01', new Set<ChargePart>(['rent', 'fees'])]]);
    const due = dueNow(p, stay, { rent: 'tpa', deposit: 'tpa', fees: 'tpa' }, paid, '2026-12-01')!;
    expect(due.shares).toMatchObject([{ payer: 'tpa', rentCents: 0, depositCents: 180_000, feesCents: 0 }]);
  });
});
