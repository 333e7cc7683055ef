import type { Tx } from '../../db/client.ts';
import { withTenant, type Tenant } from '../../db/tenant.ts';
import { emit } from '../../events/outbox.ts';
import type { Caller } from '../../http/context.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { isUuid } from '../../ids.ts';
import { cursorRowId, rowPage } from '../../http/paging.ts';
import { enqueue } from '../../jobs/queue.ts';
import { fromCents, toCents } from '../../money.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { inPlacement, inPlacementById } from '../unit-of-work.ts';
import {
  homeLabel, insertRefundRequest, latestSettled, moveRefundRequest, openRefundRequest, payeeOf, providerRefundRequest, providerRefundRequests, 
  type RefundRequestRow,
} from '../money-repository.ts';
import { onHome, renderRefundForProvider } from '../render.ts';
import type { PlacementRow } from '../repository.ts';

// Refunds: the carrier asks (POST refund-request), the landlord approves or declines (the sandbox
// `landlord` helper, or the provider's own POST /properties/refund-requests/{id}), and an approval
// issues the refund on the landlord's processor account as a durable job (the platform fee refunded
// with it). payment.refunded reports the outcome either way. Any settled payment of the home is
// refundable (the most recent by default), in whole or in part, never beyond what was paid less what
// came back; one request is open at a time per home (a unique index decides races).

export interface RefundInput {
  property_id: string;
  reason?: string;
  payment_id?: string;
  amount?: number;
}

export async function requestRefund(caller: Caller, reference: string, input: RefundInput) {
  // A cancelled placement (cancel-booking with force) is still refundable.
  return inPlacement(caller, { reference, propertyId: input.property_id }, async ({ tx, claim, placement }) => {
    if (await openRefundRequest(tx, placement.id)) {
      throw new ApiError('refund_pending', 'A refund request on this home is already open; wait for the landlord’s answer.');
    }
    const payment = await latestSettled(tx, placement.id, input.payment_id);
    if (!payment) {
      throw new ApiError('nothing_to_refund', input.payment_id
        ? 'That payment is not a settled payment of this home with anything left to refund.'
        : 'No settled payment on this home to refund.');
    }
    const refundable = Number(payment.gross_cents) - Number(payment.refunded_cents);
    const amountCents = input.amount === undefined ? refundable : toCents(input.amount);
    if (amountCents > refundable) {
      throw new ApiError('invalid_field', `amount: at most ${fromCents(refundable)} ${payment.currency.toUpperCase()} is left to refund on this payment.`, 'amount');
    }
    const request = await insertRefundRequest(tx, placement, payment, input.reason ?? null, amountCents);
    if (!request) throw new ApiError('refund_pending', 'A refund request on this home is already open; wait for the landlord’s answer.');
    const [payee, label] = await Promise.all([payeeOf(tx, placement.property_id), homeLabel(tx, placement.property_id)]);
    await enqueue(tx, 'send_email', {
      to: payee.contact_email ? [payee.contact_email] : [],
      subject: `Refund requested for ${label.name ?? 'your home'} (${claim.claim_ref})`,
      text: `A refund of ${fromCents(Number(request.amount_cents))} ${request.currency.toUpperCase()} was requested` +
        `${request.reason ? `: ${request.reason}` : ''}. Approve or decline it with POST /properties/refund-requests/${request.id}.`,
      topic: 'refund.requested',
    });
    return {
      refund_request_id: request.id,
      amount_cents: Number(request.amount_cents),
      currency: request.currency,
      status: 'pending_owner_approval' as const,
    };
  }, { cancelled: 'include', missingStatus: 404 });
}

/**
 * The landlord's answer to the open refund request of a placement, in the carrier's tenant
 * transaction. Approving queues the refund (issue_refund); declining reports payment.refunded with
 * outcome declined and lets the carrier ask again.
 */
export async function decideRefund(tx: Tx, claim: ClaimRow, placement: Pick<PlacementRow, 'id' | 'property_id'>, approve: boolean): Promise<RefundRequestRow> {
  const open = await openRefundRequest(tx, placement.id);
  if (!open || open.status !== 'pending_owner_approval') {
    throw new ApiError('no_refund_request', 'No refund request is waiting for the landlord on this home.');
  }
  if (!approve) {
    const declined = (await moveRefundRequest(tx, open.id, 'pending_owner_approval', 'declined'))!;
    await emit(tx, 'payment.refunded', { ...onHome(claim, placement), refund_request_id: open.id, outcome: 'declined', amount: 0, currency: open.currency });
    return declined;
  }
  const approved = (await moveRefundRequest(tx, open.id, 'pending_owner_approval', 'approved'))!;
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
  await inPlacementById(carrier, found.claim_home_id, ({ tx, claim, placement }) => decideRefund(tx, claim, placement, approve));
  const after = await withTenant(caller, (tx) => providerRefundRequest(tx, id));
  return renderRefundForProvider(after!);
}
