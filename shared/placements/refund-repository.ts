import type { Tx } from '../db/client.ts';
import { afterCursorRow, assertCursorRowVisible } from '../db/paging.ts';
import type { PaymentRow } from './payment-repository.ts';

// The SQL of refund requests: asked (app.refund_request_asks), moved step by step
// (app.refund_request_changes), read as app.refund_requests. Runs inside a tenant transaction: the
// request's, or the landlord's for providerRefundRequests.

/** A step of a refund request's life (app.refund_request_changes), oldest first. */
export interface RefundStep {
  status: RefundRequestRow['status'];
  /** When it moved, as Postgres prints it in JSON. */
  at: string;
  moved_by: RefundMover;
}

/** Who or what moves a refund request: the carrier asks, the landlord answers, the processor issues or fails it. */
export type RefundMover = 'carrier' | 'landlord' | 'service' | 'processor';

/**
 * A refund request as app.refund_requests reads it: as asked (never changed), with its status and
 * times derived from its steps, and the steps themselves (history). Written only by
 * insertRefundRequest / insertAutomaticRefund (the ask, and its first step by trigger) and
 * moveRefundRequest (each next step, appended).
 */
export interface RefundRequestRow {
  id: string;
  org_id: string;
  claim_id: string;
  claim_option_id: string;
  property_id: string;
  provider_org_id: string;
  payment_id: string;
  amount_cents: number;
  currency: string;
  covers_deposit: boolean;
  reason: string | null;
  status: 'pending_owner_approval' | 'approved' | 'declined' | 'refunded' | 'failed';
  /** What the refund returns: what is owed back to the payer, or the deposits held. */
  purpose: 'owed_back' | 'deposit';
  /** Asked beyond what the purpose returns: the rest is posted as goodwill. */
  goodwill: boolean;
  automatic: boolean;
  decided_at: Date | null;
  refunded_at: Date | null;
  provider_ref: string | null;
  failure_reason: string | null;
  created_at: Date;
  history: RefundStep[];
}

/** The request as app.refund_requests reads it now, or null. */
async function refundRequestById(tx: Tx, id: string): Promise<RefundRequestRow | null> {
  const [row] = await tx<RefundRequestRow[]>`select * from app.refund_requests where id = ${id}`;
  return row ?? null;
}

/**
 * Opens a refund request (its first step is appended by trigger); null when one is already open on
 * the placement. The command holds the placement's lock; the ask's trigger refuses a second open
 * request anyway (unique_violation, refund_requests_one_open), so a race without the lock is refused too.
 */
export async function insertRefundRequest(
  tx: Tx,
  placement: { id: string; claim_id: string; property_id: string },
  payment: PaymentRow,
  reason: string | null,
  amountCents: number,
  what: Pick<RefundRequestRow, 'purpose' | 'goodwill'>,
): Promise<RefundRequestRow | null> {
  const asked = await tx.savepoint((sp) => sp<{ id: string }[]>`
    insert into app.refund_request_asks (org_id, environment, claim_id, claim_option_id, property_id, provider_org_id, payment_id,
                                         amount_cents, currency, covers_deposit, reason, purpose, goodwill)
    values (app.current_org(), app.current_env(), ${placement.claim_id}, ${placement.id}, ${placement.property_id}, ${payment.org_id},
            ${payment.id}, ${amountCents}, ${payment.currency}, ${payment.covers_deposit}, ${reason}, ${what.purpose}, ${what.goodwill})
    returning id`).catch((e: { code?: string }) => {
    if (e.code === '23505') return [];
    throw e;
  });
  return asked.length ? refundRequestById(tx, asked[0].id) : null;
}

/**
 * The service's own refund of a duplicate charge: asked and approved at once, both steps by the
 * service; null when it exists already (one per payment, a unique index).
 */
export async function insertAutomaticRefund(tx: Tx, payment: PaymentRow, reason: string): Promise<RefundRequestRow | null> {
  const [asked] = await tx<{ id: string }[]>`
    insert into app.refund_request_asks (org_id, environment, claim_id, claim_option_id, property_id, provider_org_id, payment_id,
                                         amount_cents, currency, covers_deposit, reason, automatic)
    select app.current_org(), app.current_env(), p.claim_id, p.claim_option_id, p.property_id, p.org_id, p.id,
           p.gross_cents, p.currency, p.covers_deposit, ${reason}, true
      from app.payments p where p.id = ${payment.id}
    on conflict do nothing
    returning id`;
  if (!asked) return null;
  return moveRefundRequest(tx, asked.id, 'pending_owner_approval', 'approved', 'service');
}

/** The placement's open carrier's request (pending or approved), if any; the command holds the placement's lock. */
export async function openRefundRequest(tx: Tx, placementId: string): Promise<RefundRequestRow | null> {
  const [row] = await tx<RefundRequestRow[]>`
    select * from app.refund_requests where claim_option_id = ${placementId} and status in ('pending_owner_approval', 'approved') and not automatic`;
  return row ?? null;
}

export async function refundRequestsOf(tx: Tx, placementId: string): Promise<RefundRequestRow[]> {
  return tx<RefundRequestRow[]>`select * from app.refund_requests where claim_option_id = ${placementId} order by created_at, id`;
}

/**
 * Moves a refund request from one of `from` to `to` by appending the step (never updating the
 * request); null when its last step is none of `from`. The changes' trigger refuses a step that
 * does not follow the last one, and appends one step at a time per request.
 */
export async function moveRefundRequest(
  tx: Tx,
  id: string,
  from: RefundRequestRow['status'] | readonly RefundRequestRow['status'][],
  to: RefundRequestRow['status'],
  by: RefundMover,
  columns: { provider_ref?: string; failure_reason?: string } = {},
): Promise<RefundRequestRow | null> {
  const [moved] = await tx<{ request_id: string }[]>`
    insert into app.refund_request_changes (request_id, status, moved_by, provider_ref, failure_reason)
    select r.id, ${to}, ${by}, ${columns.provider_ref ?? null}, ${columns.failure_reason ?? null}
      from app.refund_requests r
     where r.id = ${id} and r.status = any(${typeof from === 'string' ? [from] : [...from]})
    returning request_id`;
  return moved ? refundRequestById(tx, moved.request_id) : null;
}

/** What issuing a refund needs: the request, the payment's processor reference and the landlord's account. */
export interface RefundContext {
  request: RefundRequestRow;
  payment_ref: string | null;
  connected_account: string | null;
}

export async function refundContext(tx: Tx, refundRequestId: string): Promise<RefundContext | null> {
  const [row] = await tx<RefundContext[]>`
    select to_jsonb(r) as request, p.provider_ref as payment_ref,
           (select processor_account_id from app.payee_of(r.property_id, r.environment)) as connected_account
      from app.refund_requests r join app.payments p on p.id = r.payment_id
     where r.id = ${refundRequestId}`;
  return row ?? null;
}

export type ProviderRefundRequestRow = RefundRequestRow & { reference: string };

const providerRefundColumns = (tx: Tx) => tx`r.*, (select claim_ref from app.refund_request_reference(r.id)) as reference`;

/**
 * A page of the refund requests on the calling provider's homes, newest first (created_at, then
 * id), `limit` + 1 rows at most, after the row a cursor names (shared/db/paging.ts). The
 * provider_org_id condition is not a tenant filter: the carrier that asked also reads these rows,
 * and this list is the landlord's side of them.
 */
export async function providerRefundRequests(tx: Tx, query: { limit: number; after?: string }): Promise<ProviderRefundRequestRow[]> {
  const rows = await tx<ProviderRefundRequestRow[]>`
    select ${providerRefundColumns(tx)}
      from app.refund_requests r
     where r.provider_org_id = app.current_org()
       ${afterCursorRow(tx, 'r', 'app.refund_requests', query.after)}
     order by r.created_at desc, r.id desc
     limit ${query.limit + 1}`;
  await assertCursorRowVisible(tx, 'app.refund_requests', query.after, rows);
  return rows;
}

/** One refund request on the calling provider's homes, or null. */
export async function providerRefundRequest(tx: Tx, id: string): Promise<ProviderRefundRequestRow | null> {
  const [row] = await tx<ProviderRefundRequestRow[]>`
    select ${providerRefundColumns(tx)} from app.refund_requests r where r.provider_org_id = app.current_org() and r.id = ${id}`;
  return row ?? null;
}
