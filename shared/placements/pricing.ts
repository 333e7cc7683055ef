import { platformFeeRateBps, type ChargeParts } from '../properties/earnings.ts';
import { fromCents } from '../money.ts';
import { billingPeriods, monthlyPart, type BillingPeriod } from './periods.ts';

// The price of a home on a request: one pure function over cents, used by the budget review and
// (part 2) by the checkout, so what the carrier approved and what the payer is charged never differ.
//
// - The stay is counted in months started: from move-in and move-out once the dates are set, else
//   the request's est_length_months. The rent tier follows it (the specification's tier table),
//   falling back to monthly_rate when the home has no rate for that tier. With dates, the totals
//   over the stay follow the checkout's periods (./periods.ts): a short last month is prorated, so
//   the review's cost of the stay is what the checkout will charge, not whole months.
// - Pet rent, the pet fee and the pet deposit apply only when the request has pets; utilities only
//   when the rent does not include them. Absent fees count as 0.
// - The service fee is the platform fee of shared/properties/earnings.ts, a share of rent only. It is
//   deducted from the landlord's payout, so it is shown, never added to what the payer pays.
// - ale_consumed_by_stay excludes deposits (they come back); first_payment includes them.

export interface PricedHome {
  name: string | null;
  currency: string;
  monthly_rate_cents: number;
  rent_1_3_months_cents: number | null;
  rent_4_6_months_cents: number | null;
  rent_7_9_months_cents: number | null;
  rent_10_12_months_cents: number | null;
  security_deposit_cents: number | null;
  cleaning_fee_cents: number | null;
  application_fee_cents: number | null;
  pet_fee_cents: number | null;
  pet_rent_cents: number | null;
  pet_deposit_cents: number | null;
  utilities_included: boolean | null;
  utilities_monthly_cents: number | null;
}

/** The fields of a home that pricing reads: what a contract version freezes as its terms. */
export const pricedHomeFields = [
  'name', 'currency', 'monthly_rate_cents', 'rent_1_3_months_cents', 'rent_4_6_months_cents', 'rent_7_9_months_cents',
  'rent_10_12_months_cents', 'security_deposit_cents', 'cleaning_fee_cents', 'application_fee_cents', 'pet_fee_cents',
  'pet_rent_cents', 'pet_deposit_cents', 'utilities_included', 'utilities_monthly_cents',
] as const satisfies readonly (keyof PricedHome)[];

/**
 * The terms a contract version is issued with and every charge of it is priced from: the home's
 * priced fields and the request's pets, as they stood at issue (app.lease_agreements.terms).
 */
export interface LeaseTerms {
  home: PricedHome;
  request: { has_pets: boolean };
  /** Where the home is, as the placement showed it when the version was issued. */
  listing: { address: string; city: string; state: string };
  /** The budget review's figures for the version's dates, as they stood at issue. */
  totals: { months: number; tier: Tier; rent_over_stay_cents: number; cost_of_stay_cents: number; first_payment_cents: number; deposits_cents: number };
}

/** The terms of `home` for `request` and these dates, now: what a contract version issued now freezes. */
export function termsOf(home: PricedHome & LeaseTerms['listing'], request: PricedRequest, dates: StayDates): LeaseTerms {
  const p = price(home, request, dates);
  return {
    home: Object.fromEntries(pricedHomeFields.map((field) => [field, home[field]])) as unknown as PricedHome,
    request: { has_pets: request.has_pets },
    listing: { address: home.address, city: home.city, state: home.state },
    totals: {
      months: p.months,
      tier: p.tier,
      rent_over_stay_cents: p.rentOverStay,
      cost_of_stay_cents: p.costOfStay,
      first_payment_cents: p.firstPayment,
      deposits_cents: p.depositsTotal,
    },
  };
}

export interface PricedRequest {
  target_move_in: string;
  est_length_months: number;
  has_pets: boolean;
  max_budget_cents: number | null;
  ale_limit_cents: number | null;
}

export interface StayDates {
  move_in: string;
  move_out: string;
}

export const tiers = ['monthly_rate', 'rent_1_3_months', 'rent_4_6_months', 'rent_7_9_months', 'rent_10_12_months'] as const;
export type Tier = (typeof tiers)[number];

/** The tier the specification's table gives a stay of `months`. */
export function tierFor(months: number): Tier {
  if (months < 2) return 'monthly_rate';
  if (months <= 3) return 'rent_1_3_months';
  if (months <= 6) return 'rent_4_6_months';
  if (months <= 9) return 'rent_7_9_months';
  return 'rent_10_12_months';
}

/** Months started between two dates (YYYY-MM-DD): 2026-12-01 to 2027-03-01 is 3, to 2027-03-02 is 4. */
export function monthsBetween(moveIn: string, moveOut: string): number {
  const [y1, m1, d1] = moveIn.split('-').map(Number);
  const [y2, m2, d2] = moveOut.split('-').map(Number);
  const whole = (y2 - y1) * 12 + (m2 - m1) - (d2 < d1 ? 1 : 0);
  return Math.max(1, whole + (d2 === d1 ? 0 : 1));
}

export interface PriceCents {
  months: number;
  moveIn: string;
  tier: Tier;
  listRate: number;
  rentTier: number;
  petRent: number;
  utilities: number;
  monthlyTotal: number;
  cleaningFee: number;
  applicationFee: number;
  petFee: number;
  oneOffTotal: number;
  securityDeposit: number;
  petDeposit: number;
  depositsTotal: number;
  serviceFeePerMonth: number;
  serviceFeeOverStay: number;
  rentOverStay: number;
  costOfStay: number;
  firstPayment: number;
  maxBudget: number | null;
  withinBudget: boolean;
  monthlyOverBy: number;
  aleLimit: number | null;
  aleConsumedByStay: number;
  withinAleLimit: boolean;
}

const share = (cents: number, bps: number) => Math.round((cents * bps) / 10_000);

/**
 * What the checkout charges over the stay's periods (./billing.ts): the first period in full, a
 * later one prorated by the days it uses, each amount rounded per charge as the checkout rounds it,
 * and the service fee on each charge's rent. So the review's totals are the sum of the charges.
 */
function chargedOverStay(periods: BillingPeriod[], monthly: { rentTier: number; petRent: number; utilities: number }) {
  let rent = 0;
  let other = 0;
  let serviceFee = 0;
  for (const period of periods) {
    const periodRent = monthlyPart(monthly.rentTier, period);
    rent += periodRent;
    other += monthlyPart(monthly.petRent, period) + monthlyPart(monthly.utilities, period);
    serviceFee += share(periodRent, platformFeeRateBps);
  }
  return { rent, monthly: rent + other, serviceFee };
}

/**
 * Prices a home for a request, in cents. With the dates set, the totals over the stay are what the
 * checkout will charge (the same periods and proration); before, whole months of the estimate.
 */
export function price(home: PricedHome, request: PricedRequest, dates?: StayDates | null): PriceCents {
  const months = dates ? monthsBetween(dates.move_in, dates.move_out) : request.est_length_months;
  const tier = tierFor(months);
  const tierRate = tier === 'monthly_rate' ? null : home[`${tier}_cents`];
  const pets = request.has_pets;
  const rentTier = tierRate ?? home.monthly_rate_cents;
  const petRent = pets ? home.pet_rent_cents ?? 0 : 0;
  const utilities = home.utilities_included ? 0 : home.utilities_monthly_cents ?? 0;
  const monthlyTotal = rentTier + petRent + utilities;
  const cleaningFee = home.cleaning_fee_cents ?? 0;
  const applicationFee = home.application_fee_cents ?? 0;
  const petFee = pets ? home.pet_fee_cents ?? 0 : 0;
  const oneOffTotal = cleaningFee + applicationFee + petFee;
  const securityDeposit = home.security_deposit_cents ?? 0;
  const petDeposit = pets ? home.pet_deposit_cents ?? 0 : 0;
  const depositsTotal = securityDeposit + petDeposit;
  const serviceFeePerMonth = share(rentTier, platformFeeRateBps);
  const overStay = dates
    ? chargedOverStay(billingPeriods(dates.move_in, dates.move_out), { rentTier, petRent, utilities })
    : { rent: rentTier * months, monthly: monthlyTotal * months, serviceFee: serviceFeePerMonth * months };
  const costOfStay = overStay.monthly + oneOffTotal;
  return {
    months,
    moveIn: dates?.move_in ?? request.target_move_in,
    tier: tierRate === null ? 'monthly_rate' : tier,
    listRate: home.monthly_rate_cents,
    rentTier,
    petRent,
    utilities,
    monthlyTotal,
    cleaningFee,
    applicationFee,
    petFee,
    oneOffTotal,
    securityDeposit,
    petDeposit,
    depositsTotal,
    serviceFeePerMonth,
    serviceFeeOverStay: overStay.serviceFee,
    rentOverStay: overStay.rent,
    costOfStay,
    firstPayment: monthlyTotal + oneOffTotal + depositsTotal,
    maxBudget: request.max_budget_cents,
    withinBudget: request.max_budget_cents === null || monthlyTotal <= request.max_budget_cents,
    monthlyOverBy: request.max_budget_cents === null ? 0 : Math.max(0, monthlyTotal - request.max_budget_cents),
    aleLimit: request.ale_limit_cents,
    aleConsumedByStay: costOfStay,
    withinAleLimit: request.ale_limit_cents === null || costOfStay <= request.ale_limit_cents,
  };
}

/**
 * The first payment as a charge on the landlord's account (part 2's checkout): rent carries the
 * platform fee; pet rent, utilities and one-off fees are fees; deposits are deposits.
 */
export function firstCharge(p: PriceCents): Required<ChargeParts> {
  return { rentCents: p.rentTier, depositCents: p.depositsTotal, feesCents: p.petRent + p.utilities + p.oneOffTotal };
}

export interface Approval {
  budget_approved: boolean;
  approved_at: string | null;
  on_request: boolean;
}

/**
 * What a review is priced from: a contract version's signed terms (what its checkout charges), or
 * the home's rates as they stand (before both signatures: a version may still be re-dated or replaced).
 */
export type ReviewBasis = { basis: 'signed_terms'; lease_id: string } | { basis: 'live_rates'; lease_id: null };

/** The budget review of the specification, in major units. */
export function budgetReview(home: PricedHome, p: PriceCents, approval: Approval, basis: ReviewBasis) {
  const m = fromCents;
  return {
    property: home.name,
    currency: home.currency,
    ...basis,
    stay: { months: p.months, target_move_in: p.moveIn },
    monthly: {
      list_rate: m(p.listRate),
      rent_tier: m(p.rentTier),
      tier_applied: p.tier,
      pet_rent: m(p.petRent),
      utilities: m(p.utilities),
      total: m(p.monthlyTotal),
    },
    one_off: { cleaning_fee: m(p.cleaningFee), application_fee: m(p.applicationFee), pet_fee: m(p.petFee), total: m(p.oneOffTotal) },
    deposits: { security_deposit: m(p.securityDeposit), pet_deposit: m(p.petDeposit), total: m(p.depositsTotal), refundable: true },
    service_fee: {
      percent: platformFeeRateBps / 100,
      applies_to: 'rent only (never deposits, pet rent, utilities or one-off fees); deducted from the landlord’s payout, not added to the payer’s cost',
      per_month: m(p.serviceFeePerMonth),
      over_stay: m(p.serviceFeeOverStay),
    },
    totals: {
      rent_over_stay: m(p.rentOverStay),
      cost_of_stay: m(p.costOfStay),
      first_payment: m(p.firstPayment),
      deposits_refundable: m(p.depositsTotal),
    },
    against_budget: {
      max_budget: p.maxBudget === null ? null : m(p.maxBudget),
      within_budget: p.withinBudget,
      monthly_over_by: m(p.monthlyOverBy),
      ale_limit: p.aleLimit === null ? null : m(p.aleLimit),
      ale_consumed_by_stay: m(p.aleConsumedByStay),
      within_ale_limit: p.withinAleLimit,
    },
    approval,
  };
}

export type BudgetReview = ReturnType<typeof budgetReview>;
