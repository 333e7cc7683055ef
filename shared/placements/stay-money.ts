import type { Tx } from '../db/client.ts';
import type { ClaimRow } from '../claims/repository.ts';
import { tenantNow, utcDay } from '../clock/time.ts';
import { chargeParts, payerOf, type ChargePart, type ChargeShare, type Payer, type PayerOf } from './billing.ts';
import {
  accountBalances, chargeDueNow, chargeKey, chargesOf, isCharge, isSettlement, overpaidOf, settlementsOf, sharesDue, unpaidPartsOf,
  type Account, type ChargeKey, type Entry, type LedgerCharge, type NewEntry,
} from './ledger.ts';
import { ledgerOf, type Ledger } from './stay-ledger.ts';
import type { OptionRow } from './option-repository.ts';

// Reading the ledger's entries and a charge's key, for the commands that name a charge or a payment.
export { chargeKey, isSettlement } from './ledger.ts';
export { extensionCharge, ledgerOf } from './stay-ledger.ts';
export { refundedBy, refundSumsOfRequestR } from './ledger-repository.ts';
export { leftOnPayment, returnableFor, returnableOn, totalOf, type RefundPurpose, type Returnable } from './ledger-refunds.ts';

// The money of a stay, read. This is the one entrance through which everything that shows or checks
// an amount reads it: what is due now and the checkout's amount, the statement, the refund cap and
// its default, the household and pay pages, an extension's budget and amount, the budget review of
// a signed stay. Every figure is a sum of the stay's posted entries (./ledger.ts); reading never
// posts (./stay-ledger.ts posts, in the commands that change the stay or move its money).
//
// The money module is this file with ./ledger.ts, ./ledger-refunds.ts, ./ledger-repository.ts and
// ./stay-ledger.ts: nothing outside it computes an amount owed, paid or refunded, or sums the
// ledger's entries (tests/foundation/money-module.test.ts holds it).

/** A payer's figures (or all payers'), in cents. */
export interface Totals {
  /** Every entry but payments, refunds and the service fee: what the stay costs as it now stands, deposits included. */
  charged: number;
  paid: number;
  refunded: number;
  due_now: number;
  refund_due: number;
  billed: number;
  scheduled: number;
  deposits_held: number;
  deposits_returned: number;
}

const zero = (): Totals => ({ charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0, billed: 0, scheduled: 0, deposits_held: 0, deposits_returned: 0 });

/** A charge of the ledger with something left to pay, and the shares of it still unpaid (at least one). */
export interface Due {
  charge: LedgerCharge;
  shares: ChargeShare[];
}

/** An entry a payer reads (not the service fee: that moves between the landlord and the service), with its payer's running balance. */
export interface PayerLine {
  entry: Entry;
  /** Its index in the ledger's entries (the statement reads the entry after a refund for what it returned). */
  at: number;
  payer: Payer;
  /** What the payer owes after it, over its entries up to this one (a duplicate charge and its refund move nothing). */
  balanceAfter: number;
  /** A charge, or a change of one, for a rent period that begins after today: scheduled, not billed yet. */
  scheduled: boolean;
}

export interface StayMoney {
  ledger: Ledger;
  today: string;
  /** The charge due now and its unpaid shares; null when everything due so far is paid. */
  due: Due | null;
  totals: Totals;
  byPayer: Map<Payer, Totals>;
  lines: PayerLine[];
  /** What the stay now charges, deposits aside (they come back): the ALE it consumes. */
  aleConsumedCents: number;
  /** Each account of the stay's ledger and its balance (they sum to 0). */
  accounts: { account: Account; cents: number }[];
  /** The payment that paid a part of a charge, if any. */
  settledBy(key: string, part: ChargePart): string | null;
  /** What came back on a payment so far (its refund entries). */
  refundedOn(paymentId: string): number;
  /** The service fee each refund returned to the landlord (its fee entry), with the rent it returned. */
  feesReturned: { refundRequestId: string; paymentId: string; changeOf: string; rentCents: number; feeCents: number }[];
}

/** The stay's money as its ledger now holds it, today by the organisation's clock. */
export async function moneyOf(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<StayMoney> {
  const [ledger, now] = await Promise.all([ledgerOf(tx, placement), tenantNow(tx)]);
  return figuresOf(ledger, payerOf(claim), utcDay(now));
}

/** The figures of a ledger for the request's payers of each part, on `today`. */
export function figuresOf(ledger: Ledger, payers: PayerOf, today: string): StayMoney {
  // Who pays a part of a charge: who paid it, else the request's payer of the part now.
  const payerOfPart = (key: string, part: ChargePart): Payer => ledger.settled.get(key)?.payer[part] ?? payers[part];
  const settledBy = new Map<string, string>();
  for (const e of ledger.entries) if (e.kind === 'payment' && e.cause === 'paid') settledBy.set(`${chargeKey(e)}|${e.part}`, e.paymentId!);

  const totals = zero();
  const byPayer = new Map<Payer, Totals>();
  const add = (payer: Payer, field: keyof Totals, cents: number) => {
    totals[field] += cents;
    const own = byPayer.get(payer) ?? byPayer.set(payer, zero()).get(payer)!;
    own[field] += cents;
  };

  const balances = new Map<Payer, number>();
  const lines: PayerLine[] = [];
  ledger.entries.forEach((e, at) => {
    if (e.kind === 'fee') return;
    const payer = e.payer ?? payerOfPart(chargeKey(e), e.part);
    const scheduled = isCharge(e) && e.chargeType === 'rent' && e.periodStart > today;
    if (isCharge(e)) {
      add(payer, 'charged', e.amountCents);
      add(payer, scheduled ? 'scheduled' : 'billed', e.amountCents);
    } else if (e.cause !== 'duplicate') {
      // A duplicate charge and its automatic refund count for nothing.
      add(payer, e.kind === 'payment' ? 'paid' : 'refunded', Math.abs(e.amountCents));
      if (e.part === 'deposit') add(payer, e.kind === 'payment' ? 'deposits_held' : 'deposits_returned', Math.abs(e.amountCents));
    }
    const balanceAfter = (balances.get(payer) ?? 0) + (isSettlement(e) && e.cause === 'duplicate' ? 0 : e.amountCents);
    balances.set(payer, balanceAfter);
    lines.push({ entry: e, at, payer, balanceAfter, scheduled });
  });

  const charge = chargeDueNow(ledger.charges, ledger.settled, today);
  const due = charge ? { charge, shares: sharesDue(charge, payers, ledger.settled) } : null;
  for (const share of due?.shares ?? []) add(share.payer, 'due_now', share.split.grossCents);
  // Owed back: what each part settled beyond what its charge now holds, to whoever paid it.
  for (const c of ledger.charges) {
    const over = overpaidOf(c, ledger.settled);
    for (const part of chargeParts.filter((p) => over[p] > 0)) add(payerOfPart(chargeKey(c), part), 'refund_due', over[part]);
  }
  // Deposits held: paid less returned (what the landlord holds of the payers' deposits).
  for (const t of [totals, ...byPayer.values()]) t.deposits_held -= t.deposits_returned;

  return {
    ledger,
    today,
    due,
    totals,
    byPayer,
    lines,
    aleConsumedCents: ledger.entries.filter((e) => e.part !== 'deposit' && isCharge(e)).reduce((sum, e) => sum + e.amountCents, 0),
    accounts: accountBalances(ledger.entries),
    settledBy: (key, part) => settledBy.get(`${key}|${part}`) ?? null,
    refundedOn: (paymentId) => ledger.entries.filter((e) => e.kind === 'refund' && e.paymentId === paymentId).reduce((sum, e) => sum + e.amountCents, 0),
    feesReturned: ledger.entries.filter((e) => e.kind === 'fee' && e.refundRequestId).map((fee) => ({
      refundRequestId: fee.refundRequestId!,
      paymentId: fee.paymentId!,
      changeOf: fee.postedOn,
      rentCents: ledger.entries.filter((e) => e.kind === 'refund' && e.part === 'rent' && e.refundRequestId === fee.refundRequestId).reduce((sum, e) => sum + e.amountCents, 0),
      feeCents: -fee.amountCents,
    })),
  };
}

/**
 * The charge `key` as the ledger holds it now, and as its version's signing posted it (its charges
 * alone): a checkout opened before a change charged what was due then. Empty when there is none.
 */
export function chargesAsNamed(entries: readonly Entry[], key: ChargeKey): LedgerCharge[] {
  const own = entries.filter((e) => chargeKey(e) === chargeKey(key));
  return own.length === 0 ? [] : [...chargesOf(own), ...chargesOf(own.filter((e) => e.kind === 'charge'))];
}

/** Whether every part of `charge` with money in it is paid by a settled payment. */
export const isPaid = (entries: readonly Entry[], charge: LedgerCharge) => unpaidPartsOf(charge, settlementsOf(entries)).length === 0;

/** The charge the entries of one version's own charge add up to, or null (an extension that only takes nights back). */
export const chargeOfOwn = (own: readonly NewEntry[]): LedgerCharge | null => chargesOf(own)[0] ?? null;

/**
 * What a stay as these entries hold it costs, as the budget review shows it: the nights signed keep
 * the price they were signed at; the first payment is the lease's, as its signing posted it;
 * deposits are not a cost.
 */
export function budgetTotals(entries: readonly NewEntry[], aleLimit: number | null) {
  const charges = chargesOf(entries);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const rentOverStay = sum(charges.map((c) => c.net.rent));
  const costOfStay = rentOverStay + sum(charges.map((c) => c.net.fees));
  return {
    rentOverStay,
    costOfStay,
    serviceFeeOverStay: sum(charges.map((c) => c.split.platformFeeCents)),
    firstPayment: sum(entries.filter((e) => e.chargeType === 'initial' && e.kind === 'charge').map((e) => e.amountCents)),
    aleConsumedByStay: costOfStay,
    withinAleLimit: aleLimit === null || costOfStay <= aleLimit,
  };
}
