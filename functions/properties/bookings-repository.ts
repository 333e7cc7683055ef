import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import { fromCents } from '../../shared/money.ts';
import { afterCursorRow, assertCursorRowVisible } from '../../shared/db/paging.ts';
import type { BookingRow } from '../../shared/placements/booking-repository.ts';
import type { Booking } from './schemas.ts';

// The provider's bookings with the money of each. A booking's environment is its placement's, so
// a sandbox booking of a real home is read with the sandbox key; the home's name and reference come
// through app.own_home_labels, which sees the caller's own homes in either environment.
// Failed charges are not listed (payment.failed announces them); settled and refunded ones are.

interface PaymentJson {
  id: string;
  charge_type: 'initial' | 'rent' | 'deposit' | 'fee' | 'extension';
  status: 'succeeded' | 'refunded';
  gross_cents: number;
  platform_fee_cents: number;
  processing_fee_cents: number;
  net_cents: number;
  currency: string;
  paid_at: string;
}

/** A booking as the placement records it, with its home's labels and its settled payments. */
interface ProviderBookingRow extends Omit<BookingRow, 'org_id' | 'lease_agreement_id'> {
  property_name: string | null;
  property_external_id: string | null;
  payments: PaymentJson[];
}

export interface BookingPageQuery {
  limit: number;
  /** Continue after this booking (the last of the previous page). */
  after?: string;
}

/** Newest first, keyset-paged on (created_at, id). Fetches limit + 1 rows. */
export async function listBookings(tx: Tx, query: BookingPageQuery) {
  const rows = await tx<ProviderBookingRow[]>`
    select b.id, b.property_id, l.name as property_name, l.external_id as property_external_id,
           b.booking_status, b.check_in, b.check_out, b.move_in_confirmed_at, b.cancelled_at, b.completed_at, b.created_at,
           coalesce((select jsonb_agg(jsonb_build_object(
                        'id', m.id, 'charge_type', m.charge_type, 'status', m.status,
                        'gross_cents', m.gross_cents, 'platform_fee_cents', m.platform_fee_cents,
                        'processing_fee_cents', m.processing_fee_cents, 'net_cents', m.net_cents,
                        'currency', m.currency, 'paid_at', m.paid_at) order by m.paid_at, m.id)
                       from app.payments m
                      where m.booking_id = b.id and m.status in ('succeeded', 'refunded')), '[]') as payments
      from app.bookings b
      left join lateral app.own_home_labels(array[b.property_id]) l on true
     where b.org_id = app.current_org()
       ${afterCursorRow(tx, 'b', 'app.bookings', query.after)}
     order by b.created_at desc, b.id desc
     limit ${query.limit + 1}`;
  await assertCursorRowVisible(tx, 'app.bookings', query.after, rows);
  return rows;
}

export function renderBooking(row: ProviderBookingRow): z.infer<typeof Booking> {
  return {
    id: row.id,
    property_id: row.property_id,
    property: { name: row.property_name, api_external_id: row.property_external_id },
    booking_status: row.booking_status,
    check_in: row.check_in,
    check_out: row.check_out,
    move_in_confirmed_at: row.move_in_confirmed_at?.toISOString() ?? null,
    cancelled_at: row.cancelled_at?.toISOString() ?? null,
    completed_at: row.completed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    payments: row.payments.map((p) => ({
      id: p.id,
      charge_type: p.charge_type,
      status: p.status,
      gross: fromCents(p.gross_cents),
      platform_fee: fromCents(p.platform_fee_cents),
      processing_fee: fromCents(p.processing_fee_cents),
      net_to_you: fromCents(p.net_cents),
      currency: p.currency,
      paid_at: new Date(p.paid_at).toISOString(),
    })),
  };
}
