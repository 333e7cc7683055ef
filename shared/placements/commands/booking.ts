import type { Tx } from '../../db/client.ts';
import { emit } from '../../events/outbox.ts';
import { moveStatus } from '../../claims/lifecycle.ts';
import { statuses, type RequestStatus } from '../../claims/status.ts';
import type { Caller } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { moveLease, type LeaseRow } from '../lease.ts';
import { findClaim, type ClaimRow } from '../../claims/repository.ts';
import { inPlacement } from '../unit-of-work.ts';
import { providerBookingFields } from '../render.ts';
import {
  cancelBookingRow, confirmedBooking, homeLabel, latestSettled, otherHomesState, paidCharges, payeeOf, recordMoveIn, shortenBooking, type HomeState,
  type BookingRow,
} from '../money-repository.ts';
import { cancelPlacement, contactAddresses, currentLease, recordShortening, releaseHolds, stayMoveOut, type PlacementRow } from '../repository.ts';
import { chargeFor } from '../billing.ts';
import { billingPeriods } from '../periods.ts';
import { signedPrices } from './payments.ts';

// The stay: confirming move-in, and cancelling a placement (before or after payment). Each runs in
// the placement's unit of work (../unit-of-work.ts: the request, then the placement, locked): lock,
// check, write, emit, move status.

/** booking.updated to the provider, for a change of its booking. */
export async function announceBookingChange(
  tx: Tx,
  claim: ClaimRow,
  placement: PlacementRow,
  booking: BookingRow,
  change: 'cancelled' | 'move_in_confirmed' | 'dates_changed',
  previous: BookingRow['booking_status'],
) {
  const label = await homeLabel(tx, placement.property_id);
  await emit(tx, 'booking.updated', {
    ...providerBookingFields(claim.claim_ref, placement.property_id, label, booking),
    previous_status: previous,
    change,
    move_in_confirmed_at: booking.move_in_confirmed_at?.toISOString() ?? null,
    cancelled_at: booking.cancelled_at?.toISOString() ?? null,
  }, { orgId: booking.org_id, environment: claim.environment });
}

/** POST confirm-move-in: records the move-in once; a repeated call answers the same without a second move. */
export async function confirmMoveIn(caller: Caller, reference: string, propertyId: string) {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const booking = await confirmedBooking(tx, placement.id);
    if (!booking) throw new ApiError('not_booked', 'Move-in is confirmed once the booking is: the first payment has not cleared yet.');
    let movedIn = booking;
    if (!booking.move_in_confirmed_at) {
      movedIn = (await recordMoveIn(tx, booking.id, placement.id))!;
      await announceBookingChange(tx, claim, placement, movedIn, 'move_in_confirmed', 'confirmed');
      await moveStatus(tx, [claim.id], 'move_in_complete');
      await scheduleStay(tx, placement.id, movedIn);
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
    const paid = await latestSettled(tx, placement.id);
    if (paid && !input.force) {
      throw new ApiError('already_paid', 'Money has settled on this placement; cancel with force: true, and request a refund from the landlord.', undefined, {
        payment: { id: paid.id, amount_total_cents: Number(paid.gross_cents), currency: paid.currency },
      });
    }
    const reason = input.reason ?? null;
    const lease = await currentLease(tx, placement);
    if (lease) {
          const withdrawn = await moveLease(tx, lease.id, 'withdrawn', { withdrawn_at: 'now' });
      if (withdrawn?.provider_ref) {
        await enqueue(tx, 'withdraw_contract', { provider_ref: withdrawn.provider_ref, reason: 'placement cancelled' }, { dedupeKey: withdrawn.provider_ref });
      }
      await releaseHolds(tx, lease.id);
    }
    const booking = await confirmedBooking(tx, placement.id);
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

    // Back to what the remaining homes support: down to housing_options_found, then up to the most
    // advanced remaining home (each move announced with request.status_changed).
    // A request already where its other homes put it (another home booked) stays, announcing nothing.
    const supported = supportedStatus(await otherHomesState(tx, claim.id, placement.id));
    if (supported !== claim.status_primary) {
      await moveStatus(tx, [claim.id], 'housing_options_found');
      if (supported !== 'housing_options_found') await moveStatus(tx, [claim.id], supported);
    }
    return {
      request_id: claim.id,
      property_id: placement.property_id,
      cancelled: true,
      property: label.name,
      was_paid: paid !== null,
    };
  }, { missingStatus: 404 });
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

/** The day after `iso`, or `days` before it, at midnight UTC. */
const dayOffset = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000);

/** Days before move-out when a stay moves to move_out_closeout. */
export const closeoutDays = 14;

/**
 * The stay's two scheduled steps, as durable jobs on the scheduler that delivers webhooks: in_stay
 * the day after move-in is confirmed, move_out_closeout 14 days before move-out.
 */
async function scheduleStay(tx: Tx, placementId: string, booking: BookingRow) {
  const movedIn = booking.move_in_confirmed_at!.toISOString().slice(0, 10);
  // Both statements are sent at once (enqueue sends before it is awaited): one round trip.
  await Promise.all([
    enqueue(tx, 'advance_stay', { placement_id: placementId, to: 'in_stay' }, { dedupeKey: `${placementId}:in_stay`, runAt: dayOffset(movedIn, 1) }),
    enqueue(tx, 'advance_stay', { placement_id: placementId, to: 'move_out_closeout' }, {
      dedupeKey: `${placementId}:move_out_closeout`,
      runAt: dayOffset(booking.check_out, -closeoutDays),
    }),
  ]);
}

/**
 * POST dates once moved in: an earlier move_out (same move_in) shortens the stay. The signed lease
 * keeps its dates; the change is recorded (app.stay_changes) with what it does to the money already
 * paid, the booking ends earlier, the tail of the hold is released, and the last period is billed
 * for the days used (the stay's move-out now governs billing). Anything else on a fully signed lease
 * stays 409 already_signed. Returns the lease's dates as the stay now has them, or null when the
 * call is not a shortening.
 */
export async function shortenStay(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow, moveIn: string, moveOut: string) {
  const booking = await confirmedBooking(tx, placement.id);
  const previousMoveOut = stayMoveOut(placement, lease);
  if (!booking?.move_in_confirmed_at || moveIn !== lease.move_in_date) return null;
  // The same shortening again (a retry) changes nothing and answers the same.
  if (moveOut === previousMoveOut && previousMoveOut !== lease.move_out_date) return { ...lease, move_out_date: moveOut };
  if (moveOut >= previousMoveOut) return null;
  const { refundDueCents, currency } = await moneyOfShortening(tx, claim, placement, lease, moveOut);
  await recordShortening(tx, placement, lease, { previousMoveOut, moveOut, refundDueCents, currency });
  const updated = await shortenBooking(tx, booking.id, moveOut);
  await announceBookingChange(tx, claim, placement, updated, 'dates_changed', 'confirmed');
  return { ...lease, move_out_date: moveOut };
}

/**
 * What a shortening does to what was already paid: each paid period priced again for the shorter
 * stay (a period past the new move-out costs nothing, the one it ends in is prorated, and the tier
 * follows the new length) against what it cost. Positive: to refund; negative: now owed.
 */
async function moneyOfShortening(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow, moveOut: string) {
  const { prices, currency } = await signedPrices(tx, claim, placement, lease, { moveIn: lease.move_in_date, moveOut });
  const periods = new Map(billingPeriods(lease.move_in_date, moveOut).map((period) => [period.start, period]));
  let refundDueCents = 0;
  for (const paid of await paidCharges(tx, placement.id)) {
    const period = periods.get(paid.period_start);
    const charge = period ? chargeFor(prices, period) : null;
    refundDueCents += paid.stay_cents - (charge ? charge.rentCents + charge.feesCents : 0);
  }
  return { refundDueCents, currency };
}
