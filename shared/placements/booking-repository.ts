import type { Tx } from '../db/client.ts';
import type { Payee } from './payment-repository.ts';

// The SQL of the stay's booking (app.bookings, owned by the landlord): confirmed when paid, moved in,
// its check-out moved, cancelled or completed.

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
    insert into app.bookings (org_id, environment, property_id, carrier_org_id, claim_id, claim_option_id, lease_agreement_id, check_in, check_out, currency)
    values (${payee.org_id}, app.current_env(), ${placement.property_id}, app.current_org(), ${placement.claim_id}, ${placement.id},
            ${lease.id}, ${lease.move_in_date}, ${lease.move_out_date}, ${currency.toLowerCase()})
    on conflict (lease_agreement_id) where booking_status = 'confirmed' do nothing
    returning *`;
  if (created) {
    await tx`select app.book_holds(${lease.id}, app.current_env())`;
    await tx`update app.claim_options set booked_at = clock_timestamp() where id = ${placement.id}`;
    return { booking: created, created: true };
  }
  return { booking: (await confirmedBooking(tx, placement.id))!, created: false };
}

export async function confirmedBooking(tx: Tx, placementId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    select * from app.bookings where claim_option_id = ${placementId} and booking_status = 'confirmed' for update`;
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
    select exists (select 1 from app.bookings where claim_option_id = ${placementId} and booking_status in ('confirmed', 'completed')) as booked`;
  return row.booked;
}

/** The placement's stay, confirmed or already completed (not a cancelled one), locked. */
export async function stayBooking(tx: Tx, placementId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    select * from app.bookings where claim_option_id = ${placementId} and booking_status in ('confirmed', 'completed')
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

/** Move-in: once; null when already recorded or the booking is not confirmed. */
export async function recordMoveIn(tx: Tx, bookingId: string, placementId: string): Promise<BookingRow | null> {
  const [row] = await tx<BookingRow[]>`
    update app.bookings set move_in_confirmed_at = clock_timestamp(), updated_at = clock_timestamp()
     where id = ${bookingId} and booking_status = 'confirmed' and move_in_confirmed_at is null
    returning *`;
  if (row) await tx`update app.claim_options set moved_in_at = ${row.move_in_confirmed_at} where id = ${placementId}`;
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
