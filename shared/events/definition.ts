import type { z } from '@hono/zod-openapi';
import type { Side } from '../db/tenant.ts';

// What an event is: its name (the specification's list) and a definition per audience. The
// definitions (definitions/*.ts) and the registry that lists them (registry.ts) both import this.

/** Every event name the service sends: the specification's list, and this service's additions. */
export const eventNames = [
  'request.status_changed',
  'option.declined',
  'option.saved',
  'dates.proposed',
  'lease.sent',
  'lease.first_signed',
  'lease.signed',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'booking.confirmed',
  'booking.updated',
  // This service's additions: a booked stay shortened or extended (carrier side); an application
  // waiting for the landlord (provider side); a second charge for what was already paid, refunded
  // automatically (carrier side); an approved refund the service could not issue, however often it
  // tried (both sides: the money is still on the landlord's account).
  'booking.dates_changed',
  'application.received',
  'payment.duplicate',
  'payment.refund_failed',
  // This service's addition about messages: the household's link that did not go out (carrier side).
  'household_link.undelivered',
  // This service's additions about imported calendars (provider side): another channel's calendar
  // takes nights a stay here holds; an imported calendar has failed to be read several times running.
  'calendar.conflict',
  'calendar.feed_failing',
  // This service's addition about refunds (provider side): a refund was asked, for the landlord to answer.
  'refund.requested',
] as const;

export type EventName = (typeof eventNames)[number];

export interface EventDefinition {
  event: EventName;
  audience: Side;
  summary: string;
  simulatable: boolean;
  payload: z.ZodType;
  /** A representative payload, used for samples and for simulate without `data`. */
  sample: Record<string, unknown>;
}
