import { z } from '@hono/zod-openapi';
import type { Side } from '../db/tenant.ts';
import { requestEvents } from './definitions/requests.ts';
import { placementEvents } from './definitions/placements.ts';
import { providerEvents } from './definitions/provider.ts';

// The one registry of events. Each definition is an (event, audience) pair with its summary, payload
// schema and sample: the same name may exist for both sides with different payloads
// (payment.succeeded). It drives GET /events/types, the validation of emitted payloads in tests,
// the OpenAPI webhooks section, simulate and the unknown_event check.
// Payloads carry the caller's `external_id` (null when the resource has none).

/** Every event name the service sends, as the specification lists them. */
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

export const eventDefinitions: readonly EventDefinition[] = [...requestEvents, ...placementEvents, ...providerEvents];

export function isEventName(name: string): name is EventName {
  return (eventNames as readonly string[]).includes(name);
}

export function definitionOf(event: EventName, audience: Side): EventDefinition | undefined {
  return eventDefinitions.find((d) => d.event === event && d.audience === audience);
}

/** The definitions a side can see and subscribe to. */
export function eventsFor(side: Side): EventDefinition[] {
  return eventDefinitions.filter((d) => d.audience === side);
}

/** The OpenAPI `webhooks` section: one entry per event and audience, with the envelope and payload. */
export function openApiWebhooks() {
  return Object.fromEntries(
    eventDefinitions.map((definition) => {
      const envelope = z.object({
        id: z.string().uuid(),
        event: z.literal(definition.event),
        created_at: z.string(),
        data: definition.payload,
        simulated: z.boolean().optional(),
        replay: z.boolean().optional(),
      });
      return [
        `${definition.event} (${definition.audience})`,
        {
          post: {
            summary: definition.summary,
            description: `Sent to ${definition.audience} endpoints, signed with X-Service-Signature.`,
            requestBody: { content: { 'application/json': { schema: z.toJSONSchema(envelope, { io: 'input', unrepresentable: 'any' }) } } },
            responses: { '2xx': { description: 'Any 2xx acknowledges the delivery.' } },
          },
        },
      ];
    }),
  );
}
