import { db, type Tx } from '../db/client.ts';
import { afterCursorRow, assertCursorRowVisible } from '../db/paging.ts';
import type { ChargeShare, ChargeType, Payer } from './billing.ts';

// The money of a placement in SQL: payments and the booking (rows owned by the landlord, written by
// the carrier whose request they are for: the counterpart policies of the payments migration) and
// refund requests. Everything but livePaymentByRef (which finds the tenant of a processor
// notification) runs inside a tenant transaction: the request's, or the landlord's for
// providerRefundRequests.

export interface Payee {
  org_id: string;
  name: string;
  processor_account_id: string | null;
  charges_enabled: boolean;
  contact_email: string | null;
}

export async function payeeOf(tx: Tx, propertyId: string): Promise<Payee> {
  const [row] = await tx<Payee[]>`select * from app.payee_of(${propertyId}, app.current_env())`;
  return row;
}

export interface PaymentRow {
  id: string;
  org_id: string;
  booking_id: string | null;
  claim_home_id: string;
  lease_agreement_id: string | null;
  charge_type: ChargeType;
  /** pending: a live checkout opened and not settled yet. */
  status: 'pending' | 'succeeded' | 'failed' | 'refunded';
  rent_cents: number;
  deposit_cents: number;
  fees_cents: number;
  gross_cents: number;
  platform_fee_cents: number;
  processing_fee_cents: number;
  net_cents: number;
  currency: string;
  covers_rent: boolean;
  covers_deposit: boolean;
  /** Who paid the share; null on payments recorded before charges were split by payer. */
  payer: Payer | null;
  period_start: string | null;
  period_end: string | null;
  paid_at: Date | null;
  refunded_cents: number;
  refunded_at: Date | null;
  provider_ref: string | null;
  failure_reason: string | null;
  checkout_ref: string | null;
  checkout_url: string | null;
  checkout_expires_at: Date | null;
  /** A charge that cleared for what this other payment had already paid: refunded automatically. */
  duplicate_of: string | null;
  created_at: Date;
}

export interface PaymentWrite {
  payee: Payee;
  placement: { id: string; claim_id: string; property_id: string };
  leaseId: string;
  charge: Pick<ChargeShare, 'chargeType' | 'payer' | 'periodStart' | 'periodEnd' | 'rentCents' | 'depositCents' | 'feesCents' | 'split'>;
  currency: string;
  providerRef: string;
  bookingId: string | null;
  /** The pay page's checkout attempt the outcome settles (its pending payment); absent for a charge settled at once. */
  attemptId?: string;
}

/**
 * Records a settled charge: the checkout attempt it settles, the failed record of the same processor
 * payment (the payer retried the same PaymentIntent: a later success always wins over an earlier
 * failure, whose events stay), or a new payment. Null when this processor payment is already
 * recorded as settled (a notification delivered twice). A charge for parts of a period another
 * payment already paid (two checkouts both paid, a payment racing another) is recorded as a
 * duplicate of that payment (`duplicate_of`): money moved, so it is kept, and it is refunded.
 */
export async function insertSucceeded(tx: Tx, write: PaymentWrite): Promise<PaymentRow | null> {
  // Another processor payment for an attempt already settled is a new record (and so a duplicate).
  try {
    return await tx.savepoint(async (sp) => (await settleExisting(sp, write, null)) ?? insertSettled(sp, write, null));
  } catch (error) {
    if (!isPartAlreadyPaid(error)) throw error;
    const duplicateOf = await settledPaymentOfParts(tx, write);
    return (await settleExisting(tx, write, duplicateOf)) ?? insertSettled(tx, write, duplicateOf);
  }
}

/** A unique violation of one of the one-settled-charge-per-part indexes. */
const isPartAlreadyPaid = (error: unknown) =>
  (error as { code?: string }).code === '23505' && /^payments_one_per_charge/.test((error as { constraint_name?: string }).constraint_name ?? '');

/** The settled payment that already paid a part of this charge's period. */
async function settledPaymentOfParts(tx: Tx, write: PaymentWrite): Promise<string> {
  const { charge } = write;
  const [row] = await tx<{ id: string }[]>`
    select id from app.payments
     where claim_home_id = ${write.placement.id} and lease_agreement_id = ${write.leaseId} and charge_type = ${charge.chargeType}
       and period_start = ${charge.periodStart} and status in ('succeeded', 'refunded') and duplicate_of is null
       and ((rent_cents > 0 and ${charge.rentCents}::bigint > 0) or (deposit_cents > 0 and ${charge.depositCents}::bigint > 0)
            or (fees_cents > 0 and ${charge.feesCents}::bigint > 0))
     order by paid_at, id limit 1`;
  return row.id;
}

/**
 * What every payment row of a share starts with, for the three inserts (a settled charge, a failed
 * one, a checkout attempt): who is paid and who pays, the placement and lease, the share's parts.
 */
const shareColumns = (tx: Tx) => tx`
  org_id, environment, property_id, carrier_org_id, claim_id, claim_home_id, lease_agreement_id, charge_type, payer,
  rent_cents, deposit_cents, fees_cents, currency, period_start, period_end`;
const shareValues = (tx: Tx, write: Omit<PaymentWrite, 'providerRef' | 'bookingId'>) => tx`
  ${write.payee.org_id}, app.current_env(), ${write.placement.property_id}, app.current_org(), ${write.placement.claim_id},
  ${write.placement.id}, ${write.leaseId}, ${write.charge.chargeType}, ${write.charge.payer}, ${write.charge.rentCents},
  ${write.charge.depositCents}, ${write.charge.feesCents}, ${write.currency.toLowerCase()}, ${write.charge.periodStart}, ${write.charge.periodEnd}`;

/** The columns a settled charge sets, on a new row or an existing attempt. */
const settledColumns = (write: PaymentWrite) => ({
  booking_id: write.bookingId,
  lease_agreement_id: write.leaseId,
  charge_type: write.charge.chargeType,
  payer: write.charge.payer,
  rent_cents: write.charge.rentCents,
  deposit_cents: write.charge.depositCents,
  fees_cents: write.charge.feesCents,
  platform_fee_cents: write.charge.split.platformFeeCents,
  processing_fee_cents: write.charge.split.processingFeeCents,
  period_start: write.charge.periodStart,
  period_end: write.charge.periodEnd,
  provider_ref: write.providerRef,
});

/** Settles the attempt (or the failed record of the same processor payment) as succeeded; null when there is none to settle. */
async function settleExisting(tx: Tx, write: PaymentWrite, duplicateOf: string | null): Promise<PaymentRow | null> {
  const [row] = await tx<PaymentRow[]>`
    update app.payments
       set ${tx(settledColumns(write))}, status = 'succeeded', failure_reason = null, paid_at = clock_timestamp(), duplicate_of = ${duplicateOf}
     where claim_home_id = ${write.placement.id} and status in ('pending', 'failed')
       and ${write.attemptId ? tx`id = ${write.attemptId}` : tx`environment = app.current_env() and provider_ref = ${write.providerRef}`}
    returning *`;
  return row ?? null;
}

/** A new settled payment; null when this processor payment is already recorded. */
async function insertSettled(tx: Tx, write: PaymentWrite, duplicateOf: string | null): Promise<PaymentRow | null> {
  const [row] = await tx<PaymentRow[]>`
    insert into app.payments (${shareColumns(tx)}, booking_id, status, platform_fee_cents, processing_fee_cents, paid_at, provider_ref, duplicate_of)
    values (${shareValues(tx, write)}, ${write.bookingId}, 'succeeded', ${write.charge.split.platformFeeCents},
            ${write.charge.split.processingFeeCents}, clock_timestamp(), ${write.providerRef}, ${duplicateOf})
    on conflict (environment, provider_ref) where provider_ref is not null do nothing
    returning *`;
  return row ?? null;
}

/** Records a failed charge: the attempt it settles, or a new failed payment; null when already recorded. */
export async function insertFailed(tx: Tx, write: PaymentWrite, reason: string): Promise<PaymentRow | null> {
  if (write.attemptId) {
    const [row] = await tx<PaymentRow[]>`
      update app.payments set status = 'failed', provider_ref = ${write.providerRef}, failure_reason = ${reason}
       where id = ${write.attemptId} and claim_home_id = ${write.placement.id} and status = 'pending'
      returning *`;
    return row ?? null;
  }
  const [row] = await tx<PaymentRow[]>`
    insert into app.payments (${shareColumns(tx)}, booking_id, status, provider_ref, failure_reason)
    values (${shareValues(tx, write)}, ${write.bookingId}, 'failed', ${write.providerRef}, ${reason})
    on conflict do nothing
    returning *`;
  return row ?? null;
}

/** The open checkout attempt of a payer's share of a period, locked; null when none is open. */
export async function openCheckout(tx: Tx, placementId: string, periodStart: string, payer: string): Promise<PaymentRow | null> {
  const [row] = await tx<PaymentRow[]>`
    select * from app.payments
     where claim_home_id = ${placementId} and period_start = ${periodStart} and payer = ${payer} and status = 'pending'
     for update`;
  return row ?? null;
}

/** Opens a checkout attempt: a pending payment of the share, settled later by the processor's notification. */
export async function insertPending(tx: Tx, write: Omit<PaymentWrite, 'providerRef' | 'bookingId'>, expiresAt: Date): Promise<PaymentRow> {
  const [row] = await tx<PaymentRow[]>`
    insert into app.payments (${shareColumns(tx)}, status, platform_fee_cents, processing_fee_cents, checkout_expires_at)
    values (${shareValues(tx, write)}, 'pending', ${write.charge.split.platformFeeCents}, ${write.charge.split.processingFeeCents}, ${expiresAt})
    returning *`;
  return row;
}

/** The processor's checkout of an attempt, once created. */
export async function recordCheckout(tx: Tx, paymentId: string, checkout: { providerRef: string; url: string }): Promise<void> {
  await tx`update app.payments set checkout_ref = ${checkout.providerRef}, checkout_url = ${checkout.url} where id = ${paymentId} and status = 'pending'`;
}

/**
 * Why an attempt was closed by the service, not by the processor: a newer attempt replaced it, or
 * the processor could not be reached to open its checkout (nothing was charged).
 */
const replacedReasons = ['checkout_expired', 'amount_changed', 'checkout_not_opened'] as const;

/** Whether a failed payment is an attempt the service replaced (no charge failed at the processor). */
export const isReplacedCheckout = (payment: Pick<PaymentRow, 'status' | 'failure_reason' | 'provider_ref'>) =>
  payment.status === 'failed' && payment.provider_ref === null && (replacedReasons as readonly (string | null)[]).includes(payment.failure_reason);

/** Closes an attempt that can no longer be paid as it was opened (a newer attempt replaces it), or whose checkout never opened. */
export async function abandonCheckout(tx: Tx, paymentId: string, reason: (typeof replacedReasons)[number]): Promise<void> {
  await tx`update app.payments set status = 'failed', failure_reason = ${reason} where id = ${paymentId} and status = 'pending'`;
}

export async function paymentsOf(tx: Tx, placementId: string): Promise<PaymentRow[]> {
  return tx<PaymentRow[]>`select * from app.payments where claim_home_id = ${placementId} order by created_at, id`;
}

/** The settled payments of a placement that count for its stay (not duplicates), the most recent first. */
export async function settledPayments(tx: Tx, placementId: string): Promise<PaymentRow[]> {
  return tx<PaymentRow[]>`
    select * from app.payments
     where claim_home_id = ${placementId} and status in ('succeeded', 'refunded') and duplicate_of is null
       and lease_agreement_id is not null and period_start is not null
     order by paid_at desc, id desc`;
}

/**
 * Records money returned on a payment: a refund the service issued adds its amount (`add`, once
 * per refund request); what the processor reports refunded in all sets at least that much
 * (`at_least`, charge.refunded). Never above the gross; the payment is refunded once all of it came
 * back, and a partial refund leaves it succeeded with the rest refundable.
 */
export async function recordRefunded(tx: Tx, paymentId: string, cents: number, mode: 'add' | 'at_least'): Promise<void> {
  const refunded = () => mode === 'add'
    ? tx`least(gross_cents, refunded_cents + ${cents})`
    : tx`least(gross_cents, greatest(refunded_cents, ${cents}))`;
  await tx`
    update app.payments
       set refunded_cents = ${refunded()},
           status = case when ${refunded()} >= gross_cents then 'refunded' else status end,
           refunded_at = case when ${refunded()} >= gross_cents then coalesce(refunded_at, clock_timestamp()) else refunded_at end
     where id = ${paymentId} and status in ('succeeded', 'refunded')`;
}

export interface BookingRow {
  id: string;
  org_id: string;
  property_id: string;
  lease_agreement_id: string;
  booking_status: 'confirmed' | 'cancelled' | 'completed';
  check_in: string;
  check_out: string;
  move_in_confirmed_at: Date | null;
  cancelled_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
}

/** Confirms the booking of a contract version; returns the existing one when already confirmed. */
export async function confirmBooking(
  tx: Tx,
  payee: Payee,
  placement: { id: string; claim_id: string; property_id: string },
  lease: { id: string; move_in_date: string; move_out_date: string },
  currency: string,
): Promise<{ booking: BookingRow; created: boolean }> {
  const [created] = await tx<BookingRow[]>`
    insert into app.bookings (org_id, environment, property_id, carrier_org_id, claim_id, claim_home_id, lease_agreement_id, check_in, check_out, currency)
    values (${payee.org_id}, app.current_env(), ${placement.property_id}, app.current_org(), ${placement.claim_id}, ${placement.id},
            ${lease.id}, ${lease.move_in_date}, ${lease.move_out_date}, ${currency.toLowerCase()})
    on conflict (lease_agreement_id) where booking_status = 'confirmed' do nothing
    returning *`;
  if (created) {
    await tx`select app.book_holds(${lease.id}, app.current_env())`;
    await tx`update app.claim_homes set booked_at = clock_timestamp() where id = ${placement.id}`;
    return { booking: created, created: true };
  }
  return { booking: (await confirmedBooking(tx, placement.id))!, created: false };
}

export async function confirmedBooking(tx: Tx, placementId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    select * from app.bookings where claim_home_id = ${placementId} and booking_status = 'confirmed' for update`;
  return row ?? null;
}

/** The booking a lease's stay was closed out as (completed), locked; null when it has none. */
export async function completedBookingOf(tx: Tx, leaseId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    select * from app.bookings where lease_agreement_id = ${leaseId} and booking_status = 'completed' for update`;
  return row ?? null;
}

/** Whether the placement has a booked stay (confirmed, or completed), without locking it. */
export async function isBooked(tx: Tx, placementId: string): Promise<boolean> {
  const [row] = await tx<{ booked: boolean }[]>`
    select exists (select 1 from app.bookings where claim_home_id = ${placementId} and booking_status in ('confirmed', 'completed')) as booked`;
  return row.booked;
}

/** The placement's stay, confirmed or already completed (not a cancelled one), locked. */
export async function stayBooking(tx: Tx, placementId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    select * from app.bookings where claim_home_id = ${placementId} and booking_status in ('confirmed', 'completed')
     order by created_at desc limit 1 for update`;
  return row ?? null;
}

/** Closes out a confirmed booking whose move-out came; null when it is not confirmed (any more). */
export async function completeBooking(tx: Tx, booking: BookingRow): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    update app.bookings set booking_status = 'completed', completed_at = clock_timestamp(), updated_at = clock_timestamp()
     where id = ${booking.id} and booking_status = 'confirmed'
    returning *`;
  return row ?? null;
}

export async function attachPayment(tx: Tx, paymentId: string, bookingId: string): Promise<void> {
  await tx`update app.payments set booking_id = ${bookingId} where id = ${paymentId} and booking_id is null`;
}

/** Move-in: once; null when already recorded or the booking is not confirmed. */
export async function recordMoveIn(tx: Tx, bookingId: string, placementId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    update app.bookings set move_in_confirmed_at = clock_timestamp(), updated_at = clock_timestamp()
     where id = ${bookingId} and booking_status = 'confirmed' and move_in_confirmed_at is null
    returning *`;
  if (row) await tx`update app.claim_homes set moved_in_at = ${row.move_in_confirmed_at} where id = ${placementId}`;
  return row ?? null;
}

/** The booking ends on another day (a stay shortened, or extended). */
export async function setCheckOut(tx: Tx, bookingId: string, checkOut: string): Promise<BookingRow> {
  const [row] = await tx<BookingRow[]>`
    update app.bookings set check_out = ${checkOut}, updated_at = clock_timestamp() where id = ${bookingId} returning *`;
  return row;
}

export async function cancelBookingRow(tx: Tx, bookingId: string, reason: string | null): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    update app.bookings set booking_status = 'cancelled', cancelled_at = clock_timestamp(), cancel_reason = ${reason}, updated_at = clock_timestamp()
     where id = ${bookingId} and booking_status = 'confirmed'
    returning *`;
  return row ?? null;
}

/** The home's name and the provider's reference of it, for the provider's booking events. */
export async function homeLabel(tx: Tx, propertyId: string): Promise<{ name: string | null; external_id: string | null }> {
  const [row] = await tx<{ name: string | null; external_id: string | null }[]>`
    select name, external_id from app.home_label(${propertyId})`;
  return row ?? { name: null, external_id: null };
}

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
  claim_home_id: string;
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
    insert into app.refund_request_asks (org_id, environment, claim_id, claim_home_id, property_id, provider_org_id, payment_id,
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
    insert into app.refund_request_asks (org_id, environment, claim_id, claim_home_id, property_id, provider_org_id, payment_id,
                                         amount_cents, currency, covers_deposit, reason, automatic)
    select app.current_org(), app.current_env(), p.claim_id, p.claim_home_id, p.property_id, p.org_id, p.id,
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
    select * from app.refund_requests where claim_home_id = ${placementId} and status in ('pending_owner_approval', 'approved') and not automatic`;
  return row ?? null;
}

export async function refundRequestsOf(tx: Tx, placementId: string): Promise<RefundRequestRow[]> {
  return tx<RefundRequestRow[]>`select * from app.refund_requests where claim_home_id = ${placementId} order by created_at, id`;
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

/** Where a placement is (its request and home), by its id; null when the tenant has no such placement. */
export async function placementKeys(tx: Tx, placementId: string): Promise<{ claim_id: string; property_id: string } | null> {
  const [row] = await tx<{ claim_id: string; property_id: string }[]>`
    select claim_id, property_id from app.claim_homes where id = ${placementId}`;
  return row ?? null;
}

/** The offer and lease state of the request's other homes still in play. */
export async function otherHomesState(tx: Tx, claimId: string, placementId: string): Promise<HomeState[]> {
  return tx<HomeState[]>`
    select h.option_status, h.application_status, h.lease_status, h.proposed_at,
           exists (select 1 from app.bookings b where b.claim_home_id = h.id and b.booking_status in ('confirmed', 'completed')) as booked
      from app.claim_homes h
     where h.claim_id = ${claimId} and h.id <> ${placementId} and h.option_status not in ('declined', 'cancelled') and h.application_status <> 'declined'`;
}

/** Where a home on a request stands, for the status the request's homes support. */
export interface HomeState {
  option_status: string;
  application_status: string;
  lease_status: string | null;
  proposed_at: Date | null;
  /** Whether a confirmed booking stands on it (paid and booked). */
  booked: boolean;
}

/**
 * Claims a processor event for the tenant in its transaction: false when it was claimed before (a
 * repeated delivery), so each event is acted on once.
 */
export async function claimProcessorEvent(
  tx: Tx,
  event: { eventId: string; kind: string; connectedAccount: string | null },
  outcome: string,
): Promise<boolean> {
  const [row] = await tx<{ claimed: boolean }[]>`
    select app.claim_processor_event(${event.eventId}, ${event.kind}, ${event.connectedAccount}, ${outcome}) as claimed`;
  return row.claimed;
}

/**
 * The live payment a processor notification names, across tenants (the notification carries no
 * key): its id and the carrier whose tenant transaction records the change.
 */
export async function livePaymentByRef(paymentRef: string): Promise<{ id: string; carrier_org_id: string } | null> {
  const [payment] = await db()<{ id: string; carrier_org_id: string }[]>`
    select id, carrier_org_id from app.payments where environment = 'live' and provider_ref = ${paymentRef}`;
  return payment ?? null;
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
 * id), `limit` + 1 rows at most, after the row a cursor names (shared/http/paging.ts). The
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
