import { splitCharge, type ChargeSplit } from '../properties/earnings.ts';
import { firstCharge, type PriceCents } from './pricing.ts';
import { billingPeriods, daysBetween, monthlyPart, type BillingPeriod } from './periods.ts';

// What the payer owes now on a fully signed lease, from the same prices as the budget review
// (./pricing.ts), so the review and the checkout never disagree.
//
// - The stay is billed in monthly periods from move-in; period k runs from move-in + k months to the
//   day before move-in + k + 1 months, the last one to the day before move-out.
// - The first payment (charge type initial) pays period 0: the first month's rent, pet rent and
//   utilities, the one-off fees and the refundable deposits. It is due as soon as the lease is signed.
// - Each later period (charge type rent) is due from its first day: rent, pet rent and utilities.
//   A shorter last period (a stay that ends mid-month, or one shortened after move-in) is billed for
//   the days used: the month's amounts times days used over the days of a full period, rounded.
// - The platform fee is the service fee on the rent in the charge (shared/properties/earnings.ts).
// - An extension (charge type extension) pays its added nights at once, before it takes effect: for
//   each monthly period of the extended stay, its monthly amounts times the share of its days the
//   extension adds (the rest of a short last period, then whole or partial months), at the tier of
//   the extended stay's length. The nights of the signed stay keep their own price.

export interface ChargeLine {
  label: string;
  cents: number;
}

/** What a charge of a placement pays: the first payment, a later period's rent, or an extension's added nights. */
export const chargeTypes = ['initial', 'rent', 'extension'] as const;
export type ChargeType = (typeof chargeTypes)[number];

export interface DueCharge {
  chargeType: ChargeType;
  title: string;
  periodStart: string;
  periodEnd: string;
  lines: ChargeLine[];
  rentCents: number;
  depositCents: number;
  feesCents: number;
  split: ChargeSplit;
}

function charge(chargeType: DueCharge['chargeType'], title: string, period: BillingPeriod, lines: ChargeLine[], parts: { rentCents: number; depositCents: number; feesCents: number }): DueCharge {
  return {
    chargeType,
    title,
    periodStart: period.start,
    periodEnd: period.end,
    lines: lines.filter((line) => line.cents > 0),
    ...parts,
    split: splitCharge(parts),
  };
}

/** The charge of one period of the stay. */
export function chargeFor(p: PriceCents, period: BillingPeriod): DueCharge {
  if (period.index === 0) {
    const parts = firstCharge(p);
    return charge('initial', 'First payment', period, [
      { label: 'Rent, first month', cents: p.rentTier },
      { label: 'Pet rent', cents: p.petRent },
      { label: 'Utilities', cents: p.utilities },
      { label: 'Cleaning fee', cents: p.cleaningFee },
      { label: 'Application fee', cents: p.applicationFee },
      { label: 'Pet fee', cents: p.petFee },
      { label: 'Security deposit (refundable)', cents: p.securityDeposit },
      { label: 'Pet deposit (refundable)', cents: p.petDeposit },
    ], parts);
  }
  const rent = monthlyPart(p.rentTier, period);
  const petRent = monthlyPart(p.petRent, period);
  const utilities = monthlyPart(p.utilities, period);
  const partial = period.share.used < period.share.full ? ` (${period.share.used} of ${period.share.full} days)` : '';
  return charge('rent', `Rent from ${period.start} to ${period.end}${partial}`, period, [
    { label: `Rent${partial}`, cents: rent },
    { label: 'Pet rent', cents: petRent },
    { label: 'Utilities', cents: utilities },
  ], { rentCents: rent, depositCents: 0, feesCents: petRent + utilities });
}

/**
 * The charge due now: the first period not yet paid, when it has started (the first payment is due
 * at once). Null when everything due so far is paid.
 */
export function dueNow(p: PriceCents, stay: { moveIn: string; moveOut: string }, paidPeriodStarts: readonly string[], today: string): DueCharge | null {
  const paid = new Set(paidPeriodStarts);
  const next = billingPeriods(stay.moveIn, stay.moveOut).find((period) => !paid.has(period.start));
  if (!next || (next.index > 0 && next.start > today)) return null;
  return chargeFor(p, next);
}

/** The charge of an extension adding the nights [from, to) to a stay that moved in on `moveIn`. */
export function extensionCharge(p: PriceCents, moveIn: string, from: string, to: string): DueCharge {
  let rent = 0;
  let petRent = 0;
  let utilities = 0;
  for (const period of billingPeriods(moveIn, to)) {
    // The first month is paid whole with the first payment: nights added inside it are paid already.
    const start = period.start > from ? period.start : from;
    if (period.index === 0 || start > period.end) continue;
    const added = daysBetween(start, period.end) + 1;
    const part = (cents: number) => Math.round((cents * added) / period.share.full);
    rent += part(p.rentTier);
    petRent += part(p.petRent);
    utilities += part(p.utilities);
  }
  const nights = daysBetween(from, to);
  const last = billingPeriods(from, to).at(-1)!.end;
  const parts = { rentCents: rent, depositCents: 0, feesCents: petRent + utilities };
  return {
    chargeType: 'extension',
    title: `Extension: ${nights} nights, ${from} to ${last}`,
    periodStart: from,
    periodEnd: last,
    lines: [
      { label: `Rent, ${nights} added nights`, cents: rent },
      { label: 'Pet rent', cents: petRent },
      { label: 'Utilities', cents: utilities },
    ].filter((line) => line.cents > 0),
    ...parts,
    split: splitCharge(parts),
  };
}
