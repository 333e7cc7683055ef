import { splitCharge, type ChargeSplit } from '../properties/earnings.ts';
import type { payers } from '../claims/values.ts';

// The shape of a charge and of the shares payers pay of it. What a stay charges is posted to its
// ledger (./ledger.ts) and read back from it, never worked out from the stay's dates.
//
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
/** Who pays a share, in the payer's words (the pages say these). */
export { payerWords } from '../request-values.ts';

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
  /** The ledger's name of the line (Rent, Pet fee, ...), which the household's pages translate. */
  line: string;
  /** For a rent line, which rent it is: what its label says in words (./ledger.ts). */
  rent?: RentBasis;
}

/** Which rent a rent line is: a whole month, the first month, some nights of a month, or nights an extension added. */
export type RentBasis = { kind: 'month' } | { kind: 'firstMonth' } | { kind: 'partial'; nights: number; days: number } | { kind: 'added'; nights: number };

/** What a charge of a placement pays: the first payment, a later period's rent, or an extension's added nights. */
export const chargeTypes = ['initial', 'rent', 'extension'] as const;
export type ChargeType = (typeof chargeTypes)[number];

/** A whole charge as the ledger holds it: every part of one period (or of an extension's added nights). */
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

/** The parts of a charge with money in them that no settled payment covers (`covered`). */
function unpaidParts(charge: DueCharge, covered: ReadonlySet<ChargePart>): ChargePart[] {
  return chargeParts.filter((part) => partCents(charge, part) > 0 && !covered.has(part));
}
