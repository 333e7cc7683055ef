// The pure placement modules: pricing, the transition tables, the stay rules, the request lifecycle table.
import { describe, expect, it } from 'vitest';
import { monthsBetween, price, tierFor, firstCharge, budgetReview, type PricedHome, type PricedRequest } from '../../shared/placements/pricing.ts';
import { platformFeeRateBps, splitCharge } from '../../shared/properties/earnings.ts';
import { leaseMove, leaseTransitions, optionMove, leaseStatuses } from '../../shared/placements/states.ts';
import { checkStay } from '../../shared/placements/stay.ts';
import { canMove, statusMoves, statuses } from '../../shared/claims/status.ts';

const home: PricedHome = {
  name: 'Maple 2B', currency: 'usd', monthly_rate_cents: 300_000,
  rent_1_3_months_cents: 290_000, rent_4_6_months_cents: 270_000, rent_7_9_months_cents: null, rent_10_12_months_cents: 240_000,
  security_deposit_cents: 150_000, cleaning_fee_cents: 20_000, application_fee_cents: 5_000, pet_fee_cents: 25_000,
  pet_rent_cents: 5_000, pet_deposit_cents: 30_000, utilities_included: false, utilities_monthly_cents: 15_000,
};
const request: PricedRequest = { target_move_in: '2026-12-01', est_length_months: 4, has_pets: false, max_budget_cents: 280_000, ale_limit_cents: 1_500_000 };

describe('pricing', () => {
  it.each([[1, 'monthly_rate'], [2, 'rent_1_3_months'], [3, 'rent_1_3_months'], [4, 'rent_4_6_months'], [6, 'rent_4_6_months'],
    [7, 'rent_7_9_months'], [9, 'rent_7_9_months'], [10, 'rent_10_12_months'], [18, 'rent_10_12_months']] as const)(
    'a stay of %i months takes the %s tier', (months, tier) => expect(tierFor(months)).toBe(tier));

  it('counts months started between the dates', () => {
    expect(monthsBetween('2026-12-01', '2027-03-01')).toBe(3);
    expect(monthsBetween('2026-12-01', '2027-03-02')).toBe(4);
    expect(monthsBetween('2026-01-31', '2026-03-01')).toBe(2);
    expect(monthsBetween('2026-12-01', '2026-12-31')).toBe(1);
  });

  it('prices a four-month stay without pets: tier, utilities, fees, deposits, service fee on rent only, totals, budget', () => {
    const p = price(home, request);
    expect(p).toMatchObject({
      months: 4, tier: 'rent_4_6_months', rentTier: 270_000, petRent: 0, utilities: 15_000, monthlyTotal: 285_000,
      oneOffTotal: 25_000, petFee: 0, depositsTotal: 150_000, petDeposit: 0,
      serviceFeePerMonth: 21_600, serviceFeeOverStay: 86_400, rentOverStay: 1_080_000,
      costOfStay: 285_000 * 4 + 25_000, firstPayment: 285_000 + 25_000 + 150_000,
      withinBudget: false, monthlyOverBy: 5_000, aleConsumedByStay: 1_165_000, withinAleLimit: true,
    });
    expect(p.serviceFeePerMonth).toBe(Math.round((270_000 * platformFeeRateBps) / 10_000));
  });

  it('adds pet rent, pet fee and pet deposit only with pets, and drops utilities when included', () => {
    const p = price({ ...home, utilities_included: true }, { ...request, has_pets: true });
    expect(p).toMatchObject({ petRent: 5_000, petFee: 25_000, petDeposit: 30_000, utilities: 0, monthlyTotal: 275_000, depositsTotal: 180_000 });
    expect(p.serviceFeePerMonth).toBe(21_600);
  });

  it('falls back to monthly_rate when the tier is absent, and the dates decide the stay once set', () => {
    const p = price(home, request, { move_in: '2026-12-01', move_out: '2027-08-01' });
    expect(p).toMatchObject({ months: 8, tier: 'monthly_rate', rentTier: 300_000, moveIn: '2026-12-01' });
  });

  it('without max_budget or ale_limit everything is within', () => {
    const p = price(home, { ...request, max_budget_cents: null, ale_limit_cents: null });
    expect(p).toMatchObject({ withinBudget: true, monthlyOverBy: 0, withinAleLimit: true, maxBudget: null, aleLimit: null });
  });

  it('renders major units, and the checkout charge of the same figures carries the fee on rent only', () => {
    const p = price(home, { ...request, has_pets: true });
    const review = budgetReview(home, p, { budget_approved: false, approved_at: null, on_request: false }, { basis: 'live_rates', lease_id: null });
    expect(review.monthly).toEqual({ list_rate: 3000, rent_tier: 2700, tier_applied: 'rent_4_6_months', pet_rent: 50, utilities: 150, total: 2900 });
    expect(review.deposits.refundable).toBe(true);
    expect(review.service_fee.percent).toBe(platformFeeRateBps / 100);
    const charge = splitCharge(firstCharge(p));
    expect(charge.grossCents).toBe(p.firstPayment);
    expect(charge.platformFeeCents).toBe(p.serviceFeePerMonth);
  });
});

describe('the lease state machine', () => {
  it('moves exactly as the table says', () => {
    expect(leaseMove('contract_sent', 'awaiting_lease')).toBe('sent_for_signature');
    expect(leaseMove('first_signed', 'sent_for_signature')).toBe('policyholder_signed');
    expect(leaseMove('countersigned', 'policyholder_signed')).toBe('fully_signed');
    for (const from of ['awaiting_lease', 'sent_for_signature', 'policyholder_signed'] as const) expect(leaseMove('superseded', from)).toBe('superseded');
    expect(leaseMove('superseded', 'fully_signed')).toBeNull();
    expect(leaseMove('first_signed', 'awaiting_lease')).toBeNull();
    expect(leaseMove('countersigned', 'sent_for_signature')).toBeNull();
    expect(leaseMove('contract_sent', null)).toBeNull();
  });

  it('every state is reachable and only superseded and withdrawn are terminal', () => {
    const reached = new Set(['awaiting_lease', ...Object.values(leaseTransitions).map((t) => t.to)]);
    expect([...reached].sort()).toEqual([...leaseStatuses].sort());
  });
});

describe('the offer', () => {
  it('send, save, apply, approve; place from an offer; decline stops it', () => {
    const sent = optionMove('send', null)!;
    expect(sent).toEqual({ option_status: 'sent', application_status: 'not_applied' });
    const saved = optionMove('save', sent)!;
    const applied = optionMove('apply', saved)!;
    expect(applied).toEqual({ option_status: 'saved', application_status: 'applied' });
    expect(optionMove('approve_application', applied)).toEqual({ option_status: 'approved', application_status: 'approved_to_lease' });
    expect(optionMove('place', sent)).toEqual({ option_status: 'approved', application_status: 'approved_to_lease' });
    const declined = optionMove('decline', saved)!;
    for (const event of ['send', 'place', 'save', 'apply', 'approve_application', 'decline'] as const) expect(optionMove(event, declined)).toBeNull();
    expect(optionMove('send', { option_status: 'approved', application_status: 'approved_to_lease' })).toBeNull();
    expect(optionMove('approve_application', sent)).toBeNull();
  });
});

describe('the stay rules', () => {
  it('orders, length and past, each with its code and field', () => {
    const err = (a: string, b: string) => { try { checkStay(a, b, new Date('2026-11-23T12:00:00Z')); return null; } catch (e: any) { return [e.code, e.field]; } };
    expect(err('2026-12-01', '2026-12-01')).toEqual(['invalid_field', 'move_out']);
    expect(err('2026-12-01', '2026-11-30')).toEqual(['invalid_field', 'move_out']);
    expect(err('2026-12-01', '2026-12-30')).toEqual(['stay_too_short', 'move_out']);
    expect(err('2026-12-01', '2026-12-31')).toBeNull();
    expect(err('2026-11-22', '2027-01-22')).toEqual(['invalid_field', 'move_in']);
  });
});

describe('the request lifecycle table', () => {
  it('reaches every status, and every part-1 move is allowed by the rule from some status', () => {
    expect(new Set(statusMoves.map((m) => m.to))).toEqual(new Set(statuses));
    expect(canMove('lease_execution', 'awaiting_approval')).toBe(true);
    expect(canMove('lease_signed', 'awaiting_approval')).toBe(false);
  });
});
