import type { z } from '@hono/zod-openapi';
import type { Caller } from '../../http/context.ts';
import { fromCents } from '../../money.ts';
import { tenantNow, utcDay } from '../../clock/time.ts';
import { chargeParts, payerOf, type ChargePart, type Payer } from '../billing.ts';
import { chargeDueNow, chargeKey, overpaidOf, sharesDue } from '../ledger.ts';
import { paymentsOf, type PaymentRow } from '../money-repository.ts';
import { versionNumbers } from '../repository.ts';
import type { Statement } from '../schemas.ts';
import { ledgerOf } from '../stay-ledger.ts';
import { inPlacement } from '../unit-of-work.ts';
import { addDays } from '../stay.ts';

// GET /claims/{reference}/statement?property_id= (this service's addition): the stay's ledger as an
// adjuster files it with the claim. Every figure is a sum of posted entries and settled payments;
// what is due now is what the checkout charges (the same ledger read, ../stay-ledger.ts).

type Totals = { charged: number; paid: number; refunded: number; due_now: number; refund_due: number };
const zero = (): Totals => ({ charged: 0, paid: 0, refunded: 0, due_now: 0, refund_due: 0 });
const major = (t: Totals) => ({
  charged: fromCents(t.charged), paid: fromCents(t.paid), refunded: fromCents(t.refunded), due_now: fromCents(t.due_now), refund_due: fromCents(t.refund_due),
});

export async function readStatement(caller: Caller, reference: string, propertyId: string): Promise<z.infer<typeof Statement>> {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const [ledger, payments, versions, now] = await Promise.all([
      ledgerOf(tx, claim, placement), paymentsOf(tx, placement.id), versionNumbers(tx, placement.id), tenantNow(tx),
    ]);
    const payers = payerOf(claim);
    const settled = payments.filter((p) => p.status === 'succeeded' || p.status === 'refunded');
    const counted = settled.filter((p) => !p.duplicate_of);
    // The payment that paid each part of each charge.
    const settledBy = new Map<string, PaymentRow>();
    for (const p of counted) {
      for (const part of chargeParts) {
        if (Number(p[`${part}_cents`]) > 0 && p.lease_agreement_id && p.period_start) {
          settledBy.set(`${chargeKey({ leaseId: p.lease_agreement_id, chargeType: p.charge_type, periodStart: p.period_start })}|${part}`, p);
        }
      }
    }
    const payerOfPart = (key: string, part: ChargePart): Payer => settledBy.get(`${key}|${part}`)?.payer ?? payers[part];

    const totals = zero();
    const byPayer = new Map<Payer, Totals>();
    const of = (payer: Payer) => byPayer.get(payer) ?? byPayer.set(payer, zero()).get(payer)!;
    const add = (payer: Payer, field: keyof Totals, cents: number) => {
      totals[field] += cents;
      of(payer)[field] += cents;
    };

    const entries = ledger.entries.map((e) => {
      const key = chargeKey(e);
      const payer = payerOfPart(key, e.part);
      add(payer, 'charged', e.amountCents);
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
        settled_by: settledBy.get(`${key}|${e.part}`)?.id ?? null,
      };
    });
    for (const p of counted) {
      const payer = p.payer ?? payers.rent;
      add(payer, 'paid', Number(p.gross_cents));
      add(payer, 'refunded', Number(p.refunded_cents));
    }
    const due = chargeDueNow(ledger.charges, ledger.paid, utcDay(now));
    for (const share of due ? sharesDue(due, payers, ledger.paid) : []) add(share.payer, 'due_now', share.split.grossCents);
    // Owed back: paid beyond what each charge now holds, less what already came back, by payer.
    const overpaid = new Map<Payer, number>();
    for (const charge of ledger.charges) {
      const over = overpaidOf(charge, ledger.paid);
      for (const part of chargeParts.filter((p) => over[p] > 0)) {
        const payer = payerOfPart(chargeKey(charge), part);
        overpaid.set(payer, (overpaid.get(payer) ?? 0) + over[part]);
      }
    }
    for (const [payer, cents] of overpaid) add(payer, 'refund_due', Math.max(0, cents - of(payer).refunded));

    const consumed = ledger.entries.filter((e) => e.part !== 'deposit').reduce((sum, e) => sum + e.amountCents, 0);
    const limit = claim.ale_limit_cents === null ? null : Number(claim.ale_limit_cents);
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
        refunded: fromCents(Number(p.refunded_cents)),
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
