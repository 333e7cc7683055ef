import type { z } from '@hono/zod-openapi';
import { fromCents } from '../../../shared/money.ts';
import type { DepositRefund, PlacementBooking, PlacementPayment } from '../schemas.ts';

// The booking, charges and refund requests of a placement as GET placement shows them. The rows
// arrive as JSON (to_jsonb), so timestamps are strings and amounts numbers of cents.

interface BookingJson {
  id: string;
  booking_status: 'confirmed' | 'cancelled';
  check_in: string;
  check_out: string;
  created_at: string;
  move_in_confirmed_at: string | null;
  cancelled_at: string | null;
}

interface PaymentJson {
  id: string;
  charge_type: 'initial' | 'rent';
  status: 'succeeded' | 'failed' | 'refunded';
  gross_cents: number;
  platform_fee_cents: number;
  currency: string;
  covers_rent: boolean;
  covers_deposit: boolean;
  period_start: string | null;
  period_end: string | null;
  paid_at: string | null;
  failure_reason: string | null;
  refunded_cents: number;
  refunded_at: string | null;
}

interface RefundJson {
  id: string;
  payment_id: string;
  amount_cents: number;
  currency: string;
  covers_deposit: boolean;
  status: z.infer<typeof DepositRefund>['status'];
  reason: string | null;
  created_at: string;
  decided_at: string | null;
  refunded_at: string | null;
}

export interface PlacementMoneyJson {
  booking: BookingJson | null;
  payment_rows: PaymentJson[];
  refund_rows: RefundJson[];
}

const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

export function renderBooking(b: BookingJson | null): z.infer<typeof PlacementBooking> | null {
  if (!b) return null;
  return {
    id: b.id,
    booking_status: b.booking_status,
    check_in: b.check_in,
    check_out: b.check_out,
    confirmed_at: iso(b.created_at)!,
    move_in_confirmed_at: iso(b.move_in_confirmed_at),
    cancelled_at: iso(b.cancelled_at),
  };
}

export function renderPayment(p: PaymentJson): z.infer<typeof PlacementPayment> {
  return {
    id: p.id,
    charge_type: p.charge_type,
    status: p.status,
    amount: fromCents(Number(p.gross_cents)),
    platform_fee: fromCents(Number(p.platform_fee_cents)),
    currency: p.currency,
    covers_rent: p.covers_rent,
    covers_deposit: p.covers_deposit,
    period: p.period_start && p.period_end ? { start: p.period_start, end: p.period_end } : null,
    paid_at: iso(p.paid_at),
    failure_reason: p.failure_reason,
    refunded_amount: fromCents(Number(p.refunded_cents)),
    refunded_at: iso(p.refunded_at),
  };
}

export function renderRefund(r: RefundJson): z.infer<typeof DepositRefund> {
  return {
    refund_request_id: r.id,
    payment_id: r.payment_id,
    amount: fromCents(Number(r.amount_cents)),
    currency: r.currency,
    covers_deposit: r.covers_deposit,
    status: r.status,
    reason: r.reason,
    requested_at: iso(r.created_at)!,
    decided_at: iso(r.decided_at),
    refunded_at: iso(r.refunded_at),
  };
}

/** The booking fields of the provider's booking events (booking.confirmed, booking.updated). */
export function providerBookingFields(
  reference: string,
  propertyId: string,
  label: { name: string | null; external_id: string | null },
  booking: { id: string; booking_status: 'confirmed' | 'cancelled'; check_in: string; check_out: string },
) {
  return {
    reference,
    booking_id: booking.id,
    property_id: propertyId,
    external_id: label.external_id,
    property: { name: label.name, api_external_id: label.external_id },
    booking_status: booking.booking_status,
    check_in: booking.check_in,
    check_out: booking.check_out,
  };
}
