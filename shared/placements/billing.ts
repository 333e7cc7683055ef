import { splitCharge, type ChargeSplit } from '../properties/earnings.ts';
import type { payers } from '../claims/values.ts';
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

// - Each charge has three parts, each paid by the request's payer of it: rent (`rent_payer`), the
//   refundable deposits (`deposit_payer`) and the fees: one-off fees, pet rent and utilities
//   (`fees_payer`, the rent's payer when unset). A charge whose parts have different payers is paid
//   as one share per payer, each its own checkout and payment, with its own platform fee (from the
//   rent in it) and processing fee. A charge is settled when every part with money in it is paid;
//   who pays is read when a share is charged, so an amended payer pays what is still unpaid.

/** The parts of a charge, each paid by its own payer. */
export const chargeParts = ['rent', 'deposit', 'fees'] as const;
export type ChargePart = (typeof chargeParts)[number];

export type Payer = (typeof payers)[number];
/** Who pays each part of a charge. */
export type PayerOf = Record<ChargePart, Payer>;

/** Who pays each part, from the request's payer fields. */
export function payerOf(request: { rent_payer: Payer; deposit_payer: Payer; fees_payer: Payer | null }): PayerOf {
  return { rent: request.rent_payer, deposit: request.deposit_payer, fees: request.fees_payer ?? request.rent_payer };
}

export interface ChargeLine {
  label: string;
  cents: number;
  part: ChargePart;
}

/** What a charge of a placement pays: the first payment, a later period's rent, or an extension's added nights. */
export const chargeTypes = ['initial', 'rent', 'extension'] as const;
export type ChargeType = (typeof chargeTypes)[number];

/** A whole charge: every part of one period (or of an extension's added nights). */
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
      { label: 'Rent, first month', cents: p.rentTier, part: 'rent' },
      { label: 'Pet rent', cents: p.petRent, part: 'fees' },
      { label: 'Utilities', cents: p.utilities, part: 'fees' },
      { label: 'Cleaning fee', cents: p.cleaningFee, part: 'fees' },
      { label: 'Application fee', cents: p.applicationFee, part: 'fees' },
      { label: 'Pet fee', cents: p.petFee, part: 'fees' },
      { label: 'Security deposit (refundable)', cents: p.securityDeposit, part: 'deposit' },
      { label: 'Pet deposit (refundable)', cents: p.petDeposit, part: 'deposit' },
    ], parts);
  }
  const rent = monthlyPart(p.rentTier, period);
  const petRent = monthlyPart(p.petRent, period);
  const utilities = monthlyPart(p.utilities, period);
  const partial = period.share.used < period.share.full ? ` (${period.share.used} of ${period.share.full} days)` : '';
  return charge('rent', `Rent from ${period.start} to ${period.end}${partial}`, period, [
    { label: `Rent${partial}`, cents: rent, part: 'rent' },
    { label: 'Pet rent', cents: petRent, part: 'fees' },
    { label: 'Utilities', cents: utilities, part: 'fees' },
  ], { rentCents: rent, depositCents: 0, feesCents: petRent + utilities });
}

/** One payer's share of a charge: the parts of it that payer pays. */
export interface ChargeShare extends DueCharge {
  payer: Payer;
}

/** The cents of one part of a charge. */
export function partCents(charge: Pick<DueCharge, 'rentCents' | 'depositCents' | 'feesCents'>, part: ChargePart): number {
  return part === 'rent' ? charge.rentCents : part === 'deposit' ? charge.depositCents : charge.feesCents;
}

/** The share of `charge` made of `parts` (the others count nothing), paid by `payer`. */
export function shareOf(charge: DueCharge, payer: Payer, parts: readonly ChargePart[]): ChargeShare {
  const amounts = { rentCents: 0, depositCents: 0, feesCents: 0 };
  for (const part of parts) amounts[`${part}Cents` as const] = partCents(charge, part);
  return { ...charge, payer, lines: charge.lines.filter((line) => parts.includes(line.part)), ...amounts, split: splitCharge(amounts) };
}

/**
 * The shares of a charge still to pay: its parts with money in them that no settled payment of its
 * period covers (`covered`), grouped by who pays them, the rent's payer first. Empty when settled.
 */
export function unpaidShares(charge: DueCharge, payers: PayerOf, covered: ReadonlySet<ChargePart>): ChargeShare[] {
  const byPayer = new Map<Payer, ChargePart[]>();
  for (const part of unpaidParts(charge, covered)) byPayer.set(payers[part], [...(byPayer.get(payers[part]) ?? []), part]);
  return [...byPayer].map(([payer, parts]) => shareOf(charge, payer, parts));
}

/** The parts of a charge with money in them that no settled payment covers (`covered`): none once it is wholly paid. */
export function unpaidParts(charge: DueCharge, covered: ReadonlySet<ChargePart>): ChargePart[] {
  return chargeParts.filter((part) => partCents(charge, part) > 0 && !covered.has(part));
}

/** The parts already paid of each period, by the period's first day. */
export type PaidParts = ReadonlyMap<string, ReadonlySet<ChargePart>>;

/** A charge with something left to pay, and the shares of it still unpaid (at least one). */
export interface Due {
  charge: DueCharge;
  shares: ChargeShare[];
}

/** The charge with its unpaid shares, or null when every part of it is paid. */
export function unpaid(charge: DueCharge, payers: PayerOf, paid: PaidParts): Due | null {
  const shares = unpaidShares(charge, payers, paid.get(charge.periodStart) ?? new Set());
  return shares.length > 0 ? { charge, shares } : null;
}

/**
 * What is due now: the first period not wholly paid, with its unpaid shares, when it has started
 * (the first payment is due at once). Null when everything due so far is paid.
 */
export function dueNow(p: PriceCents, stay: { moveIn: string; moveOut: string }, payers: PayerOf, paid: PaidParts, today: string): Due | null {
  for (const period of billingPeriods(stay.moveIn, stay.moveOut)) {
    const due = unpaid(chargeFor(p, period), payers, paid);
    if (due) return period.index > 0 && period.start > today ? null : due;
  }
  return null;
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
      { label: `Rent, ${nights} added nights`, cents: rent, part: 'rent' as const },
      { label: 'Pet rent', cents: petRent, part: 'fees' as const },
      { label: 'Utilities', cents: utilities, part: 'fees' as const },
    ].filter((line) => line.cents > 0),
    ...parts,
    split: splitCharge(parts),
  };
}
