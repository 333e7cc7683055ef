import type { z } from '@hono/zod-openapi';
import type { Caller } from '../../http/context.ts';
import { fromCents } from '../../money.ts';
import { tenantNow, utcDay } from '../../clock/time.ts';
import { chargeParts, payerOf, type ChargePart, type Payer } from '../billing.ts';
import { chargeDueNow, chargeKey, isSettlement, overpaidOf, sharesDue } from '../ledger.ts';
import { paymentsOf } from '../money-repository.ts';
import { versionNumbers } from '../repository.ts';
import type { Statement } from '../schemas.ts';
import { ledgerOf } from '../stay-ledger.ts';
import { inPlacement } from '../unit-of-work.ts';
import { addDays } from '../stay.ts';

// GET /claims/{reference}/statement?property_id= (this service's addition): the stay's ledger as an
// adjuster files it with the claim. Every figure is a sum of posted entries: charges and their
// changes, and the payments and refunds that moved money; what is due now is what the checkout
// charges (the same ledger read, ../stay-ledger.ts). The processor's payment rows are listed beside
// them as the processor's record.

type Totals = { charged: number; paid: number; refunded: number; due_now: number; refund_due: number };
const zero = (): Totals => ({ charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0 });
const major = (t: Totals) => ({
  charged: fromCents(t.charged), paid: fromCents(t.paid), refunded: fromCents(t.refunded), due_now: fromCents(t.due_now), refund_due: fromCents(t.refund_due),
});

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

    const refundedOn = new Map<string, number>();
    const entries = ledger.entries.map((e) => {
      const key = chargeKey(e);
      const payer = e.payer ?? payerOfPart(key, e.part);
      if (!isSettlement(e)) add(payer, 'charged', e.amountCents);
      // A duplicate charge and its automatic refund count for nothing.
      else if (e.cause !== 'duplicate') add(payer, e.kind === 'payment' ? 'paid' : 'refunded', Math.abs(e.amountCents));
      if (e.kind === 'refund') refundedOn.set(e.paymentId!, (refundedOn.get(e.paymentId!) ?? 0) + e.amountCents);
      return {
        id: e.id,
        posted_at: e.postedAt.toISOString(),
        kind: e.kind,
        cause: e.cause,
        charge_type: e.chargeType,
        period_start: e.periodStart,
        lease_id: e.leaseId,
        version: versions.get(e.leaseId) ?? 0,
        part: e.part,
        payer,
        label: e.line,
        nights: e.nights ? { first_night: e.nights.from, last_night: addDays(e.nights.to, -1), count: Math.round((Date.parse(e.nights.to) - Date.parse(e.nights.from)) / 86_400_000) } : null,
        amount: fromCents(e.amountCents),
        adjusts: e.adjusts,
        settled_by: isSettlement(e) ? null : settledBy.get(`${key}|${e.part}`) ?? null,
        payment_id: e.paymentId ?? null,
        refund_request_id: e.refundRequestId ?? null,
      };
    });
    const due = chargeDueNow(ledger.charges, ledger.settled, utcDay(now));
    for (const share of due ? sharesDue(due, payers, ledger.settled) : []) add(share.payer, 'due_now', share.split.grossCents);
    // Owed back: what each part settled beyond what its charge now holds, to whoever paid it.
    for (const charge of ledger.charges) {
      const over = overpaidOf(charge, ledger.settled);
      for (const part of chargeParts.filter((p) => over[p] > 0)) add(payerOfPart(chargeKey(charge), part), 'refund_due', over[part]);
    }

    const consumed = ledger.entries.filter((e) => e.part !== 'deposit' && !isSettlement(e)).reduce((sum, e) => sum + e.amountCents, 0);
    const limit = claim.ale_limit_cents === null ? null : Number(claim.ale_limit_cents);
    const settled = payments.filter((p) => p.status === 'succeeded' || p.status === 'refunded');
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
