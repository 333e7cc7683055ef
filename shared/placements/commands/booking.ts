import type { Tx } from '../../db/client.ts';
import { moveStatus } from '../../claims/lifecycle.ts';
import { emit } from '../../events/outbox.ts';
import { fromCents } from '../../money.ts';
import { onHome } from '../render.ts';
import { statuses, type RequestStatus } from '../../claims/status.ts';
import type { Caller } from '../../db/tenant.ts';
import { conflict, invalid } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { moveLease, type LeaseRow } from '../lease.ts';
import { findClaim, type ClaimRow } from '../../claims/repository.ts';
import { tenantNow, utcDay } from '../../clock/time.ts';
import { checkNotPast, earliestToday, latestToday } from '../stay.ts';
import { inPlacement } from '../unit-of-work.ts';
import {
  cancelBookingRow, completeBooking, confirmedBooking, homeLabel, otherHomesState, payeeOf, recordMoveIn, setCheckOut,
  settledPayments, stayBooking, type HomeState,
} from '../money-repository.ts';
import { announceBookingChange } from './announce.ts';
import {
  cancelPlacement, completeStayHolds, contactAddresses, currentLease, openAddendum, recordShortening, releaseStayHolds, stayMoveOut, type PlacementRow,
} from '../repository.ts';
import { extensionStatus, withdrawExtension } from './extensions.ts';
import { postCancellation, postLapse, postShortening } from '../stay-ledger.ts';
import { scheduleCloseout, scheduleInStay } from '../schedule.ts';

// The stay: confirming move-in, and cancelling a placement (before or after payment). Each runs in
// the placement's unit of work (../unit-of-work.ts: the request, then the placement, locked): lock,
// check, write, emit, move status.

/**
 * POST confirm-move-in: records the move-in once, from the booking's move-in date on (409
 * move_in_not_yet before it); a repeated call answers the same without a second move, whatever the
 * clock says by then.
 */
export async function confirmMoveIn(caller: Caller, reference: string, propertyId: string) {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const booking = await confirmedBooking(tx, placement.id);
    if (!booking) throw conflict('not_booked', 'Move-in is confirmed once the booking is: the first payment has not cleared yet.');
    let movedIn = booking;
    if (!booking.move_in_confirmed_at) {
      const now = await tenantNow(tx);
      // The home's time zone is not known, so the move-in day counts from when it is today somewhere
      // (UTC+14): a family moving in on the morning of its day is never refused, wherever the home is,
      // as a move-in date still today somewhere is not in the past (../stay.ts).
      if (booking.check_in > latestToday(now)) {
        throw conflict('move_in_not_yet', `The stay starts on ${booking.check_in} (the booking's move-in date): confirm the move-in on or after that day.`, 'property_id', {
          move_in_date: booking.check_in,
        });
      }
      movedIn = (await recordMoveIn(tx, booking.id, placement.id))!;
      await announceBookingChange(tx, claim, placement, movedIn, 'move_in_confirmed', 'confirmed');
      await moveStatus(tx, [claim.id], 'move_in_complete');
      await scheduleInStay(tx, placement.id, utcDay(now));
    }
    const after = await findClaim(tx, claim.id);
    return {
      request_id: claim.id,
      property_id: placement.property_id,
      booking_id: movedIn.id,
      move_in_confirmed_at: movedIn.move_in_confirmed_at!.toISOString(),
      status: after.status_primary,
    };
  });
}

export interface CancelInput {
  property_id: string;
  reason?: string;
  force?: boolean;
}

/**
 * POST cancel-booking: refused with already_paid while a settled payment exists, unless force.
 * Otherwise the booking is cancelled, the holds released, the contract withdrawn (signature links
 * stop through the withdraw job; the signatures it collected stay recorded, since what was signed
 * was signed), the home taken off the request (and so back on the market), the landlord,
 * household and adjuster emailed, and the request moved back to what its remaining homes support.
 */
export async function cancelBooking(caller: Caller, reference: string, input: CancelInput) {
  return inPlacement(caller, { reference, propertyId: input.property_id }, async ({ tx, claim, placement }) => {
    // Money settled and not all of it back, as the processor has it.
    const paid = (await settledPayments(tx, placement.id)).find((p) => p.status === 'succeeded');
    if (paid && !input.force) {
      throw conflict('already_paid', 'Money has settled on this placement; cancel with force: true, and request a refund from the landlord.', undefined, {
        payment: { id: paid.id, amount_total_cents: Number(paid.gross_cents), currency: paid.currency },
      });
    }
    const reason = input.reason ?? null;
    const lease = await currentLease(tx, placement);
    // An open extension goes with the placement; the nights of extensions in effect go with the lease's.
    const open = await openAddendum(tx, placement.id);
    if (open) await withdrawExtension(tx, open, 'cancelled');
    if (lease) {
      await releaseStayHolds(tx, placement);
      const withdrawn = await moveLease(tx, lease.id, 'withdrawn', { withdrawn_at: 'now' });
      if (withdrawn?.provider_ref) {
        await enqueue(tx, 'withdraw_contract', { provider_ref: withdrawn.provider_ref, reason: 'placement cancelled' }, { dedupeKey: withdrawn.provider_ref });
      }
    }
    const booking = await confirmedBooking(tx, placement.id);
    // What the stay still charges goes: all of it before move-in, the nights from today once moved in
    // (a stay already closed out keeps every night it had).
    if (lease?.status === 'fully_signed') {
      const [today, stay] = [utcDay(await tenantNow(tx)), await stayBooking(tx, placement.id)];
      await postCancellation(tx, claim, placement, !!stay?.move_in_confirmed_at, today > lease.move_in_date ? today : lease.move_in_date);
    }
    if (booking) {
      const cancelled = (await cancelBookingRow(tx, booking.id, reason))!;
      await announceBookingChange(tx, claim, placement, cancelled, 'cancelled', 'confirmed');
    }
    await cancelPlacement(tx, placement.id, reason);

    const [payee, label, contacts] = await Promise.all([payeeOf(tx, placement.property_id), homeLabel(tx, placement.property_id), contactAddresses(tx)]);
    const recipients = [payee.contact_email, claim.household_email, claim.adjuster_email ?? contacts.team].filter((to): to is string => !!to);
    const home = label.name ?? 'the home';
    await enqueue(tx, 'send_email', {
      to: recipients,
      subject: `Placement at ${home} cancelled (${claim.claim_ref})`,
      text: `The placement at ${home} for request ${claim.claim_ref} was cancelled.${reason ? ` Reason: ${reason}` : ''}` +
        (lease ? ` The contract was withdrawn and the dates ${lease.move_in_date} to ${lease.move_out_date} released.` : ''),
      topic: 'booking.cancelled',
    });

    await settleRequestStatus(tx, claim, placement.id);
    return {
      request_id: claim.id,
      property_id: placement.property_id,
      cancelled: true,
      property: label.name,
      was_paid: paid !== undefined,
    };
  }, { notOnRequest: 'not_found' });
}

/**
 * A home left play (cancelled, or its application declined): the request moves back to what its
 * other homes support, down to housing_options_found, then up to the most advanced of them (each
 * move announced with request.status_changed). A request already where they put it (another home
 * booked) stays, announcing nothing.
 */
export async function settleRequestStatus(tx: Tx, claim: ClaimRow, placementId: string): Promise<void> {
  const supported = supportedStatus(await otherHomesState(tx, claim.id, placementId));
  if (supported === claim.status_primary) return;
  await moveStatus(tx, [claim.id], 'housing_options_found');
  if (supported !== 'housing_options_found') await moveStatus(tx, [claim.id], supported);
}

/** The status a request's remaining homes support (the lifecycle of shared/claims/status.ts). */
export function supportedStatus(homes: HomeState[]): RequestStatus {
  const rank = (h: HomeState): RequestStatus => {
    if (h.booked) return 'booking_confirmed';
    if (h.lease_status === 'fully_signed') return 'payment_setup';
    if (h.lease_status) return 'lease_execution';
    if (h.proposed_at) return 'awaiting_approval';
    if (h.application_status !== 'not_applied') return 'landlord_approval';
    return 'options_sent';
  };
  return homes.map(rank).reduce<RequestStatus>((best, s) => (statuses.indexOf(s) > statuses.indexOf(best) ? s : best), 'housing_options_found');
}

/**
 * The closeout, run by its job on the move-out date: the booking becomes completed, its holds the
 * home's past calendar, the request moves to move_out_closeout (request.status_changed, once), and
 * the provider hears booking.updated (change completed). Null when there is nothing to close: the
 * stay was cancelled, already closed, or now ends on another date.
 */
export async function closeStay(tx: Tx, claim: ClaimRow, placement: PlacementRow, moveOut: string) {
  const booking = await confirmedBooking(tx, placement.id);
  if (!booking || booking.check_out !== moveOut) return null;
  const completed = await completeBooking(tx, booking);
  if (!completed) return null;
  await completeStayHolds(tx, placement);
  // An extension still unsigned or unpaid when the stay ends lapses.
  const open = await openAddendum(tx, placement.id);
  if (open && (await withdrawExtension(tx, open, 'lapsed')) && open.status === 'fully_signed') {
    // Signed by both, its charge was posted: its nights go back, as after a shortening to the stay's end.
    await postLapse(tx, claim, placement, open.id, booking.check_out);
  }
  await announceBookingChange(tx, claim, placement, completed, 'completed', 'confirmed');
  await moveStatus(tx, [claim.id], 'move_out_closeout');
  return completed;
}

/**
 * A move-out inside the nights of an extension not in effect yet: those nights are not the stay's
 * until the extension is paid, so there is nothing of the stay to release there. Said as such
 * (rather than as a change of a signed lease), with what to do instead.
 */
async function refuseInsideOpenExtension(tx: Tx, placement: PlacementRow, stayEnd: string, moveOut: string): Promise<void> {
  const open = await openAddendum(tx, placement.id);
  if (!open || moveOut >= open.move_out_date) return;
  throw conflict('extension_pending',
    `The stay ends on ${stayEnd}: the nights after it are the extension's to ${open.move_out_date} (${extensionStatus(open).replace('_', ' ')}), ` +
    `the stay's only once it is paid. Pay the extension, then shorten to ${moveOut}; or leave it unpaid and it lapses when the stay ends.`, 'move_out');
}

/**
 * POST dates once moved in: an earlier move_out (same move_in) shortens the stay, at any time before
 * its move-out: the new move-out is not in the past, and may come before 30 days (the minimum is the
 * booking's; a family leaving early pays for the nights used). The
 * signed lease keeps its dates; the change is recorded (app.stay_changes) with what it does to the
 * money already paid, the booking ends earlier, the nights after the new move-out are released, the
 * last period is billed for the days used, and the closeout moves to the new date. A stay whose
 * move-out came is refused (could_not_set_dates). Returns the signed lease and the stay's new
 * move-out, or null when the call is not a shortening (the caller answers already_signed).
 */
export async function shortenStay(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow, moveIn: string, moveOut: string, now: Date) {
  const booking = await stayBooking(tx, placement.id);
  const previousMoveOut = stayMoveOut(placement, lease);
  if (!booking?.move_in_confirmed_at || moveIn !== lease.move_in_date) return null;
  if (booking.booking_status === 'completed' || earliestToday(now) >= previousMoveOut) {
    throw invalid('could_not_set_dates', `The stay ended on ${previousMoveOut} (its move-out date); it can no longer be shortened.`, 'move_out');
  }
  // The same shortening again (a retry) changes nothing and answers the same.
  if (moveOut === previousMoveOut && previousMoveOut !== lease.move_out_date) return { lease, moveOut };
  if (moveOut >= previousMoveOut) {
    await refuseInsideOpenExtension(tx, placement, previousMoveOut, moveOut);
    return null;
  }
  checkNotPast(moveOut, 'move_out', now);
  // An extension not in effect yet continues the stay from the move-out it was asked at; shortened
  // before it, the stay no longer reaches its first night, and in effect it would run the stay
  // through nights nobody is charged for. It is withdrawn (its signed charge, if any, released with
  // the stay's nights); an extension from the new move-out is asked again.
  const open = await openAddendum(tx, placement.id);
  if (open) await withdrawExtension(tx, open, 'stay_shortened');
  const { refundDueCents, currency } = await postShortening(tx, claim, placement, moveOut, open?.status === 'fully_signed' ? open.id : undefined);
  await recordShortening(tx, placement, lease, { previousMoveOut, moveOut, refundDueCents, currency });
  const updated = await setCheckOut(tx, booking.id, moveOut);
  await Promise.all([
    announceBookingChange(tx, claim, placement, updated, 'dates_changed', 'confirmed'),
    emit(tx, 'booking.dates_changed', {
      ...onHome(claim, placement),
      change: 'shortened',
      lease_id: lease.id,
      extension_id: null,
      move_in_date: lease.move_in_date,
      previous_move_out_date: previousMoveOut,
      move_out_date: moveOut,
      refund_due: fromCents(refundDueCents),
      amount: null,
      currency: currency.toLowerCase(),
    }),
    scheduleCloseout(tx, placement.id, moveOut),
  ]);
  return { lease, moveOut };
}
