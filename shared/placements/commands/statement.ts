import type { z } from '@hono/zod-openapi';
import type { Caller } from '../../http/context.ts';
import { fromCents } from '../../money.ts';
import { tenantNow, utcDay } from '../../clock/time.ts';
import { chargeParts, payerOf, type ChargePart, type Payer } from '../billing.ts';
import { accountBalances, chargeDueNow, chargeKey, isCharge, isSettlement, overpaidOf, sharesDue, type Entry } from '../ledger.ts';
import { paymentsOf } from '../money-repository.ts';
import { versionNumbers } from '../repository.ts';
import type { Statement } from '../schemas.ts';
import { ledgerOf } from '../stay-ledger.ts';
import { describeLine, describeServiceFee, type RefundPurpose } from '../statement-lines.ts';
import { inPlacement } from '../unit-of-work.ts';
import { addDays } from '../stay.ts';

// GET /claims/{reference}/statement?property_id= (this service's addition): the stay's ledger as an
// adjuster files it with the claim. Every figure is a sum of posted entries: charges and their
// changes, and the payments and refunds that moved money; what is due now is what the checkout
// charges (the same ledger read, ../stay-ledger.ts). The processor's payment rows are listed beside
// them as the processor's record.
//
// Each entry also says what it is in a sentence (../statement-lines.ts) and carries its payer's
// running balance: what that payer owes after it (charges and their changes less payments plus
// refunds; a duplicate charge and its automatic refund move nothing). What is charged is split in
// what is billed so far and what is scheduled: rent periods that begin after today, by the
// organisation's clock. The service fee a refund returns is the landlord's, not the payer's: it is
// listed apart (service_fees_returned), never an entry of a payer's balance.

type Totals = {
  charged: number; paid: number; refunded: number; due_now: number; refund_due: number;
  billed: number; scheduled: number; deposits_held: number; deposits_returned: number;
};
const zero = (): Totals => ({ charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0, billed: 0, scheduled: 0, deposits_held: 0, deposits_returned: 0 });
const major = (t: Totals) => Object.fromEntries(Object.entries(t).map(([k, cents]) => [k, fromCents(cents)])) as Totals;

/** What a refund entry returns: the release a refund posts right after it says so (a deposit, goodwill); else what was owed back. */
function refundPurposeOf(entries: readonly Entry[], at: number): RefundPurpose | null {
  const e = entries[at];
  if (e.kind !== 'refund') return null;
  if (e.cause === 'duplicate') return 'duplicate';
  const next = entries[at + 1];
  if (next?.kind === 'release' && next.refundRequestId === e.refundRequestId) {
    if (next.cause === 'deposit_returned') return 'deposit';
    if (next.cause === 'goodwill') return 'goodwill';
  }
  return 'owed_back';
}

export async function readStatement(caller: Caller, reference: string, propertyId: string): Promise<z.infer<typeof Statement>> {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const [ledger, payments, versions, now] = await Promise.all([
      ledgerOf(tx, placement), paymentsOf(tx, placement.id), versionNumbers(tx, placement.id), tenantNow(tx),
    ]);
    const payers = payerOf(claim);
    // Who pays a part of a charge: who paid it, else the request's payer of the part now.
    const payerOfPart = (key: string, part: ChargePart): Payer => ledger.settled.get(key)?.payer[part] ?? payers[part];
    // The payment that paid each part of each charge.
    const settledBy = new Map<string, string>();
    for (const e of ledger.entries) if (e.kind === 'payment' && e.cause === 'paid') settledBy.set(`${chargeKey(e)}|${e.part}`, e.paymentId!);

    const totals = zero();
    const byPayer = new Map<Payer, Totals>();
    const of = (payer: Payer) => byPayer.get(payer) ?? byPayer.set(payer, zero()).get(payer)!;
    const add = (payer: Payer, field: keyof Totals, cents: number) => {
      totals[field] += cents;
      of(payer)[field] += cents;
    };

    const today = utcDay(now);
    const refundedOn = new Map<string, number>();
    const balances = new Map<Payer, number>();
    // The service fee moves between the landlord and the service, not a payer's money: listed apart below.
    const entries = ledger.entries.flatMap((e, at) => {
      if (e.kind === 'fee') return [];
      const key = chargeKey(e);
      const payer = e.payer ?? payerOfPart(key, e.part);
      // A rent period that begins after today is scheduled; everything else charged is billed.
      const scheduled = isCharge(e) && e.chargeType === 'rent' && e.periodStart > today;
      if (isCharge(e)) {
        add(payer, 'charged', e.amountCents);
        add(payer, scheduled ? 'scheduled' : 'billed', e.amountCents);
      } else if (e.cause !== 'duplicate') {
        // A duplicate charge and its automatic refund count for nothing.
        add(payer, e.kind === 'payment' ? 'paid' : 'refunded', Math.abs(e.amountCents));
        if (e.part === 'deposit') add(payer, e.kind === 'payment' ? 'deposits_held' : 'deposits_returned', Math.abs(e.amountCents));
      }
      if (e.kind === 'refund') refundedOn.set(e.paymentId!, (refundedOn.get(e.paymentId!) ?? 0) + e.amountCents);
      const balance = (balances.get(payer) ?? 0) + (isSettlement(e) && e.cause === 'duplicate' ? 0 : e.amountCents);
      balances.set(payer, balance);
      const version = versions.get(e.leaseId) ?? 0;
      const nights = e.nights ? { first_night: e.nights.from, last_night: addDays(e.nights.to, -1), count: Math.round((Date.parse(e.nights.to) - Date.parse(e.nights.from)) / 86_400_000) } : null;
      const refundPurpose = refundPurposeOf(ledger.entries, at);
      return [{
        id: e.id,
        posted_at: e.postedAt.toISOString(),
        kind: e.kind,
        cause: e.cause,
        charge_type: e.chargeType,
        period_start: e.periodStart,
        lease_id: e.leaseId,
        version,
        part: e.part,
        payer,
        label: e.line,
        nights,
        amount: fromCents(e.amountCents),
        description: describeLine({
          kind: e.kind, cause: e.cause, chargeType: e.chargeType, periodStart: e.periodStart, part: e.part, label: e.line, nights,
          amountCents: e.amountCents, payer: e.payer ?? null, version, changeOf: e.postedOn, refundPurpose,
        }),
        change_of: e.postedOn,
        balance_after: fromCents(balance),
        scheduled,
        refund_purpose: refundPurpose,
        adjusts: e.adjusts,
        settled_by: isSettlement(e) ? null : settledBy.get(`${key}|${e.part}`) ?? null,
        payment_id: e.paymentId ?? null,
        refund_request_id: e.refundRequestId ?? null,
        debit_account: e.debitAccount,
        credit_account: e.creditAccount,
      }];
    });
    const due = chargeDueNow(ledger.charges, ledger.settled, today);
    for (const share of due ? sharesDue(due, payers, ledger.settled) : []) add(share.payer, 'due_now', share.split.grossCents);
    // Owed back: what each part settled beyond what its charge now holds, to whoever paid it.
    for (const charge of ledger.charges) {
      const over = overpaidOf(charge, ledger.settled);
      for (const part of chargeParts.filter((p) => over[p] > 0)) add(payerOfPart(chargeKey(charge), part), 'refund_due', over[part]);
    }

    const consumed = ledger.entries.filter((e) => e.part !== 'deposit' && isCharge(e)).reduce((sum, e) => sum + e.amountCents, 0);
    const limit = claim.ale_limit_cents === null ? null : Number(claim.ale_limit_cents);
    const settled = payments.filter((p) => p.status === 'succeeded' || p.status === 'refunded');
    // Deposits held: paid less returned (what the landlord holds of the payers' deposits).
    for (const t of [totals, ...byPayer.values()]) t.deposits_held -= t.deposits_returned;
    // The service fee each refund returned to the landlord with the rent it refunded (its fee entry), beside the rent it returned.
    const rentRefunded = new Map<string, number>();
    for (const e of ledger.entries) if (e.kind === 'refund' && e.part === 'rent') rentRefunded.set(e.refundRequestId!, (rentRefunded.get(e.refundRequestId!) ?? 0) + e.amountCents);
    const feesReturned = ledger.entries.filter((e) => e.kind === 'fee' && e.refundRequestId);
    return {
      request_id: claim.id,
      reference: claim.claim_ref,
      property_id: placement.property_id,
      currency: ledger.currency,
      entries,
      payments: settled.map((p) => ({
        id: p.id,
        charge_type: p.charge_type,
        period_start: p.period_start,
        lease_id: p.lease_agreement_id,
        payer: p.payer,
        status: p.status as 'succeeded' | 'refunded',
        amount: fromCents(Number(p.gross_cents)),
        refunded: fromCents(refundedOn.get(p.id) ?? 0),
        paid_at: p.paid_at!.toISOString(),
        duplicate_of: p.duplicate_of,
      })),
      as_of: today,
      service_fees_returned: feesReturned.map((f) => ({
        refund_request_id: f.refundRequestId!,
        payment_id: f.paymentId!,
        change_of: f.postedOn,
        rent_refunded: fromCents(rentRefunded.get(f.refundRequestId!) ?? 0),
        amount: fromCents(-f.amountCents),
        description: describeServiceFee(-f.amountCents, rentRefunded.get(f.refundRequestId!) ?? 0, ledger.currency, f.postedOn),
      })),
      accounts: accountBalances(ledger.entries).map((a) => ({ account: a.account, balance: fromCents(a.cents) })),
      totals: major(totals),
      by_payer: [...byPayer].map(([payer, t]) => ({ payer, ...major(t) })),
      ale: {
        ale_limit: limit === null ? null : fromCents(limit),
        ale_consumed: fromCents(consumed),
        ale_remaining: limit === null ? null : fromCents(limit - consumed),
        within_ale_limit: limit === null || consumed <= limit,
      },
    };
  }, { cancelled: 'include' });
}
