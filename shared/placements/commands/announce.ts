import type { Tx } from '../../db/client.ts';
import { emit } from '../../events/outbox.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { providerBookingFields } from '../render.ts';
import { homeLabel } from '../listing-repository.ts';
import type { BookingRow } from '../booking-repository.ts';
import type { OptionRow } from '../option-repository.ts';

// What the provider hears of its booking's changes (move-in, dates, cancellation, closeout).

/** booking.updated to the provider, for a change of its booking. */
export async function announceBookingChange(
  tx: Tx,
  claim: ClaimRow,
  placement: OptionRow,
  booking: BookingRow,
  change: 'cancelled' | 'move_in_confirmed' | 'dates_changed' | 'completed',
  previous: BookingRow['booking_status'],
) {
  const label = await homeLabel(tx, placement.property_id);
  await emit(tx, 'booking.updated', {
    ...providerBookingFields(claim.claim_ref, placement.property_id, label, booking),
    previous_status: previous,
    change,
    move_in_confirmed_at: booking.move_in_confirmed_at?.toISOString() ?? null,
    cancelled_at: booking.cancelled_at?.toISOString() ?? null,
    completed_at: booking.completed_at?.toISOString() ?? null,
  }, { orgId: booking.org_id, environment: claim.environment });
}
