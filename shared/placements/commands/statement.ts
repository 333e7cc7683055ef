import type { z } from '@hono/zod-openapi';
import type { Caller } from '../../db/tenant.ts';
import { fromCents } from '../../money.ts';
import type { Entry } from '../ledger.ts';
import { paymentsOf } from '../money-repository.ts';
import { versionNumbers } from '../repository.ts';
import type { Statement } from '../schemas.ts';
import { chargeKey, isSettlement, moneyOf, type Totals } from '../stay-money.ts';
import { describeLine, describeServiceFee, type RefundPurpose } from '../statement-lines.ts';
import { inPlacement } from '../unit-of-work.ts';
import { addDays } from '../stay.ts';

// GET /claims/{reference}/statement?property_id= (this service's addition): the stay's ledger as an
// adjuster files it with the claim. Every figure is a sum of posted entries: charges and their
// changes, and the payments and refunds that moved money; what is due now is what the checkout
// charges (the same read of the stay's money, ../stay-money.ts). The processor's payment rows are listed beside
// them as the processor's record.
//
// Each entry also says what it is in a sentence (../statement-lines.ts) and carries its payer's
// running balance: what that payer owes after it (charges and their changes less payments plus
// refunds; a duplicate charge and its automatic refund move nothing). What is charged is split in
// what is billed so far and what is scheduled: rent periods that begin after today, by the
// organisation's clock. The service fee a refund returns is the landlord's, not the payer's: it is
// listed apart (service_fees_returned), never an entry of a payer's balance.

/** The totals in major units. */
const major = (t: Totals) => Object.fromEntries(Object.entries(t).map(([k, cents]) => [k, fromCents(cents)])) as unknown as Totals;

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
    const [money, payments, versions] = await Promise.all([moneyOf(tx, claim, placement), paymentsOf(tx, placement.id), versionNumbers(tx, placement.id)]);
    const { ledger, totals, byPayer, today } = money;
    const entries = money.lines.map(({ entry: e, at, payer, balanceAfter, scheduled }) => {
      const version = versions.get(e.leaseId) ?? 0;
      const nights = e.nights ? { first_night: e.nights.from, last_night: addDays(e.nights.to, -1), count: Math.round((Date.parse(e.nights.to) - Date.parse(e.nights.from)) / 86_400_000) } : null;
      const refundPurpose = refundPurposeOf(ledger.entries, at);
      return {
        id: e.id,
        posted_at: e.postedAt.toISOString(),
        kind: e.kind as Exclude<typeof e.kind, 'fee'>,
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
          kind: e.kind as Exclude<typeof e.kind, 'fee'>, cause: e.cause, chargeType: e.chargeType, periodStart: e.periodStart, part: e.part, label: e.line, nights,
          amountCents: e.amountCents, payer: e.payer ?? null, version, changeOf: e.postedOn, refundPurpose,
        }),
        change_of: e.postedOn,
        balance_after: fromCents(balanceAfter),
        scheduled,
        refund_purpose: refundPurpose,
        adjusts: e.adjusts,
        settled_by: isSettlement(e) ? null : money.settledBy(chargeKey(e), e.part),
        payment_id: e.paymentId ?? null,
        refund_request_id: e.refundRequestId ?? null,
        debit_account: e.debitAccount,
        credit_account: e.creditAccount,
      };
    });
    const consumed = money.aleConsumedCents;
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
        refunded: fromCents(money.refundedOn(p.id)),
        paid_at: p.paid_at!.toISOString(),
        duplicate_of: p.duplicate_of,
      })),
      as_of: today,
      service_fees_returned: money.feesReturned.map((f) => ({
        refund_request_id: f.refundRequestId,
        payment_id: f.paymentId,
        change_of: f.changeOf,
        rent_refunded: fromCents(f.rentCents),
        amount: fromCents(f.feeCents),
        description: describeServiceFee(f.feeCents, f.rentCents, ledger.currency, f.changeOf),
      })),
      accounts: money.accounts.map((a) => ({ account: a.account, balance: fromCents(a.cents) })),
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
