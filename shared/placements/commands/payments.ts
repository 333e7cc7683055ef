import type { Tx } from '../../db/client.ts';
import { emit } from '../../events/outbox.ts';
import { moveStatus } from '../../claims/lifecycle.ts';
import { conflict } from '../../domain-errors.ts';
import { fromCents } from '../../money.ts';
import type { ChargeType, Payer } from '../billing.ts';
import { lockLease, type LeaseRow } from '../lease.ts';
import type { LedgerCharge } from '../ledger.ts';
import { postDuplicateRefund, postPayment, postSignedVersions } from '../stay-ledger.ts';
import { chargesAsNamed, isPaid, ledgerOf, moneyOf, type Due } from '../stay-money.ts';
import { putExtensionInEffect } from './extensions.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { onHome, providerBookingFields } from '../render.ts';
import { attachPayment, insertFailed, insertSucceeded, payeeOf, type Payee, type PaymentRow, type PaymentWrite } from '../payment-repository.ts';
import { completedBookingOf, confirmBooking, confirmedBooking } from '../booking-repository.ts';
import { homeLabel } from '../listing-repository.ts';
import { insertAutomaticRefund } from '../refund-repository.ts';
import { currentLease } from '../contract-repository.ts';
import type { OptionRow } from '../option-repository.ts';
import { scheduleCloseout } from '../schedule.ts';
import { enqueue } from '../../jobs/queue.ts';
import { log } from '../../log.ts';

// A payment on a placement: what is due now, and the outcome of a charge. One command for every
// way a payment arrives (the sandbox helper, the pay page in sandbox, the processor's notification
// in live), run in the request's tenant transaction with the request and the placement locked, so
// a payment and a cancellation of the same placement take turns.
//
// A charge whose parts have different payers is paid in shares, one per payer (../billing.ts); each
// share is a payment of its own. A cleared payment records the share (platform fee from rent only,
// processing fee from the fee model) and emits payment.succeeded to the carrier and the provider;
// the one that completes the first payment (every share of it settled) confirms the booking (the
// lease hold becomes a booking hold, the request moves to booking_confirmed, booking.confirmed to
// both), and the one that completes an extension's charge puts the extension in effect. A failed
// one records the attempt and emits payment.failed to both; the request stays awaiting payment
// (payment_setup, where both signatures put it); nothing else moves.

export interface Payable {
  /** The contract version whose charge is due: the lease, or an extension's addendum. */
  lease: LeaseRow;
  payee: Payee;
  currency: string;
  /** The charge due now and its unpaid shares (one per payer); null when nothing is due. */
  due: Due | null;
}

/**
 * The placement's payable state, or 409 when it cannot be paid (lease not fully signed, charges off).
 * What is due is read from the stay's ledger (../stay-ledger.ts): the first charge, in the order
 * they are paid (a signed extension first, then the first payment, then rent by period), with a part
 * no settled payment paid; a rent period only from its first day.
 *
 * A cancelled placement is paid only for what its stay still charges and is due: a stay cancelled
 * once moved in keeps the nights used before the cancellation (the lease they were signed on was
 * withdrawn by it), and their payer still pays them. Otherwise it is refused as before, as a home
 * no longer on the request.
 */
export async function payable(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<Payable> {
  const lease = await currentLease(tx, placement);
  const cancelled = placement.option_status === 'cancelled';
  const notOnRequest = () => conflict('not_on_request', 'This home is not on the request (the placement was cancelled) and nothing of its stay is left to pay.', 'property_id');
  const signedByBoth = lease?.status === 'fully_signed' ||
    (cancelled && lease?.status === 'withdrawn' && lease.policyholder_signed_at !== null && lease.owner_signed_at !== null);
  if (!lease || !signedByBoth) {
    if (cancelled) throw notOnRequest();
    throw conflict('lease_not_signed', `Payment is unlocked once the lease is fully signed; it is ${lease?.status ?? 'not issued yet'}.`);
  }
  const payee = await payeeOf(tx, placement.property_id);
  const chargesDisabled = () =>
    conflict('charges_disabled', "The landlord's payment account cannot take charges right now; nothing can be paid until the landlord finishes setup.");
  // A cancelled placement with nothing left to pay is refused as such, whatever the landlord's account.
  if (!payee.charges_enabled && !cancelled) throw chargesDisabled();
  const { ledger, due } = await moneyOf(tx, claim, placement);
  const currency = ledger.currency ?? lease.terms?.home.currency ?? 'usd';
  if (!due && cancelled) throw notOnRequest();
  if (!payee.charges_enabled) throw chargesDisabled();
  if (!due) return { lease, payee, currency, due: null };
  const version = due.charge.leaseId === lease.id ? lease : await lockLease(tx, due.charge.leaseId);
  return { lease: version ?? lease, payee, currency, due };
}

/**
 * The charge a processor notification names (the version, its type and the period's first day), as
 * the ledger holds it now and as its version's signing posted it: a checkout opened before a change
 * (a cancellation, a shortening) charged what was due then, and the money it moved is recorded.
 * Empty when the ledger has no such charge.
 */
export async function chargesNamed(tx: Tx, claim: ClaimRow, placement: OptionRow, lease: LeaseRow, chargeType: ChargeType, periodStart: string): Promise<LedgerCharge[]> {
  // The notification's command records a payment: a stay signed before the ledger existed is posted first.
  await postSignedVersions(tx, claim, placement);
  const { entries } = await ledgerOf(tx, placement);
  return chargesAsNamed(entries, { leaseId: lease.id, chargeType, periodStart });
}

/** The shares due now (the payer's alone, when one is named), or 409 nothing_due. */
export function requireDue(state: Payable, payer?: Payer): Due {
  const shares = state.due?.shares.filter((share) => !payer || share.payer === payer) ?? [];
  if (!state.due || shares.length === 0) {
    throw conflict('nothing_due', payer
      ? `Nothing is due from the ${payer} on this placement right now.`
      : 'Nothing is due on this placement right now: every period started so far is paid.');
  }
  return { charge: state.due.charge, shares };
}

/**
 * A charge that cleared for what another payment had already paid (two checkouts of one share both
 * paid, one of them after it was replaced): the payer must not pay twice, so the service refunds it
 * at once through the refund job, as an automatic refund request (approved when made), and says so
 * to the carrier (payment.duplicate now, payment.refunded when the refund is issued) and on the timeline.
 */
async function refundDuplicate(tx: Tx, claim: ClaimRow, placement: OptionRow, payment: PaymentRow): Promise<void> {
  const amount = fromCents(Number(payment.gross_cents));
  const refund = await insertAutomaticRefund(tx, payment, `A second charge for what payment ${payment.duplicate_of} already paid: refunded automatically.`);
  if (!refund) return;
  await postDuplicateRefund(tx, placement, settledPayment(payment), refund.id);
  await enqueue(tx, 'issue_refund', { refund_request_id: refund.id }, { dedupeKey: refund.id });
  log.warn('duplicate charge refunded automatically', { payment_id: payment.id, duplicate_of: payment.duplicate_of, placement_id: placement.id });
  await emit(tx, 'payment.duplicate', {
    ...onHome(claim, placement),
    payment_id: payment.id,
    duplicate_of: payment.duplicate_of!,
    charge_type: payment.charge_type,
    payer: payment.payer,
    amount,
    currency: payment.currency,
    refund_request_id: refund.id,
  });
}

export interface ChargeOutcome {
  status: 'succeeded' | 'failed';
  providerRef: string;
  failureReason?: string;
  /** The pay page's checkout attempt this outcome settles. */
  attemptId?: string;
}

/**
 * Records the outcome of a payer's share of `whole` (the charge it is part of) on the placement,
 * with its booking, events and status. Returns the payment, or null when this share was already
 * recorded (nothing happens twice).
 */
export async function recordCharge(
  tx: Tx,
  claim: ClaimRow,
  placement: OptionRow,
  state: Pick<Payable, 'lease' | 'payee' | 'currency'>,
  share: PaymentWrite['charge'],
  whole: LedgerCharge,
  outcome: ChargeOutcome,
): Promise<PaymentRow | null> {
  // A period paid after the closeout belongs to the stay that was closed: it books nothing again.
  const existing = await confirmedBooking(tx, placement.id) ?? await completedBookingOf(tx, state.lease.extends_lease_id ?? state.lease.id);
  const write: PaymentWrite = {
    payee: state.payee,
    placement,
    leaseId: state.lease.id,
    charge: share,
    currency: state.currency,
    providerRef: outcome.providerRef,
    bookingId: existing?.id ?? null,
    attemptId: outcome.attemptId,
  };
  const label = await homeLabel(tx, placement.property_id);
  const provider = { orgId: state.payee.org_id, environment: claim.environment };
  const providerPayment = (payment: PaymentRow) => ({
    payment_id: payment.id,
    booking_id: payment.booking_id,
    property_id: placement.property_id,
    external_id: label.external_id,
    charge_type: payment.charge_type,
    gross: fromCents(Number(payment.gross_cents)),
    currency: payment.currency,
  });

  if (outcome.status === 'failed') {
    const failed = await insertFailed(tx, write, outcome.failureReason ?? 'card_declined');
    if (!failed) return null;
    await emit(tx, 'payment.failed', {
      ...onHome(claim, placement),
      payment_id: failed.id,
      charge_type: failed.charge_type,
      amount: fromCents(Number(failed.gross_cents)),
      currency: failed.currency,
      failure_reason: failed.failure_reason!,
    });
    await emit(tx, 'payment.failed', { ...providerPayment(failed), failure_reason: failed.failure_reason }, provider);
    // Awaiting payment still: a no-op since both signatures move there, kept for requests signed before they did.
    await moveStatus(tx, [claim.id], 'payment_setup');
    return failed;
  }

  const payment = await insertSucceeded(tx, write);
  if (!payment) return null;
  await postPayment(tx, placement, settledPayment(payment));
  if (payment.duplicate_of) {
    await refundDuplicate(tx, claim, placement, payment);
    return payment;
  }
  let bookingId = existing?.id ?? null;
  const wholePaid = isPaid((await ledgerOf(tx, placement)).entries, whole);
  // A charge that clears on a placement cancelled meanwhile is recorded (money moved, and it can be
  // refunded) but books nothing.
  if (!existing && wholePaid && placement.option_status !== 'cancelled') {
    const { booking, created } = await confirmBooking(tx, state.payee, placement, state.lease, state.currency);
    bookingId = booking.id;
    await attachPayment(tx, payment.id, booking.id);
    payment.booking_id = booking.id;
    if (created) {
      await emit(tx, 'booking.confirmed', {
        ...onHome(claim, placement),
        property: { id: placement.property_id, name: label.name ?? '' },
        move_in_date: booking.check_in,
        move_out_date: booking.check_out,
        confirmed_at: booking.created_at.toISOString(),
      });
      await emit(tx, 'booking.confirmed', providerBookingFields(claim.claim_ref, placement.property_id, label, booking), provider);
      await moveStatus(tx, [claim.id], 'booking_confirmed');
      await scheduleCloseout(tx, placement.id, booking.check_out);
    }
  }
  if (payment.charge_type === 'extension' && wholePaid && state.lease.kind === 'addendum' && placement.option_status !== 'cancelled') {
    await putExtensionInEffect(tx, claim, placement, state.lease, { grossCents: Number(payment.gross_cents), currency: payment.currency });
  }
  await emit(tx, 'payment.succeeded', {
    ...onHome(claim, placement),
    payment_id: payment.id,
    charge_type: payment.charge_type,
    payer: payment.payer,
    amount: fromCents(Number(payment.gross_cents)),
    platform_fee: fromCents(Number(payment.platform_fee_cents)),
    currency: payment.currency,
    covers_rent: payment.covers_rent,
    covers_deposit: payment.covers_deposit,
    paid_at: payment.paid_at!.toISOString(),
  });
  await emit(tx, 'payment.succeeded', {
    ...providerPayment({ ...payment, booking_id: bookingId }),
    platform_fee: fromCents(Number(payment.platform_fee_cents)),
    processing_fee: fromCents(Number(payment.processing_fee_cents)),
    net_to_you: fromCents(Number(payment.net_cents)),
    paid_at: payment.paid_at!.toISOString(),
  }, provider);
  return payment;
}

/** A settled payment of a charge, as the ledger posts it: every payment the service records names its charge and payer. */
const settledPayment = (p: PaymentRow) => ({
  ...p, lease_agreement_id: p.lease_agreement_id!, period_start: p.period_start!, payer: p.payer!,
});

/** What a pay page showed for one payer's share: paying it is refused once that is no longer what is due. */
export interface ShownShare {
  payer: Payer;
  amountCents: number;
  chargeType: ChargeType;
}

/**
 * The share a page showed, still due as shown (409 nothing_due once paid, amount_changed once
 * something else is due), so a page shown before a change never pays a different amount.
 */
export function requireShown(state: Payable, shown: ShownShare): Due {
  const { charge, shares: [share] } = requireDue(state, shown.payer);
  if (share.split.grossCents !== shown.amountCents || charge.chargeType !== shown.chargeType) {
    throw conflict('amount_changed', 'What is due changed since the page was shown; review the new amount and pay again.');
  }
  return { charge, shares: [share] };
}

/**
 * Pays what is due now in sandbox (the `payment` helper and the pay page's buttons), settled at once
 * with the outcome chosen, one payment per share: every share due now, the named payer's, or the
 * one a page showed (which must still be due as shown).
 */
export async function paySandbox(
  tx: Tx, claim: ClaimRow, placement: OptionRow, outcome: SandboxOutcome, which: { payer?: Payer } | ShownShare = {},
): Promise<PaymentRow[]> {
  await postSignedVersions(tx, claim, placement);
  const state = await payable(tx, claim, placement);
  const { charge, shares } = 'amountCents' in which ? requireShown(state, which) : requireDue(state, which.payer);
  const payments: PaymentRow[] = [];
  const clears = (share: typeof shares[number], status: ChargeOutcome['status']) => recordCharge(tx, claim, placement, state, share, charge, {
    status,
    providerRef: `sandbox_pi_${crypto.randomUUID()}`,
    failureReason: status === 'failed' ? 'card_declined' : undefined,
  });
  for (const share of shares) {
    const payment = await clears(share, outcome === 'failed' ? 'failed' : 'succeeded');
    // The placement is locked and the share unpaid, so the write cannot be a duplicate here.
    if (!payment) throw conflict('nothing_due', 'This period was paid meanwhile.');
    payments.push(payment);
    // The payer's second checkout of the same share clears too: recorded as a duplicate of the first,
    // and refunded automatically, as a processor's second charge is.
    if (outcome === 'duplicate') {
      const second = await clears(share, 'succeeded');
      if (second) payments.push(second);
    }
  }
  return payments;
}

/** What the sandbox payer's charge does: clears, is declined, or clears twice (a second checkout of the same share). */
export type SandboxOutcome = 'succeeded' | 'failed' | 'duplicate';
