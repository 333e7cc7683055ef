import type { TimelineRow, TimelineSource } from '../timeline.ts';

// The money and the stay on the request's timeline, from the rows' own timestamps: bookings
// (created, moved in), cleared charges (amount and fee), refunds made and refund requests that
// return a deposit.

const money = (d: Record<string, unknown>, field: string) => `${Number(d[field]).toFixed(2)} ${String(d.currency).toUpperCase()}`;

export const moneyTimeline: TimelineSource = {
  summaries: {
    'booking.created': (d) => `Booking confirmed: ${d.check_in} to ${d.check_out}.`,
    'move_in.confirmed': () => 'The household moved in.',
    'payment.succeeded': (d) => `${d.charge_type === 'initial' ? 'First payment' : 'Rent'} of ${money(d, 'amount')} cleared (service fee ${money(d, 'platform_fee')}).`,
    'payment.refunded': (d) => `Refund of ${money(d, 'amount')} issued by the landlord.`,
    'deposit.refund_requested': (d) => `Refund of ${money(d, 'amount')} requested, deposit included.`,
  },
  entries: (tx, claim) => tx<TimelineRow[]>`
    select b.created_at as at, 'booking.created' as type, b.property_id,
           jsonb_build_object('booking_id', b.id, 'check_in', b.check_in, 'check_out', b.check_out) as detail
      from app.bookings b where b.claim_id = ${claim.id}
    union all
    select b.move_in_confirmed_at, 'move_in.confirmed', b.property_id, jsonb_build_object('booking_id', b.id)
      from app.bookings b where b.claim_id = ${claim.id} and b.move_in_confirmed_at is not null
    union all
    select p.paid_at, 'payment.succeeded', p.property_id,
           jsonb_build_object('payment_id', p.id, 'charge_type', p.charge_type, 'amount', p.gross_cents / 100.0,
                              'platform_fee', p.platform_fee_cents / 100.0, 'currency', p.currency)
      from app.payments p where p.claim_id = ${claim.id} and p.paid_at is not null
    union all
    select r.refunded_at, 'payment.refunded', r.property_id,
           jsonb_build_object('refund_request_id', r.id, 'payment_id', r.payment_id, 'amount', r.amount_cents / 100.0, 'currency', r.currency)
      from app.refund_requests r where r.claim_id = ${claim.id} and r.refunded_at is not null
    union all
    select r.created_at, 'deposit.refund_requested', r.property_id,
           jsonb_build_object('refund_request_id', r.id, 'payment_id', r.payment_id, 'amount', r.amount_cents / 100.0, 'currency', r.currency, 'status', r.status)
      from app.refund_requests r where r.claim_id = ${claim.id} and r.covers_deposit`,
};
