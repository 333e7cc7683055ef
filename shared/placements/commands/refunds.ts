import type { Tx } from '../../db/client.ts';
import { withTenant, type Tenant, type Caller } from '../../db/tenant.ts';
import { emit } from '../../events/outbox.ts';
import { conflict, invalid, notFound } from '../../domain-errors.ts';
import { isUuid } from '../../ids.ts';
import { cursorRowId, rowPage } from '../../db/paging.ts';
import { enqueue } from '../../jobs/queue.ts';
import { fromCents, toCents } from '../../money.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { payerWords, type Payer } from '../billing.ts';
import type { Entry } from '../ledger.ts';
import { postRefund } from '../stay-ledger.ts';
import { chargeKey, leftOnPayment, ledgerOf, returnableFor, returnableOn, totalOf, type RefundPurpose } from '../stay-money.ts';
import { inPlacement, inPlacementById } from '../unit-of-work.ts';
import { homeLabel } from '../listing-repository.ts';
import { insertRefundRequest, moveRefundRequest, openRefundRequest, providerRefundRequest, providerRefundRequests, type RefundRequestRow } from '../refund-repository.ts';
import { payeeOf, settledPayments, type PaymentRow } from '../payment-repository.ts';
import { onHome, refundHistory, renderRefundForProvider } from '../render.ts';
import type { OptionRow } from '../option-repository.ts';

// Refunds: the carrier asks (POST refund-request), the landlord approves or declines (the sandbox
// `landlord` helper, or the provider's own POST /properties/refund-requests/{id}), and an approval
// posts what the refund returns to the stay's ledger (../ledger-refunds.ts) and issues it on the
// landlord's processor account as a durable job (the service fee on the rent returned comes back
// with it). payment.refunded reports the outcome either way.
//
// A refund says what it returns: by default what is owed back to the payer of the refunded payment
// (the statement's refund_due for that payer: what it settled beyond what the stay now charges), or
// the deposits the stay holds of that payer (purpose deposit). More than that only with goodwill,
// which then shows as such. The amount is checked when asked and again when approved: a stay that
// changed meanwhile refunds only what is owed then. One request is open at a time per home (a
// unique index decides races).

export interface RefundInput {
  property_id: string;
  reason?: string;
  payment_id?: string;
  amount?: number;
  purpose?: RefundPurpose;
  goodwill?: boolean;
}

const pending = () => conflict('refund_pending', 'A refund request on this home is already open; wait for the landlord’s answer.');

/** What the stay can return to `payer` for `purpose`, in cents, the charge `first` first. */
/** What a refund on `payment` can return to `payer` for `purpose`, in cents (each part at most what that payment paid of it). */
const returnableTo = (entries: readonly Entry[], purpose: RefundPurpose, payer: Payer, payment: PaymentRow) =>
  totalOf(returnableOn(entries, purpose, payer, payment.id, chargeOf(payment)));

const chargeOf = (p: PaymentRow) => ({ leaseId: p.lease_agreement_id!, chargeType: p.charge_type, periodStart: p.period_start! });

/**
 * The payment a request refunds: the one named; else, of the payers the stay owes something back
 * for this purpose (the most recent payment's payer first), the payment of the first charge with
 * something to return, or that payer's most recent; else, with goodwill, the most recent payment
 * with anything left. Null when there is none.
 */
function refundedPayment(entries: readonly Entry[], payments: PaymentRow[], input: RefundInput, purpose: RefundPurpose): PaymentRow | null {
  const open = payments.filter((p) => leftOnPayment(entries, p.id) > 0);
  if (input.payment_id) return open.find((p) => p.id === input.payment_id) ?? null;
  for (const payer of new Set(open.flatMap((p) => (p.payer ? [p.payer] : [])))) {
    const [first] = returnableFor(entries, purpose, payer);
    if (!first) continue;
    const own = open.filter((p) => p.payer === payer);
    // The payment that paid the first charge owed back, else one that paid a part owed back (money goes back on the payment that brought it).
    return own.find((p) => chargeKey(chargeOf(p)) === chargeKey(first.charge))
      ?? own.find((p) => returnableTo(entries, purpose, payer, p) > 0) ?? own[0];
  }
  return input.goodwill ? open[0] ?? null : null;
}

export async function requestRefund(caller: Caller, reference: string, input: RefundInput) {
  // A cancelled placement (cancel-booking with force) is still refundable.
  return inPlacement(caller, { reference, propertyId: input.property_id }, async ({ tx, claim, placement }) => {
    if (await openRefundRequest(tx, placement.id)) throw pending();
    const purpose = input.purpose ?? 'owed_back';
    const [{ entries }, payments] = await Promise.all([ledgerOf(tx, placement), settledPayments(tx, placement.id)]);
    const payment = refundedPayment(entries, payments, input, purpose);
    if (!payment) {
      throw conflict('nothing_to_refund', input.payment_id
        ? 'That payment is not a settled payment of this home with anything left to refund.'
        : purpose === 'deposit'
          ? 'This home holds no deposit paid to return.'
          : payments.length === 0
            ? 'No settled payment on this home to refund.'
            : 'Nothing is owed back on this home: every payment pays for what the stay charges (refund_due is 0 on the statement). To return money anyway, ask with goodwill: true.');
    }
    const payer = payment.payer!;
    const refundable = leftOnPayment(entries, payment.id);
    const returnable = returnableTo(entries, purpose, payer, payment);
    const currency = payment.currency.toUpperCase();
    const amountCents = input.amount === undefined ? Math.min(refundable, returnable || (input.goodwill ? refundable : 0)) : toCents(input.amount);
    const what = purpose === 'deposit' ? 'of deposits is held' : 'is owed back';
    if (amountCents > refundable) {
      throw invalid('invalid_field', `amount: at most ${fromCents(refundable)} ${currency} is left to refund on this payment.`, 'amount');
    }
    if (amountCents > returnable && !input.goodwill) {
      throw invalid('invalid_field',
        `amount: ${fromCents(returnable)} ${currency} ${what} to ${payerWords[payer]} on this home; to return more, ask with goodwill: true.`, 'amount');
    }
    if (amountCents <= 0) {
      throw conflict('nothing_to_refund', `Nothing ${what} to ${payerWords[payer]} on this payment; to return money anyway, ask with goodwill: true.`);
    }
    const request = await insertRefundRequest(tx, placement, payment, input.reason ?? null, amountCents, { purpose, goodwill: input.goodwill ?? false });
    if (!request) throw pending();
    await announceRequest(tx, claim, placement, request);
    return {
      refund_request_id: request.id,
      amount_cents: Number(request.amount_cents),
      amount: fromCents(Number(request.amount_cents)),
      currency: request.currency,
      status: 'pending_owner_approval' as const,
      payment_id: payment.id,
      payer,
      purpose,
      goodwill: request.goodwill,
      history: refundHistory(request.history),
    };
  }, { cancelled: 'include', notOnRequest: 'not_found' });
}

/** The landlord approves refunds, so it hears of a request at once: by email, and as refund.requested on its own events. */
async function announceRequest(tx: Tx, claim: ClaimRow, placement: OptionRow, request: RefundRequestRow) {
  const [payee, label] = await Promise.all([payeeOf(tx, placement.property_id), homeLabel(tx, placement.property_id)]);
  const amount = fromCents(Number(request.amount_cents));
  await enqueue(tx, 'send_email', {
    to: payee.contact_email ? [payee.contact_email] : [],
    subject: `Refund requested for ${label.name ?? 'your home'} (${claim.claim_ref})`,
    text: `A refund of ${amount} ${request.currency.toUpperCase()} was requested` +
      `${request.reason ? `: ${request.reason}` : ''}. Approve or decline it with POST /properties/refund-requests/${request.id}.`,
    topic: 'refund.requested',
  });
  await emit(tx, 'refund.requested', {
    refund_request_id: request.id,
    reference: claim.claim_ref,
    payment_id: request.payment_id,
    property_id: placement.property_id,
    external_id: label.external_id,
    amount,
    currency: request.currency,
    purpose: request.purpose,
    goodwill: request.goodwill,
    reason: request.reason,
  }, { orgId: request.provider_org_id, environment: claim.environment });
}

/**
 * The landlord's answer to the open refund request of a placement, in the carrier's tenant
 * transaction. Approving posts what the refund returns, as the stay stands now (never more than is
 * owed back or held then, but for goodwill), and queues it (issue_refund); 409 nothing_to_refund
 * when the stay changed so that nothing is left to return (decline it). Declining reports
 * payment.refunded with outcome declined and lets the carrier ask again.
 */
export async function decideRefund(tx: Tx, claim: ClaimRow, placement: OptionRow, approve: boolean): Promise<RefundRequestRow> {
  const open = await openRefundRequest(tx, placement.id);
  if (!open || open.status !== 'pending_owner_approval') {
    throw conflict('no_refund_request', 'No refund request is waiting for the landlord on this home.');
  }
  if (!approve) {
    const declined = (await moveRefundRequest(tx, open.id, 'pending_owner_approval', 'declined', 'landlord'))!;
    await emit(tx, 'payment.refunded', { ...onHome(claim, placement), refund_request_id: open.id, outcome: 'declined', amount: 0, currency: open.currency });
    return declined;
  }
  const payment = (await settledPayments(tx, placement.id)).find((p) => p.id === open.payment_id);
  const posted = payment && payment.payer ? await postRefund(tx, claim, placement, {
    purpose: open.purpose, payer: payment.payer, cents: Number(open.amount_cents), goodwill: open.goodwill,
    paymentId: payment.id, first: chargeOf(payment), refundRequestId: open.id,
  }) : { cents: 0 };
  if (posted.cents === 0) {
    throw conflict('nothing_to_refund', 'Nothing is owed back on this home any more: the stay changed since the refund was asked (see the statement). Decline the request.');
  }
  const approved = (await moveRefundRequest(tx, open.id, 'pending_owner_approval', 'approved', 'landlord'))!;
  await enqueue(tx, 'issue_refund', { refund_request_id: open.id }, { dedupeKey: open.id });
  return approved;
}

/** The refund requests on the provider's homes, newest first (the latest 100). */
export async function listRefundRequests(caller: Caller, query: { limit: number; cursor?: string }) {
  const rows = await withTenant(caller, (tx) => providerRefundRequests(tx, { limit: query.limit, after: cursorRowId(query.cursor) }));
  return rowPage(rows, query.limit, renderRefundForProvider);
}

/**
 * The landlord's answer through the API (live and sandbox alike): the request is found as the
 * provider, then answered in the carrier's tenant transaction by the same command as the sandbox
 * helper (decideRefund).
 */
export async function answerRefundRequest(caller: Caller, id: string, approve: boolean) {
  const found = isUuid(id) ? await withTenant(caller, (tx) => providerRefundRequest(tx, id)) : null;
  if (!found) throw notFound('refund request');
  const carrier: Tenant = { orgId: found.org_id, environment: caller.environment };
  await inPlacementById(carrier, found.claim_option_id, ({ tx, claim, placement }) => decideRefund(tx, claim, placement, approve));
  const after = await withTenant(caller, (tx) => providerRefundRequest(tx, id));
  return renderRefundForProvider(after!);
}
