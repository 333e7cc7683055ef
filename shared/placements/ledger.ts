import { splitCharge } from '../properties/earnings.ts';
import { chargeParts, partCents, unpaidShares, type ChargeLine, type ChargePart, type ChargeShare, type ChargeType, type DueCharge, type Payer, type PayerOf, type RentBasis } from './billing.ts';
import { billingPeriods, daysBetween, type BillingPeriod } from './periods.ts';
import type { PriceCents } from './pricing.ts';
import { addDays } from './stay.ts';
import { en } from '../i18n/en.ts';

// The ledger of a stay, as pure functions over its posted entries (app.ledger_entries; SQL in
// ./ledger-repository.ts). Nothing here reads the stay's current dates: what a change posts is
// worked out from the entries posted before it, and what is owed is the sum of the entries.
//
// - A contract version posts its charges when both have signed it. The lease: for each billing
//   period (./periods.ts) a charge (type initial for the first period, rent for the others) of rent,
//   pet rent and utilities for its nights, the first with the one-off fees and the deposits. The
//   first period is billed whole: its entries cover the whole month even when the signed stay ends a
//   night before it does. An extension's addendum: one charge (type extension) for its added nights,
//   an entry per billing period of the stay they fall in.
// - Nights are priced by one rule: the first n nights of a billing period of D days cost
//   round(monthly * n / D); a range of nights costs the difference of two such prefixes. So a period
//   cut by a shortening and joined again by an extension adds up to the cent, and every night is
//   charged at the monthly amount of the version that signed it.
// - A shortening releases the nights after the new move-out from every entry still charging them
//   (a credit on the charge they were in: where that charge was paid, the payer is owed it back).
// - An extension first restores nights released before (at the price they were signed at, on the
//   charge they were released from), then charges the nights no version signed yet on its own charge.
// - A lapsed extension releases its nights (those it restored too) and moves back what it moved; a
//   cancellation before move-in reverses everything the stay still charges, one after move-in
//   releases the nights from the day it takes effect. Nights released that an extension had taken
//   back beyond what was settled for them move back off the extension's charge with them.
// - Money that moves is an entry too: a payment lowers what its payer owes on each part it paid
//   (kind payment), a refund raises it again on each part it returns (kind refund). So, per charge
//   and part, what is owed is the sum of its entries, and what was settled is its payments less its
//   refunds: nothing is read from the processor's payment rows. A refund of a deposit, or beyond
//   what is owed back (goodwill), also releases what it gives, so it never makes anything due again.
// - The service's fee moves too (kind fee), between the landlord's rent and the service: taken when
//   a payment settles, returned with the rent a refund returns. It is no payer's: nothing a payer
//   owes or paid counts it.
// - Each entry moves its amount from one account of the stay to another (debit and credit
//   accounts, app.ledger_balances): a payer's part, the landlord's, deposits held, the processor,
//   the service fee. So every posting balances, and a balance is a sum.

export type EntryKind = 'charge' | 'release' | 'restore' | 'reversal' | 'transfer' | 'payment' | 'refund' | 'fee';
export type EntryCause = 'signed' | 'shortened' | 'extended' | 'lapsed' | 'cancelled' | 'paid' | 'refunded' | 'duplicate' | 'deposit_returned' | 'goodwill';

/** An entry to post. */
export interface NewEntry {
  leaseId: string;
  chargeType: ChargeType;
  periodStart: string;
  part: ChargePart;
  line: string;
  kind: EntryKind;
  cause: EntryCause;
  adjusts: string | null;
  /** The contract version whose signing posted the entry: its own charges, and what an extension restored or moved; null for a release or reversal. */
  postedFor: string | null;
  /** Nights [from, to), or null for a one-off fee or a deposit. */
  nights: { from: string; to: string } | null;
  /** What the nights were priced from: the monthly amount and the billing period. */
  basis: { monthlyCents: number; billingStart: string; billingDays: number } | null;
  /** Positive: owed by the part's payer; negative: given back to it, or paid by it. */
  amountCents: number;
  /** A payment or refund: who paid or was refunded, and on which processor payment. */
  payer?: Payer | null;
  paymentId?: string | null;
  /** A refund, and the release of a deposit returned or of goodwill: the refund request it belongs to. */
  refundRequestId?: string | null;
}

/** The accounts of a stay an entry moves its amount between (double entry; the database derives them from kind and part). */
export type Account = `payer_${ChargePart}` | 'landlord_rent' | 'landlord_fees' | 'deposits_held' | 'processor' | 'service_fee';

/** A posted entry. */
export interface Entry extends NewEntry {
  /** It debits this account with its amount, and credits creditAccount. */
  debitAccount: Account;
  creditAccount: Account;
  id: string;
  position: number;
  postedAt: Date;
  /** The day it was posted on the organisation's clock (YYYY-MM-DD): the day of the change that posted it. */
  postedOn: string;
}

/** The price of the first `nights` nights of a billing period. */
const prefix = (monthlyCents: number, billingDays: number, nights: number) => Math.round((monthlyCents * nights) / billingDays);

/** The price of the nights [from, to) of an entry's billing period, at its monthly amount. */
function priceNights(basis: NonNullable<NewEntry['basis']>, from: string, to: string): number {
  const at = (day: string) => prefix(basis.monthlyCents, basis.billingDays, daysBetween(basis.billingStart, day));
  return at(to) - at(from);
}

/** The monthly lines of a stay: each night-priced amount with its part. */
const monthlyLines = (p: PriceCents) => [
  { line: 'Rent', part: 'rent' as const, monthlyCents: p.rentTier },
  { line: 'Pet rent', part: 'fees' as const, monthlyCents: p.petRent },
  { line: 'Utilities', part: 'fees' as const, monthlyCents: p.utilities },
];

/** The one-off fees and deposits of the first payment. */
const firstPaymentLines = (p: PriceCents) => [
  { line: 'Cleaning fee', part: 'fees' as const, cents: p.cleaningFee },
  { line: 'Application fee', part: 'fees' as const, cents: p.applicationFee },
  { line: 'Pet fee', part: 'fees' as const, cents: p.petFee },
  { line: 'Security deposit (refundable)', part: 'deposit' as const, cents: p.securityDeposit },
  { line: 'Pet deposit (refundable)', part: 'deposit' as const, cents: p.petDeposit },
];

/** Entries for the nights [from, to) of a billing period, one per monthly line with money in it. */
function nightEntries(p: PriceCents, period: BillingPeriod, from: string, to: string, charge: Pick<NewEntry, 'leaseId' | 'chargeType' | 'periodStart' | 'kind' | 'cause' | 'adjusts' | 'postedFor'>): NewEntry[] {
  const billingStart = period.start;
  const billingDays = period.share.full;
  return monthlyLines(p)
    .filter((l) => l.monthlyCents > 0)
    .map((l) => {
      const basis = { monthlyCents: l.monthlyCents, billingStart, billingDays };
      return { ...charge, part: l.part, line: l.line, nights: { from, to }, basis, amountCents: priceNights(basis, from, to) };
    });
}

/** The day after a period's last day: where the period's whole month ends. */
const wholeEnd = (period: BillingPeriod) => addDays(period.start, period.share.full);

/** What a lease signed by both posts: every billing period of its stay, at its signed prices. */
export function leaseCharges(leaseId: string, p: PriceCents, stay: { moveIn: string; moveOut: string }): NewEntry[] {
  const entries: NewEntry[] = [];
  for (const period of billingPeriods(stay.moveIn, stay.moveOut)) {
    const first = period.index === 0;
    const charge = { leaseId, chargeType: (first ? 'initial' : 'rent') as ChargeType, periodStart: period.start, kind: 'charge' as const, cause: 'signed' as const, adjusts: null, postedFor: leaseId };
    // The first month is billed whole, even for a stay that ends before it does.
    entries.push(...nightEntries(p, period, period.start, first ? wholeEnd(period) : addDays(period.end, 1), charge));
    if (first) {
      for (const fee of firstPaymentLines(p).filter((f) => f.cents > 0)) {
        entries.push({ ...charge, part: fee.part, line: fee.line, nights: null, basis: null, amountCents: fee.cents });
      }
    }
  }
  return entries;
}

/** A charge entry with nights, and the nights of it still charged: [nights.from, chargedTo). */
interface NightCharge {
  entry: Entry;
  chargedTo: string;
  /** How its charged nights last changed: a reversal is final; nights released (and not yet restored) may come back. */
  last: EntryKind;
}

/** Every charge entry for nights, with the nights it still charges after the entries adjusting it. */
function nightCharges(entries: readonly Entry[]): NightCharge[] {
  const byId = new Map<string, NightCharge>();
  for (const entry of [...entries].sort((a, b) => a.position - b.position)) {
    if (!entry.nights) continue;
    if (entry.kind === 'charge') {
      byId.set(entry.id, { entry, chargedTo: entry.nights.to, last: 'charge' });
      continue;
    }
    const target = byId.get(entry.adjusts!);
    if (!target) continue;
    // A release or reversal gives back a tail of the charged nights; a restore takes back a head of those given back.
    target.chargedTo = entry.kind === 'restore' ? entry.nights.to : entry.nights.from;
    target.last = entry.kind;
  }
  return [...byId.values()];
}

/** The adjustment of a night charge over [from, to): negative for release and reversal, positive for a restore (posted for its addendum). */
function adjustment(c: NightCharge, kind: EntryKind, cause: EntryCause, from: string, to: string, postedFor: string | null = null): NewEntry {
  const cents = priceNights(c.entry.basis!, from, to);
  return {
    ...c.entry,
    kind,
    cause,
    adjusts: c.entry.id,
    postedFor,
    nights: { from, to },
    amountCents: kind === 'restore' ? cents : -cents,
  };
}

/**
 * A shortening to `moveOut`: the nights from it on are released from every charge still holding
 * them. Where an extension had moved nights of a charge onto its own (restored beyond what was
 * settled for them), those nights go first, and what was moved comes back off the extension's charge.
 */
export function shorteningEntries(entries: readonly Entry[], moveOut: string, cause: EntryCause = 'shortened'): NewEntry[] {
  const released: NewEntry[] = [];
  const moved = outstandingTransfers(entries);
  for (const c of nightCharges(entries)) {
    // From the new move-out, or the entry's first night when all its nights come after it; nothing when none is still charged.
    const from = c.entry.nights!.from > moveOut ? c.entry.nights!.from : moveOut;
    if (c.chargedTo <= from) continue;
    const release = adjustment(c, 'release', cause, from, c.chargedTo);
    released.push(release, ...transfersBack(moved, c.entry.id, -release.amountCents, cause));
  }
  return released;
}

/** The side of a transfer that lands on the extension's own charge (the other leaves the charge whose nights it restored). */
const onExtensionsCharge = (e: NewEntry) => e.leaseId === e.postedFor && e.chargeType === 'extension';

/** What one extension moved off one charge entry and has not moved back, with a side of each as posted. */
interface OpenTransfer {
  source: NewEntry;
  own: NewEntry;
  cents: number;
}

/** Every transfer still open, the latest first: by charge entry and extension, summed over the pairs posted for them. */
function outstandingTransfers(entries: readonly NewEntry[]): OpenTransfer[] {
  const byPair = new Map<string, { source?: NewEntry; own?: NewEntry; cents: number; last: number }>();
  entries.forEach((e, at) => {
    if (e.kind !== 'transfer') return;
    const key = `${e.adjusts}|${e.postedFor}`;
    const pair = byPair.get(key) ?? { cents: 0, last: at };
    if (onExtensionsCharge(e)) pair.own ??= e;
    else {
      pair.source ??= e;
      pair.cents -= e.amountCents;
    }
    pair.last = at;
    byPair.set(key, pair);
  });
  return [...byPair.values()]
    .sort((a, b) => b.last - a.last)
    .flatMap((p) => (p.source && p.own && p.cents > 0 ? [{ source: p.source, own: p.own, cents: p.cents }] : []));
}

/** Moves back up to `cents` of what extensions moved off the charge entry `adjusts`, the latest first (and counts it moved). */
function transfersBack(open: OpenTransfer[], adjusts: string, cents: number, cause: EntryCause): NewEntry[] {
  const back: NewEntry[] = [];
  for (const t of open.filter((o) => o.source.adjusts === adjusts)) {
    const moved = Math.min(cents, t.cents);
    if (moved <= 0) break;
    back.push({ ...t.source, cause, amountCents: moved }, { ...t.own, cause, amountCents: -moved });
    t.cents -= moved;
    cents -= moved;
  }
  return back;
}

/**
 * An extension of the stay from `from` to `to`, signed under `addendumId` at prices `p` (the
 * extended stay's tier) for a stay that moved in on `moveIn`: nights released before are restored
 * where they were signed, and the nights beyond every version's signed nights are charged anew on
 * the extension's own charge. A part of a charge is paid once: where a restore would put more on a
 * part already paid (`paid`) than was paid for it, the excess moves to the extension's charge (a
 * transfer out of the one, into the other), so the payer pays it with the extension.
 */
export function extensionEntries(entries: readonly Entry[], addendumId: string, p: PriceCents, moveIn: string, from: string, to: string): NewEntry[] {
  const posted: NewEntry[] = [];
  // The extension's own charge is keyed by the first night it bills of its own (the day after every
  // night a version signed before), so its period_start says the nights it is for; one that only
  // takes nights back (its charge then carries transfers alone) is keyed by its first night.
  const signedBefore = nightCharges(entries).reduce((end, c) => (c.entry.nights!.to > end ? c.entry.nights!.to : end), from);
  const own = { leaseId: addendumId, chargeType: 'extension' as const, periodStart: signedBefore < to ? signedBefore : from, cause: 'signed' as const, postedFor: addendumId };
  // What each paid part of a charge has settled (paid less refunded) beyond what it holds now: room
  // for restores it already paid for. A refund takes its amount out of that room.
  const nets = new Map(chargesOf(entries).map((charge) => [chargeKey(charge), charge.net]));
  const settled = settlementsOf(entries);
  const room = (key: string, part: ChargePart) => {
    const was = settled.get(key);
    return was && was.paid[part] > 0 ? settledCents(was, part) - (nets.get(key)?.[part] ?? 0) : Infinity;
  };
  let signedTo = from;
  for (const c of nightCharges(entries)) {
    if (c.entry.nights!.to > signedTo) signedTo = c.entry.nights!.to;
    // Released nights from the stay's end on come back at their signed price (a reversal is final).
    if (c.last === 'reversal' || c.chargedTo < from || c.chargedTo >= to || c.chargedTo >= c.entry.nights!.to) continue;
    const restore = adjustment(c, 'restore', 'extended', c.chargedTo, c.entry.nights!.to < to ? c.entry.nights!.to : to, addendumId);
    posted.push(restore);
    const key = chargeKey(c.entry);
    const excess = restore.amountCents - Math.max(0, room(key, c.entry.part));
    nets.set(key, { ...(nets.get(key) ?? { rent: 0, deposit: 0, fees: 0 }), [c.entry.part]: (nets.get(key)?.[c.entry.part] ?? 0) + restore.amountCents });
    if (excess > 0) {
      const moved = { part: c.entry.part, line: `${c.entry.line}, nights taken back`, kind: 'transfer' as const, adjusts: c.entry.id, nights: null, basis: null };
      posted.push({ ...c.entry, ...moved, cause: 'extended', postedFor: addendumId, amountCents: -excess });
      posted.push({ ...own, ...moved, cause: 'extended', amountCents: excess });
      nets.set(key, { ...nets.get(key)!, [c.entry.part]: nets.get(key)![c.entry.part] - excess });
    }
  }
  for (const period of billingPeriods(moveIn, to)) {
    const start = period.start > signedTo ? period.start : signedTo;
    const end = addDays(period.end, 1);
    if (start < end) posted.push(...nightEntries(p, period, start, end, { ...own, kind: 'charge', adjusts: null }));
  }
  return posted;
}

/**
 * Transfers back what the extensions `addendumIds` moved between charges and have not moved back
 * (it lapsed, or the stay was cancelled before move-in). `entries` includes what the same change
 * posts before it, so nothing moves back twice.
 */
export function transferReversals(entries: readonly NewEntry[], cause: EntryCause, addendumIds: ReadonlySet<string>): NewEntry[] {
  return outstandingTransfers(entries)
    .filter((t) => addendumIds.has(t.source.postedFor!))
    .flatMap((t) => [{ ...t.source, cause, amountCents: t.cents }, { ...t.own, cause, amountCents: -t.cents }]);
}

/** What is left of each one-off fee or deposit charged (a cancellation may have reversed it, a refund returned part of a deposit). */
export function flatChargesLeft(entries: readonly Entry[]): { entry: Entry; cents: number }[] {
  const left = new Map<string, { entry: Entry; cents: number }>();
  for (const e of entries) {
    if (e.kind === 'charge' && !e.nights) left.set(e.id, { entry: e, cents: e.amountCents });
    else if (e.adjusts && left.has(e.adjusts)) left.get(e.adjusts)!.cents += e.amountCents;
  }
  return [...left.values()];
}

/**
 * A reversal of everything the stay's charges still hold (a cancellation before move-in): each part
 * of each charge is reversed by what it holds, entry by entry, so the stay charges nothing once
 * cancelled. A part holds less than its entries' nights and fees where a goodwill refund released
 * some of it (goodwill is given on a part as a whole), and nothing where goodwill already took more
 * than the nights it kept: that part is not reversed further.
 */
export function reversalEntries(entries: readonly Entry[], cause: EntryCause): NewEntry[] {
  const reversed: NewEntry[] = [];
  const holds = new Map<string, number>(chargesOf(entries).flatMap((c) => chargeParts.map((part) => [`${chargeKey(c)}|${part}`, Math.max(0, c.net[part])] as const)));
  /** Takes up to `cents` off what the entry's part still holds, and answers what it took. */
  const take = (entry: Entry, cents: number) => {
    const key = `${chargeKey(entry)}|${entry.part}`;
    const taken = Math.min(cents, holds.get(key) ?? 0);
    holds.set(key, (holds.get(key) ?? 0) - taken);
    return taken;
  };
  for (const c of nightCharges(entries)) {
    if (c.chargedTo <= c.entry.nights!.from) continue;
    const reversal = adjustment(c, 'reversal', cause, c.entry.nights!.from, c.chargedTo);
    const taken = take(c.entry, -reversal.amountCents);
    if (taken > 0) reversed.push({ ...reversal, amountCents: -taken });
  }
  for (const { entry, cents } of flatChargesLeft(entries)) {
    const taken = cents > 0 ? take(entry, cents) : 0;
    if (taken > 0) reversed.push({ ...entry, kind: 'reversal', cause, adjusts: entry.id, postedFor: null, amountCents: -taken });
  }
  // A part goodwill took below nothing (more than the nights it kept): that much of the goodwill's
  // releases is reversed, the latest first, so the part charges 0; what its payer settled is owed back.
  for (const c of chargesOf(entries)) {
    for (const part of chargeParts) {
      let below = -c.net[part];
      const releases = entries.filter((e) => e.kind === 'release' && e.cause === 'goodwill' && e.part === part && chargeKey(e) === chargeKey(c)).reverse();
      for (const release of releases) {
        const back = Math.min(below, -release.amountCents);
        if (back <= 0) break;
        reversed.push({ ...release, kind: 'reversal', cause, adjusts: release.id, postedFor: null, refundRequestId: null, amountCents: back });
        below -= back;
      }
    }
  }
  return reversed;
}

/** Where a charge is: the version, its type and the first day of the period it bills (as payments name it). */
export interface ChargeKey {
  leaseId: string;
  chargeType: ChargeType;
  periodStart: string;
}

export const chargeKey = (c: ChargeKey) => `${c.leaseId}|${c.chargeType}|${c.periodStart}`;

/** A charge as the ledger now holds it: the sum of its entries, by line and by part. */
export interface LedgerCharge extends DueCharge {
  leaseId: string;
  /** The sum of the charge's entries by part: negative where more was given back than charged. */
  net: Record<ChargePart, number>;
}

const typeOrder: Record<ChargeType, number> = { extension: 0, initial: 1, rent: 2 };

/** The stay's charges (sum of their entries), in the order they are paid: extensions first, then the first payment, then rent by period. */
export function chargesOf(entries: readonly NewEntry[]): LedgerCharge[] {
  const byKey = new Map<string, { key: ChargeKey; entries: NewEntry[] }>();
  for (const entry of entries.filter(isCharge)) {
    const key = chargeKey(entry);
    if (!byKey.has(key)) byKey.set(key, { key: { leaseId: entry.leaseId, chargeType: entry.chargeType, periodStart: entry.periodStart }, entries: [] });
    byKey.get(key)!.entries.push(entry);
  }
  return [...byKey.values()]
    .map(({ key, entries: own }) => chargeOfEntries(key, own))
    .sort((a, b) => typeOrder[a.chargeType] - typeOrder[b.chargeType] || a.periodStart.localeCompare(b.periodStart) || a.leaseId.localeCompare(b.leaseId));
}

/** Which rent a line is, for a rent line billed by the month: the household's pages word it from this. */
function rentBasisOf(key: ChargeKey, line: string, nights: number, billingDays: number | null): RentBasis | undefined {
  if (line !== 'Rent' || billingDays === null) return undefined;
  if (key.chargeType === 'extension') return { kind: 'added', nights };
  if (key.chargeType === 'initial' && nights >= billingDays) return { kind: 'firstMonth' };
  return nights < billingDays ? { kind: 'partial', nights, days: billingDays } : { kind: 'month' };
}

/** A line's label as the payer reads it, in English as the API answers (the household's pages word it in its language from the same basis). */
function labelOf(line: string, rent: RentBasis | undefined): string {
  const words = en.pay.rent;
  if (!rent) return line;
  switch (rent.kind) {
    case 'added': return words.added(String(rent.nights));
    case 'partial': return words.partial(String(rent.nights), String(rent.days));
    default: return words[rent.kind];
  }
}

const nightsOf = (entry: NewEntry) =>
  entry.nights ? daysBetween(entry.nights.from, entry.nights.to) * (entry.kind === 'charge' || entry.kind === 'restore' ? 1 : -1) : 0;

function chargeOfEntries(key: ChargeKey, entries: NewEntry[]): LedgerCharge {
  const lines = new Map<string, { part: ChargePart; cents: number; nights: number; billingDays: number | null }>();
  const parts: Record<ChargePart, number> = { rent: 0, deposit: 0, fees: 0 };
  let nightsTo: string | null = null;
  for (const entry of entries) {
    const line = lines.get(entry.line) ?? { part: entry.part, cents: 0, nights: 0, billingDays: entry.basis?.billingDays ?? null };
    line.cents += entry.amountCents;
    line.nights += nightsOf(entry);
    lines.set(entry.line, line);
    parts[entry.part] += entry.amountCents;
    if (entry.nights && entry.kind === 'charge' && (!nightsTo || entry.nights.to > nightsTo)) nightsTo = entry.nights.to;
  }
  const amounts = { rentCents: Math.max(0, parts.rent), depositCents: Math.max(0, parts.deposit), feesCents: Math.max(0, parts.fees) };
  const periodEnd = nightsTo ? addDays(nightsTo, -1) : key.periodStart;
  return {
    leaseId: key.leaseId,
    net: parts,
    chargeType: key.chargeType,
    periodStart: key.periodStart,
    periodEnd,
    title: key.chargeType === 'initial' ? 'First payment'
      : key.chargeType === 'extension' ? `Extension from ${key.periodStart} to ${periodEnd}` : `Rent from ${key.periodStart} to ${periodEnd}`,
    lines: [...lines].filter(([, line]) => line.cents > 0)
      .map(([name, line]): ChargeLine => {
        const rent = rentBasisOf(key, name, line.nights, line.billingDays);
        return { label: labelOf(name, rent), cents: line.cents, part: line.part, line: name, ...(rent ? { rent } : {}) };
      }),
    ...amounts,
    split: splitCharge(amounts),
  };
}

/** Each account's balance over the entries (debits less credits), in a fixed order: they sum to 0. */
export function accountBalances(entries: readonly Entry[]): { account: Account; cents: number }[] {
  const order: Account[] = ['payer_rent', 'payer_fees', 'payer_deposit', 'landlord_rent', 'landlord_fees', 'deposits_held', 'processor', 'service_fee'];
  const balance = new Map<Account, number>(order.map((a) => [a, 0]));
  for (const e of entries) {
    balance.set(e.debitAccount, balance.get(e.debitAccount)! + e.amountCents);
    balance.set(e.creditAccount, balance.get(e.creditAccount)! - e.amountCents);
  }
  return order.filter((a) => entries.some((e) => e.debitAccount === a || e.creditAccount === a)).map((account) => ({ account, cents: balance.get(account)! }));
}

/** A payment or a refund: money that moved between a payer and the landlord, not a charge. */
export const isSettlement = (e: Pick<NewEntry, 'kind'>) => e.kind === 'payment' || e.kind === 'refund';

/** What a payer is charged (a charge and its changes): neither money that moved nor the service's fee. */
export const isCharge = (e: Pick<NewEntry, 'kind'>) => !isSettlement(e) && e.kind !== 'fee';

/** What was paid and refunded on each part of a charge, and who paid each part. */
export interface Settled {
  paid: Record<ChargePart, number>;
  refunded: Record<ChargePart, number>;
  payer: Partial<Record<ChargePart, Payer>>;
}

/** What was settled of each charge, keyed by chargeKey. */
export type SettledByCharge = ReadonlyMap<string, Settled>;

const noParts = (): Record<ChargePart, number> => ({ rent: 0, deposit: 0, fees: 0 });

/** What the payments and refunds posted settled of each charge; a duplicate charge and its automatic refund count for nothing. */
export function settlementsOf(entries: readonly NewEntry[]): SettledByCharge {
  const byKey = new Map<string, Settled>();
  for (const e of entries) {
    if (!isSettlement(e) || e.cause === 'duplicate') continue;
    const key = chargeKey(e);
    const own = byKey.get(key) ?? byKey.set(key, { paid: noParts(), refunded: noParts(), payer: {} }).get(key)!;
    if (e.kind === 'payment') {
      own.paid[e.part] -= e.amountCents;
      own.payer[e.part] = e.payer!;
    } else own.refunded[e.part] += e.amountCents;
  }
  return byKey;
}

/** What a part holds of its payer's money: paid less refunded. */
export const settledCents = (own: Settled, part: ChargePart) => own.paid[part] - own.refunded[part];

/** The parts of a charge with money in them that no settled payment paid. */
export function unpaidPartsOf(charge: LedgerCharge, settled: SettledByCharge): ChargePart[] {
  const own = settled.get(chargeKey(charge));
  return chargeParts.filter((part) => partCents(charge, part) > 0 && !(own && own.paid[part] > 0));
}

/** The shares of a charge still to pay, one per payer of its unpaid parts. */
export function sharesDue(charge: LedgerCharge, payers: PayerOf, settled: SettledByCharge): ChargeShare[] {
  const covered = new Set(chargeParts.filter((part) => !unpaidPartsOf(charge, settled).includes(part)));
  return unpaidShares(charge, payers, covered);
}

/**
 * The charge due now: the first, in the order charges are paid, with a part no settled payment
 * paid; a rent period only from its first day (the first payment and an extension at once). Null
 * when everything due so far is paid.
 */
export function chargeDueNow(charges: readonly LedgerCharge[], settled: SettledByCharge, today: string): LedgerCharge | null {
  const charge = charges.find((c) => unpaidPartsOf(c, settled).length > 0);
  return !charge || (charge.chargeType === 'rent' && charge.periodStart > today) ? null : charge;
}

/**
 * What is owed back on a charge, by part: what its payer settled for a part (paid less refunded)
 * beyond what the charge now holds (nights released or reversed after they were paid).
 */
export function overpaidOf(charge: LedgerCharge, settled: SettledByCharge): Record<ChargePart, number> {
  const own = settled.get(chargeKey(charge));
  const over = (part: ChargePart) => (own ? Math.max(0, settledCents(own, part) - Math.max(0, charge.net[part])) : 0);
  return { rent: over('rent'), deposit: over('deposit'), fees: over('fees') };
}

/** What is owed back over all the charges. */
export const overpaidTotal = (charges: readonly LedgerCharge[], settled: SettledByCharge) =>
  charges.reduce((sum, charge) => sum + Object.values(overpaidOf(charge, settled)).reduce((a, b) => a + b, 0), 0);
