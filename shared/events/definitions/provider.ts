import { z } from '@hono/zod-openapi';
import type { EventDefinition } from '../definition.ts';
import { sampleHomeRef, sampleRequest } from './samples.ts';

// Events for housing providers (bookings and money reaching their account). They are raised by the
// placement work, in the operation's transaction, filed under the provider's organisation and the
// placement's environment. For a provider "the caller's external_id" is the home's own reference
// (its api_external_id), null when the home has none. Amounts are in major units, like the API.
// Booking events carry `reference` and `property`, the booking.confirmed payload the specification
// names for both sides; `reference` is the housing request's, as the lease and the carrier name it.

const HomeRef = z.object({
  name: z.string().nullable(),
  api_external_id: z.string().nullable(),
});

/** A booking's life: confirmed when the first payment clears, then cancelled, or completed when its move-out date comes. */
export const BookingStatus = z.enum(['confirmed', 'cancelled', 'completed']);

const bookingFields = {
  reference: z.string().describe('The housing request the family was placed from (REQ-XXXXXX), as the lease names it.'),
  booking_id: z.string().uuid(),
  property_id: z.string().uuid(),
  external_id: z.string().nullable().describe("The home's api_external_id."),
  property: HomeRef,
  booking_status: BookingStatus,
  check_in: z.string().describe('YYYY-MM-DD'),
  check_out: z.string().describe('YYYY-MM-DD'),
};

const feedFields = {
  feed_id: z.string().uuid().describe('The imported calendar (GET /properties/{id}/calendar-feeds).'),
  feed_name: z.string().nullable().describe("The provider's label for the channel."),
  property_id: z.string().uuid(),
  external_id: z.string().nullable().describe("The home's api_external_id."),
  property: HomeRef,
};

export const CalendarConflictPayload = z.object({
  conflict_id: z.string().uuid(),
  ...feedFields,
  booking_id: z.string().uuid().nullable().describe('The booking the nights belong to; null while the stay is held and not yet paid.'),
  start_date: z.string().describe('First night both the other channel and the stay here take (YYYY-MM-DD).'),
  end_date: z.string().describe('Last night (inclusive) both take (YYYY-MM-DD).'),
  detected_at: z.string(),
});

export const CalendarFeedFailingPayload = z.object({
  ...feedFields,
  url: z.string().describe('The feed\'s address with its query (and any user info) shown as `?…`, as the calendar-feeds routes show it: a channel\'s export address carries its key there.'),
  consecutive_failures: z.number().int(),
  last_error: z.string().describe('Why the last fetch failed.'),
  last_success_at: z.string().nullable().describe('When the feed was last read; its blocks of then stay in force.'),
});

export const BookingConfirmedPayload = z.object(bookingFields);

export const BookingUpdatedPayload = z.object({
  ...bookingFields,
  previous_status: BookingStatus,
  change: z.enum(['cancelled', 'move_in_confirmed', 'dates_changed', 'completed'])
    .describe('dates_changed: the stay was shortened or extended (check_out is the new move-out); completed: its move-out date came.'),
  move_in_confirmed_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  completed_at: z.string().nullable().describe('When the stay was closed out.'),
});

const paymentFields = {
  payment_id: z.string().uuid(),
  booking_id: z.string().uuid().nullable().describe('Null until the booking exists (the first charge confirms it).'),
  property_id: z.string().uuid(),
  external_id: z.string().nullable().describe("The home's api_external_id."),
  charge_type: z.enum(['initial', 'rent', 'deposit', 'fee', 'extension']),
  gross: z.number().describe('What the payer was charged.'),
  currency: z.string(),
};

export const ProviderPaymentSucceededPayload = z.object({
  ...paymentFields,
  platform_fee: z.number().describe("The service's fee, from rent only."),
  processing_fee: z.number().describe("The card processor's fee on the whole charge."),
  net_to_you: z.number().describe('gross - platform_fee - processing_fee.'),
  paid_at: z.string(),
});

export const ProviderPaymentFailedPayload = z.object({
  ...paymentFields,
  failure_reason: z.string().nullable(),
});

const sampleBooking = {
  reference: sampleRequest.reference,
  booking_id: '6f1d2a0c-8b7e-4c55-9a11-2f4e7d9c3b21',
  property_id: '3c9e5b7a-1d2f-4e8a-b6c4-7a9d0e1f2b3c',
  external_id: sampleHomeRef,
  property: { name: 'Maple Court 204', api_external_id: sampleHomeRef },
  booking_status: 'confirmed',
  check_in: '2026-12-01',
  check_out: '2027-03-01',
};

const samplePayment = {
  payment_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  booking_id: sampleBooking.booking_id,
  property_id: sampleBooking.property_id,
  external_id: sampleHomeRef,
  charge_type: 'initial',
  gross: 4950,
  currency: 'usd',
};

export const ApplicationReceivedPayload = z.object({
  application_id: z.string().uuid().describe('Answer it with POST /properties/applications/{id}.'),
  reference: z.string().describe('The housing request the household applied from.'),
  property_id: z.string().uuid(),
  external_id: z.string().nullable().describe("The home's api_external_id."),
  property: HomeRef,
  applied_at: z.string(),
  household: z.object({ adults: z.number().int(), children: z.number().int(), has_pets: z.boolean() }),
  target_move_in: z.string().describe('YYYY-MM-DD: when the household hopes to move in.'),
});

export const ProviderRefundFailedPayload = z.object({
  refund_request_id: z.string().uuid().describe('The refund you approved (GET /properties/refund-requests): still approved, not issued.'),
  reference: z.string().describe('The housing request the payment was for.'),
  payment_id: z.string().uuid(),
  property_id: z.string().uuid(),
  external_id: z.string().nullable().describe("The home's api_external_id."),
  amount: z.number().describe('What was to be refunded from your account.'),
  currency: z.string(),
  attempts: z.number().int().describe('How often the service tried.'),
  failed_at: z.string(),
});

export const ProviderRefundRequestedPayload = z.object({
  refund_request_id: z.string().uuid().describe('Approve or decline it with POST /properties/refund-requests/{id}.'),
  reference: z.string().describe('The housing request the payment was for.'),
  payment_id: z.string().uuid().describe('The payment the money would go back on.'),
  property_id: z.string().uuid(),
  external_id: z.string().nullable().describe("The home's api_external_id."),
  amount: z.number().describe('What is asked, in major units.'),
  currency: z.string(),
  purpose: z.enum(['owed_back', 'deposit']).describe('owed_back: what the payer settled beyond what the stay now charges; deposit: the deposit held.'),
  goodwill: z.boolean().describe('Asked beyond what is owed back or held: what it gives beyond it is the landlord\'s goodwill.'),
  reason: z.string().nullable(),
});

/** The fields every sample of a refund on a provider's home shares. */
const sampleRefund = {
  refund_request_id: '3c8e1f5a-6d2b-4a9c-8e7f-1b0d3c5e7a92',
  reference: sampleRequest.reference,
  payment_id: samplePayment.payment_id,
  property_id: samplePayment.property_id,
  external_id: sampleHomeRef,
};

export const providerEvents = [
  {
    // Beyond the specification's table: the landlord's part of the send flow through the API.
    event: 'application.received',
    audience: 'provider',
    summary: "A household applied for one of the provider's homes; it waits for the landlord's answer.",
    simulatable: true,
    payload: ApplicationReceivedPayload,
    sample: {
      application_id: '8c1e3a5f-7b9d-4f2a-9c4e-6a8b0d2f4e61',
      reference: sampleRequest.reference,
      property_id: '3c9e5b7a-1d2f-4e8a-b6c4-7a9d0e1f2b3c',
      external_id: sampleHomeRef,
      property: { name: 'Maple Court 204', api_external_id: sampleHomeRef },
      applied_at: '2026-11-24T09:30:00.000Z',
      household: { adults: 2, children: 1, has_pets: true },
      target_move_in: '2026-12-01',
    },
  },
  {
    event: 'booking.confirmed',
    audience: 'provider',
    summary: "A family is booked into one of the provider's homes.",
    simulatable: true,
    payload: BookingConfirmedPayload,
    sample: sampleBooking,
  },
  {
    event: 'booking.updated',
    audience: 'provider',
    summary: 'A booking changed state, including cancellation.',
    simulatable: true,
    payload: BookingUpdatedPayload,
    sample: {
      ...sampleBooking,
      booking_status: 'cancelled',
      previous_status: 'confirmed',
      change: 'cancelled',
      move_in_confirmed_at: null,
      cancelled_at: '2026-11-28T15:04:05.000Z',
      completed_at: null,
    },
  },
  {
    event: 'payment.succeeded',
    audience: 'provider',
    summary: "Money reached the provider's account, with gross, fee and net.",
    simulatable: true,
    payload: ProviderPaymentSucceededPayload,
    // Rent 3,000 + deposit 1,500 + cleaning 450: platform fee 8% of rent, processing 2.9% + 0.30 of gross.
    sample: { ...samplePayment, platform_fee: 240, processing_fee: 143.85, net_to_you: 4566.15, paid_at: '2026-11-25T10:00:00.000Z' },
  },
  {
    event: 'payment.failed',
    audience: 'provider',
    summary: "A charge against one of the provider's homes failed.",
    simulatable: true,
    payload: ProviderPaymentFailedPayload,
    sample: { ...samplePayment, failure_reason: 'card_declined' },
  },
  {
    // Beyond the specification's table: the landlord approves refunds, so it is told when one is asked.
    event: 'refund.requested',
    audience: 'provider',
    summary: "A carrier asked for a refund on one of the provider's homes: approve or decline it.",
    simulatable: true,
    payload: ProviderRefundRequestedPayload,
    sample: {
      ...sampleRefund,
      amount: 1754.84,
      currency: 'usd',
      purpose: 'owed_back',
      goodwill: false,
      reason: 'Moved out early',
    },
  },
  {
    // Beyond the specification's table: the money is on the provider's account, so it is told too.
    event: 'payment.refund_failed',
    audience: 'provider',
    summary: "A refund approved on one of the provider's homes could not be issued: the money is still on the provider's account until the service's retry goes through.",
    simulatable: true,
    payload: ProviderRefundFailedPayload,
    sample: {
      ...sampleRefund,
      amount: 1500,
      currency: 'usd',
      attempts: 8,
      failed_at: '2026-11-24T06:10:00.000Z',
    },
  },
  {
    // Beyond the specification's table: an imported calendar cannot undo a booking here, so a person must.
    event: 'calendar.conflict',
    audience: 'provider',
    summary: "Another channel's calendar, imported into a home, takes nights a stay booked here holds: the booking stands, the provider resolves it.",
    simulatable: true,
    payload: CalendarConflictPayload,
    sample: {
      conflict_id: '5b1d7e2a-9c4f-4e8b-a3d6-0f2c8e1b7a45',
      feed_id: '8e3a1c6f-2d7b-4f9e-b5a0-6c4d2e8f1a37',
      feed_name: 'Airbnb',
      property_id: samplePayment.property_id,
      external_id: sampleHomeRef,
      property: sampleBooking.property,
      booking_id: sampleBooking.booking_id,
      start_date: '2026-12-10',
      end_date: '2026-12-12',
      detected_at: '2026-11-26T01:30:00.000Z',
    },
  },
  {
    // Beyond the specification's table: the nights of the other channel are only as fresh as the last read.
    event: 'calendar.feed_failing',
    audience: 'provider',
    summary: 'An imported calendar has failed to be read several times running (by default 3): its last good blocks stay, newer nights there are not seen here.',
    simulatable: true,
    payload: CalendarFeedFailingPayload,
    sample: {
      feed_id: '8e3a1c6f-2d7b-4f9e-b5a0-6c4d2e8f1a37',
      feed_name: 'Airbnb',
      property_id: samplePayment.property_id,
      external_id: sampleHomeRef,
      property: sampleBooking.property,
      url: 'https://www.airbnb.com/calendar/ical/12345678.ics?…',
      consecutive_failures: 3,
      last_error: 'answered HTTP 404',
      last_success_at: '2026-11-25T22:00:00.000Z',
    },
  },
] as const satisfies readonly EventDefinition[];
