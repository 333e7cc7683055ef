import { z } from '@hono/zod-openapi';
import { storedText } from '../../shared/http/values.ts';
import { calendarDate, timestampQuery } from '../../shared/http/values.ts';
import { pageQuery, pageSizes } from '../../shared/http/paging.ts';
import { payers } from '../../shared/claims/values.ts';

// The counterpart helpers' schemas (operating contract §3).

export const HomeOnRequestParams = z.object({
  reference: z.string().openapi({ param: { name: 'reference', in: 'path' }, description: 'claim_ref or id' }),
  propertyId: z.string().openapi({ param: { name: 'propertyId', in: 'path' }, description: 'The home (property id).' }),
});

const day = calendarDate().describe('YYYY-MM-DD');

export const HouseholdAction = z
  .strictObject({
    action: z.enum(['save', 'decline', 'apply', 'propose_dates', 'sign']),
    reason: storedText(z.string().trim().min(1).max(2000)).optional().describe('decline: why, in the household’s words (required).'),
    move_in: day.optional().describe('propose_dates: required.'),
    move_out: day.optional().describe('propose_dates: required.'),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'decline' && body.reason === undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is required to decline' });
    for (const field of ['move_in', 'move_out'] as const) {
      if (body.action === 'propose_dates' && body[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'is required to propose dates' });
      if (body.action !== 'propose_dates' && body[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'is for propose_dates only' });
    }
    if (body.action !== 'decline' && body.reason !== undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is for decline only' });
  })
  .openapi('SandboxHouseholdAction');
export type HouseholdAction = z.infer<typeof HouseholdAction>;

export const LandlordAction = z
  .strictObject({
    action: z.enum(['approve_application', 'decline_application', 'sign', 'approve_refund', 'decline_refund', 'decline_extension']),
    reason: storedText(z.string().trim().min(1).max(2000)).optional().describe('decline_application: why, in the landlord’s words (required).'),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'decline_application' && body.reason === undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is required to decline an application' });
    if (body.action !== 'decline_application' && body.reason !== undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is for decline_application only' });
  })
  .openapi('SandboxLandlordAction');
export type LandlordActionBody = z.infer<typeof LandlordAction>;

export const PaymentAction = z
  .strictObject({
    outcome: z.enum(['succeeded', 'failed', 'duplicate']).describe(
      'succeeded: the charge clears; failed: the card is declined; duplicate (this service\'s addition): the charge clears, and a second ' +
      'checkout of the same share clears too, as when a payer finishes two checkouts: the second is kept as a duplicate and refunded automatically.',
    ),
    payer: z.enum(payers).optional().describe(
      'Pay only this payer\'s share of what is due now (a charge whose rent, deposits and fees have different payers is paid in shares). Omitted: every share due now, each as its own payment.',
    ),
  })
  .openapi('SandboxPaymentAction');

/** POST /sandbox/payouts: what the processor reports changing on the payout account. */
export const ProcessorAction = z.strictObject({
  connected: z.boolean().optional(),
  charges_enabled: z.boolean().optional(),
  payouts_enabled: z.boolean().optional(),
});

/** A sandbox clock's time: an ISO 8601 date-time with its offset (or Z). */
const clockTime = timestampQuery();

export const ClockCreate = z
  .strictObject({ frozen_time: clockTime.optional().describe('Where the clock starts (default: now). Not in the past; at most two years ahead.') })
  .openapi('SandboxClockCreate');

export const ClockAdvance = z
  .strictObject({ frozen_time: clockTime.describe('The new time: not before the clock\'s, at most two years after now.') })
  .openapi('SandboxClockAdvance');

export const Clock = z
  .object({
    frozen_time: z.string().describe('The time the organisation\'s sandbox requests see.'),
    created_at: z.string(),
    advanced_at: z.string().nullable(),
  })
  .openapi('SandboxClock');

export const ClockAdvanced = Clock.extend({
  jobs_run: z.number().int().describe('Scheduled jobs that fell due and ran before the answer (move-in steps, closeouts, ...).'),
  jobs_failed: z.number().int().describe('Of those, the ones that failed; the scheduler retries them.'),
}).openapi('SandboxClockAdvanced');

export const ClockDeleted = z.object({ deleted: z.boolean().describe('false: there was no clock.') }).openapi('SandboxClockDeleted');

export const SandboxHouseholdLink = z
  .object({
    url: z.string().describe('The household\'s page for the home (GET it, and POST its forms, as the household would).'),
    expires_at: z.string(),
  })
  .openapi('SandboxHouseholdLink');

export const SandboxEmail = z
  .object({
    id: z.string().uuid(),
    topic: z.string().describe('Why it was sent: home.offered (the household\'s link), application.received, lease.sent, booking.cancelled, ...'),
    to: z.array(z.string()),
    subject: z.string().nullable().describe('Null for a household link still queued (its message is written when it goes out).'),
    text: z.string().nullable(),
    html: z.string().nullable(),
    status: z.enum(['queued', 'sent', 'failed']),
    queued_at: z.string(),
    sent_at: z.string().nullable(),
  })
  .openapi('SandboxEmail');

export const SandboxEmailsQuery = pageQuery(pageSizes.sandboxEmails);
