import { chargeParts, type ChargePart, type Payer } from './billing.ts';
import {
  chargeKey, chargesOf, flatChargesLeft, isSettlement, overpaidOf, settledCents, settlementsOf, type ChargeKey, type Entry, type LedgerCharge, type NewEntry,
} from './ledger.ts';

// What a refund returns, as entries of the stay's ledger (./ledger.ts). A refund says what it is
// for: what is owed back to its payer (what the payer settled for parts beyond what the stay now
// charges: nights released, a cancellation), or the deposits the stay holds of that payer. Beyond
// either, only a goodwill refund returns more, and it releases what it gives, so nothing it returns
// is ever due again. Pure functions over the posted entries; the command posts them (./commands/refunds.ts).

export type RefundPurpose = 'owed_back' | 'deposit';

/** A part of a charge a refund can return, and how much of it. */
export interface Returnable {
  charge: LedgerCharge;
  part: ChargePart;
  cents: number;
}

export const totalOf = (parts: readonly Returnable[]) => parts.reduce((sum, p) => sum + p.cents, 0);

/** Charges in the order a refund takes from them: the charge `first` (the refunded payment's) first, then in paying order. */
function refundOrder(charges: LedgerCharge[], first: ChargeKey | null): LedgerCharge[] {
  const key = first ? chargeKey(first) : null;
  return [...charges.filter((c) => chargeKey(c) === key), ...charges.filter((c) => chargeKey(c) !== key)];
}

/** What is owed back to `payer`, part by part. */
export function owedBackTo(entries: readonly NewEntry[], payer: Payer, first: ChargeKey | null = null): Returnable[] {
  const settled = settlementsOf(entries);
  return refundOrder(chargesOf(entries), first).flatMap((charge) => {
    const over = overpaidOf(charge, settled);
    const own = settled.get(chargeKey(charge));
    return chargeParts.filter((part) => over[part] > 0 && own?.payer[part] === payer).map((part) => ({ charge, part, cents: over[part] }));
  });
}

/** The deposits `payer` paid that the stay still holds (paid, less refunded, up to what the charge still holds), charge by charge. */
export function depositsHeldFor(entries: readonly NewEntry[], payer: Payer, first: ChargeKey | null = null): Returnable[] {
  const settled = settlementsOf(entries);
  return refundOrder(chargesOf(entries), first).flatMap((charge) => {
    const own = settled.get(chargeKey(charge));
    if (own?.payer.deposit !== payer) return [];
    const held = Math.min(settledCents(own, 'deposit'), Math.max(0, charge.net.deposit));
    return held > 0 ? [{ charge, part: 'deposit' as const, cents: held }] : [];
  });
}

/** What a refund for `purpose` can return to `payer`, part by part, the charge `first` first. */
export const returnableFor = (entries: readonly NewEntry[], purpose: RefundPurpose, payer: Payer, first: ChargeKey | null = null) =>
  (purpose === 'deposit' ? depositsHeldFor : owedBackTo)(entries, payer, first);

/** What is left to refund on a payment: what its entries paid, less the refunds posted on it. */
export const leftOnPayment = (entries: readonly NewEntry[], paymentId: string) =>
  -entries.filter((e) => isSettlement(e) && e.paymentId === paymentId).reduce((sum, e) => sum + e.amountCents, 0);

/** What is left to refund on a payment of each part: what it paid of the part, less the refunds posted on it of that part. */
function leftOnPaymentByPart(entries: readonly NewEntry[], paymentId: string): Record<ChargePart, number> {
  const left: Record<ChargePart, number> = { rent: 0, deposit: 0, fees: 0 };
  for (const e of entries) if (isSettlement(e) && e.paymentId === paymentId) left[e.part] -= e.amountCents;
  return left;
}

/**
 * What a refund on the payment `paymentId` can return to `payer` for `purpose`, part by part, the
 * payment's own charge first: money goes back on the payment that brought it, so each part returns
 * at most what that payment paid of it and has not had back (what is owed back on a part another
 * payment paid goes back on that one, by a request of its own).
 */
export function returnableOn(entries: readonly NewEntry[], purpose: RefundPurpose, payer: Payer, paymentId: string, first: ChargeKey): Returnable[] {
  const room = leftOnPaymentByPart(entries, paymentId);
  return returnableFor(entries, purpose, payer, first).flatMap((r) => {
    const cents = Math.min(r.cents, room[r.part]);
    room[r.part] -= cents;
    return cents > 0 ? [{ ...r, cents }] : [];
  });
}

export interface RefundAsk {
  purpose: RefundPurpose;
  payer: Payer;
  cents: number;
  goodwill: boolean;
  /** The processor payment the money goes back on, and the charge it paid (taken from first). */
  paymentId: string;
  first: ChargeKey;
  refundRequestId: string;
}

/**
 * The entries a refund posts: one refund entry per part it returns (what is owed back or the
 * deposits held, by its purpose; a deposit returned also releases the deposit), and, for a
 * goodwill refund, what it gives beyond that from the refunded payment's own charge, released as
 * goodwill. Answers fewer cents than asked when there is not that much to return.
 */
export function refundEntries(entries: readonly Entry[], ask: RefundAsk): NewEntry[] {
  const posted: NewEntry[] = [];
  let left = ask.cents;
  const settlement = { kind: 'refund' as const, cause: 'refunded' as const, adjusts: null, postedFor: null, nights: null, basis: null, payer: ask.payer, paymentId: ask.paymentId, refundRequestId: ask.refundRequestId };
  const refund = (charge: LedgerCharge, part: ChargePart, cents: number): NewEntry =>
    ({ ...settlement, leaseId: charge.leaseId, chargeType: charge.chargeType, periodStart: charge.periodStart, part, line: 'Refund', amountCents: cents });
  const release = (of: Entry, cents: number, cause: 'deposit_returned' | 'goodwill', line: string): NewEntry =>
    ({ ...of, kind: 'release', cause, adjusts: of.id, postedFor: null, nights: null, basis: null, line, amountCents: -cents, refundRequestId: ask.refundRequestId });

  const returnable = returnableOn(entries, ask.purpose, ask.payer, ask.paymentId, ask.first);
  const deposits = flatChargesLeft(entries).filter((d) => d.entry.part === 'deposit' && d.cents > 0);
  for (const r of returnable) {
    const cents = Math.min(left, r.cents);
    if (cents <= 0) break;
    posted.push(refund(r.charge, r.part, cents));
    left -= cents;
    if (ask.purpose !== 'deposit') continue;
    // The deposit comes back: the charge no longer holds it, line by line.
    let toRelease = cents;
    for (const d of deposits.filter((d) => chargeKey(d.entry) === chargeKey(r.charge))) {
      const cut = Math.min(toRelease, d.cents);
      if (cut <= 0) continue;
      posted.push(release(d.entry, cut, 'deposit_returned', d.entry.line));
      d.cents -= cut;
      toRelease -= cut;
    }
  }
  if (left > 0 && ask.goodwill) posted.push(...goodwillEntries(entries, ask, left, posted, refund, release));
  return oneRefundPerPart(posted);
}

/**
 * A request refunds each part of a charge in one entry (the ledger keeps one per request, charge and
 * part): goodwill from a part that also returned what was owed back adds to that part's entry, or
 * the second entry would not be posted and the refund would return less than it was approved for.
 */
function oneRefundPerPart(posted: NewEntry[]): NewEntry[] {
  const out: NewEntry[] = [];
  for (const e of posted) {
    const same = e.kind === 'refund' ? out.find((o) => o.kind === 'refund' && chargeKey(o) === chargeKey(e) && o.part === e.part) : undefined;
    if (same) same.amountCents += e.amountCents;
    else out.push({ ...e });
  }
  return out;
}

/** Goodwill beyond what the purpose returns: from the refunded payment's own charge, rent, then fees, then deposits, up to what each still holds of the payer's money. */
function goodwillEntries(
  entries: readonly Entry[], ask: RefundAsk, cents: number, already: readonly NewEntry[],
  refund: (charge: LedgerCharge, part: ChargePart, cents: number) => NewEntry,
  release: (of: Entry, cents: number, cause: 'goodwill', line: string) => NewEntry,
): NewEntry[] {
  const key = chargeKey(ask.first);
  const charge = chargesOf(entries).find((c) => chargeKey(c) === key);
  const own = settlementsOf([...entries, ...already]).get(key);
  if (!charge || !own) return [];
  const posted: NewEntry[] = [];
  const room = leftOnPaymentByPart([...entries, ...already], ask.paymentId);
  for (const part of ['rent', 'fees', 'deposit'] as const) {
    // Goodwill is given on the part as a whole (the reversal of a cancellation reads the part's
    // sum); its release names one charge entry of the part, one this refund has not released yet
    // (a deposit returned by the same refund), as the ledger keeps one release per refund and entry.
    const released = new Set(already.filter((e) => e.kind === 'release').map((e) => e.adjusts));
    const anchor = entries.find((e) => e.kind === 'charge' && e.part === part && chargeKey(e) === key && !released.has(e.id));
    const cut = Math.min(cents, room[part], own.payer[part] === ask.payer ? settledCents(own, part) : 0);
    if (!anchor || cut <= 0) continue;
    posted.push(refund(charge, part, cut), release(anchor, cut, 'goodwill', 'Goodwill'));
    cents -= cut;
  }
  return posted;
}
