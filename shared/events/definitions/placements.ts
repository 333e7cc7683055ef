import { z } from '@hono/zod-openapi';
import type { EventDefinition } from '../definition.ts';
import { sampleRequest } from './samples.ts';
import { payers } from '../../request-values.ts';

// Events of the placement lifecycle as the carrier sees them: the household's answers, the lease,
// the money and the booking. Every payload names the request (`request_id`, `reference`, the
// caller's `external_id`) and the home (`property_id`), so a receiver can file it without a read.
// Amounts are in major currency units, as everywhere in the API.

const samples = {
  ...sampleRequest,
  property_id: '5d1c7a2e-8f0b-4c61-9a3e-2b7d4e6f8a90',
};

/** The fields that place an event on a request and a home. */
const onHome = {
  request_id: z.string().uuid(),
  reference: z.string(),
  external_id: z.string().nullable(),
  property_id: z.string().uuid(),
};

const timestamp = z.string().describe('ISO 8601 UTC timestamp');
const currency = z.string().describe('ISO 4217 code in lower case, as everywhere in the API: usd');
const date = z.string().describe('YYYY-MM-DD');

export const placementEvents = [
  {
    event: 'option.declined',
    audience: 'carrier',
    summary: 'The household turned a home down; carries the reason in their words.',
    simulatable: true,
    payload: z.object({ ...onHome, reason: z.string() }),
    sample: { ...samples, reason: 'Too far from the children’s school.' },
  },
  {
    event: 'option.saved',
    audience: 'carrier',
    summary: 'The household saved a home.',
    simulatable: true,
    payload: z.object(onHome),
    sample: { ...samples },
  },
  {
    event: 'dates.proposed',
    audience: 'carrier',
    summary: 'The household asked for different dates; the placement waits for an answer.',
    simulatable: true,
    payload: z.object({ ...onHome, move_in: date, move_out: date }),
    sample: { ...samples, move_in: '2026-12-05', move_out: '2027-03-05' },
  },
  {
    event: 'lease.sent',
    audience: 'carrier',
    summary: 'The contract went out for signature.',
    simulatable: true,
    payload: z.object({ ...onHome, lease_id: z.string().uuid(), move_in_date: date, move_out_date: date, sent_at: timestamp }),
    sample: {
      ...samples,
      lease_id: '7e2a9c14-3b6d-4f8e-a1c5-9d0b2e4f6a83',
      move_in_date: '2026-12-01',
      move_out_date: '2027-03-01',
      sent_at: '2026-11-21T10:15:00.000Z',
    },
  },
  {
    event: 'lease.first_signed',
    audience: 'carrier',
    summary: 'The tenant or named signer signed; the landlord countersigns next.',
    simulatable: true,
    payload: z.object({ ...onHome, lease_id: z.string().uuid(), signed_at: timestamp }),
    sample: { ...samples, lease_id: '7e2a9c14-3b6d-4f8e-a1c5-9d0b2e4f6a83', signed_at: '2026-11-21T14:02:00.000Z' },
  },
  {
    event: 'lease.signed',
    audience: 'carrier',
    summary: 'Both parties signed; payment is unlocked.',
    simulatable: true,
    payload: z.object({ ...onHome, lease_id: z.string().uuid(), signed_at: timestamp }),
    sample: { ...samples, lease_id: '7e2a9c14-3b6d-4f8e-a1c5-9d0b2e4f6a83', signed_at: '2026-11-22T09:30:00.000Z' },
  },
  {
    event: 'payment.succeeded',
    audience: 'carrier',
    summary: 'A charge cleared, with the fee breakdown.',
    simulatable: true,
    payload: z.object({
      ...onHome,
      payment_id: z.string().uuid().describe('The payment, as the placement read lists it.'),
      charge_type: z.string().describe('initial for the first payment'),
      payer: z.enum(payers).nullable().describe('who paid this share of the charge (a charge split between payers is paid in shares); null for payments made before shares'),
      amount: z.number().describe('what the payer was charged'),
      platform_fee: z.number().describe('service fee, from rent only'),
      currency,
      covers_rent: z.boolean(),
      covers_deposit: z.boolean(),
      paid_at: timestamp,
    }),
    sample: {
      ...samples,
      payment_id: '3f6c2a91-7d4e-4b8a-9c15-e2a7b0d4f618',
      charge_type: 'initial',
      payer: 'carrier',
      amount: 4350,
      platform_fee: 240,
      currency: 'usd',
      covers_rent: true,
      covers_deposit: true,
      paid_at: '2026-11-23T16:45:00.000Z',
    },
  },
  {
    event: 'payment.failed',
    audience: 'carrier',
    summary: 'A charge did not go through.',
    simulatable: true,
    payload: z.object({
      ...onHome,
      payment_id: z.string().uuid().describe('The failed attempt, as the placement read lists it.'),
      charge_type: z.string(),
      amount: z.number(),
      currency,
      failure_reason: z.string().describe('as given by the payment processor'),
    }),
    sample: { ...samples, payment_id: '8b2d4e6f-1a3c-4d5e-9f70-6c8a2b4d1e93', charge_type: 'initial', amount: 4350, currency: 'usd', failure_reason: 'card_declined' },
  },
  {
    // Named by the specification as the outcome of a refund request; subscribable, not simulatable.
    event: 'payment.refunded',
    audience: 'carrier',
    summary: 'The landlord answered a refund request: approved (money returned) or declined.',
    simulatable: false,
    payload: z.object({
      ...onHome,
      refund_request_id: z.string().uuid(),
      outcome: z.enum(['approved', 'declined']),
      amount: z.number().describe('refunded amount; 0 when declined'),
      currency,
    }),
    sample: {
      ...samples,
      refund_request_id: '3c8e1f5a-6d2b-4a9c-8e7f-1b0d3c5e7a92',
      outcome: 'approved',
      amount: 1500,
      currency: 'usd',
    },
  },
  {
    event: 'booking.confirmed',
    audience: 'carrier',
    summary: 'Paid and booked; the stay is live.',
    simulatable: true,
    payload: z.object({
      ...onHome,
      property: z.object({ id: z.string().uuid(), name: z.string() }),
      move_in_date: date,
      move_out_date: date,
      confirmed_at: timestamp,
    }),
    sample: {
      ...samples,
      property: { id: samples.property_id, name: 'Maple Court 2B' },
      move_in_date: '2026-12-01',
      move_out_date: '2027-03-01',
      confirmed_at: '2026-11-23T16:45:02.000Z',
    },
  },
  {
    // Beyond the specification's table: the stay's dates moved after booking.
    event: 'booking.dates_changed',
    audience: 'carrier',
    summary: 'A booked stay now ends on another day: shortened after move-in, or extended (its addendum paid).',
    simulatable: true,
    payload: z.object({
      ...onHome,
      change: z.enum(['shortened', 'extended']),
      lease_id: z.string().uuid().describe('The signed lease (its own dates never change).'),
      extension_id: z.string().uuid().nullable().describe('For an extension: its addendum (GET /claims/{reference}/extensions).'),
      move_in_date: date,
      previous_move_out_date: date,
      move_out_date: date,
      refund_due: z.number().nullable().describe('For a shortening: rent already paid for nights no longer covered (negative: owed at the shorter stay\'s tier), by the signed terms.'),
      amount: z.number().nullable().describe('For an extension: what its payment charged.'),
      currency,
    }),
    sample: {
      ...samples,
      change: 'extended',
      lease_id: '7b2d9e4f-1a3c-4e5b-8d6f-0a9c2e4b6d8f',
      extension_id: '2e4f6a8c-0b1d-4f3e-9a5c-7d9e1b3f5a7c',
      move_in_date: '2026-12-01',
      previous_move_out_date: '2027-03-01',
      move_out_date: '2027-04-01',
      refund_due: null,
      amount: 2583.33,
      currency: 'usd',
    },
  },
  {
    // Beyond the specification's table: money taken twice is never kept silently.
    event: 'payment.duplicate',
    audience: 'carrier',
    summary: 'A second charge cleared for what another payment had already paid; the service refunds it automatically (payment.refunded follows).',
    simulatable: true,
    payload: z.object({
      ...onHome,
      payment_id: z.string().uuid().describe('The second charge, as the placement read lists it (with duplicate_of).'),
      duplicate_of: z.string().uuid().describe('The payment that had already paid it.'),
      charge_type: z.string(),
      payer: z.enum(payers).nullable(),
      amount: z.number().describe('What the second charge took, all of it refunded.'),
      currency,
      refund_request_id: z.string().uuid().describe('The automatic refund (deposit_refunds on the placement read); payment.refunded names it when issued.'),
    }),
    sample: {
      ...samples,
      payment_id: '8d1f3b5a-7c9e-4a2b-b6d8-0e2f4a6c8b1d',
      duplicate_of: '3f6c2a91-7d4e-4b8a-9c15-e2a7b0d4f618',
      charge_type: 'initial',
      payer: 'carrier',
      amount: 4350,
      currency: 'usd',
      refund_request_id: '5b7d9f1a-3c5e-4a7b-9d1f-2b4d6f8a0c3e',
    },
  },
  {
    // Beyond the specification's table: money that waits on the service never waits in silence.
    event: 'payment.refund_failed',
    audience: 'carrier',
    summary: "An approved refund could not be issued, however often the service tried: the money is still on the landlord's account. Staff are alerted and retry it; payment.refunded follows when it goes through.",
    simulatable: true,
    payload: z.object({
      ...onHome,
      refund_request_id: z.string().uuid().describe('The refund not issued (deposit_refunds on the placement read): still approved.'),
      payment_id: z.string().uuid().describe('The payment it was to return money from.'),
      amount: z.number().describe('What was to be refunded.'),
      currency,
      attempts: z.number().int().describe('How often the service tried.'),
      failed_at: timestamp,
    }),
    sample: {
      ...samples,
      refund_request_id: '3c8e1f5a-6d2b-4a9c-8e7f-1b0d3c5e7a92',
      payment_id: '8b2d4e6f-1a3c-4d5e-9f70-6c8a2b4d1e93',
      amount: 1500,
      currency: 'usd',
      attempts: 8,
      failed_at: '2026-11-24T06:10:00.000Z',
    },
  },
  {
    // Beyond the specification's table: a home sent to the household whose link never reached it.
    event: 'household_link.undelivered',
    audience: 'carrier',
    summary:
      'The email carrying the household\'s link to a home sent to it did not go out: the deployment has no email configured ' +
      '(nothing was sent), or the send failed for good. The household has no link until it is sent again (POST household-link).',
    simulatable: true,
    payload: z.object({
      ...onHome,
      reason: z.enum(['not_configured', 'failed']).describe('not_configured: nothing was sent; failed: every attempt failed.'),
      error: z.string().describe(
        'What stopped it: not_configured, the missing settings; failed, a fixed phrase (the email provider\'s own error, naming its hosts and ' +
        'replies, stays with the service\'s staff).',
      ),
      attempts: z.number().int().describe('Send attempts made (0 when nothing could be attempted).'),
      link_issued_at: timestamp.nullable().describe('The issue of the link the message carried.'),
    }),
    sample: {
      ...samples,
      reason: 'failed',
      error: "the email provider refused the message or could not be reached; the service's staff have the details",
      attempts: 8,
      link_issued_at: '2026-11-21T10:15:00.000Z',
    },
  },
] as const satisfies readonly EventDefinition[];
