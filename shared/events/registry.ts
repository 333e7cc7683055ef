import { z } from '@hono/zod-openapi';
import type { Side } from '../db/tenant.ts';

// The one registry of events: name, audience, payload schema per audience, and a sample.
// It drives GET /events/types, validation of emitted payloads in tests, the OpenAPI webhooks
// section and the unknown_event check. Payloads carry the caller's `external_id` (null when the
// resource has none).

export interface EventDefinition {
  summary: string;
  simulatable: boolean;
  /** The payload (`data`) each audience receives; an event is visible to the sides listed here. */
  payloads: Partial<Record<Side, z.ZodType>>;
  /** A representative payload per audience, used for samples and for simulate without `data`. */
  samples: Partial<Record<Side, Record<string, unknown>>>;
}

const externalId = z.string().nullable().describe("The caller's own reference (external_id) of the resource, or null.");
const reference = z.string().describe('claim_ref of the housing request');

const statusChanged = z.object({
  request_id: z.string().uuid(),
  reference,
  external_id: externalId,
  status: z.string(),
  previous_status: z.string().nullable(),
});

export const eventRegistry = {
  'request.status_changed': {
    summary: 'A housing request moved through its lifecycle.',
    simulatable: true,
    payloads: { carrier: statusChanged },
    samples: {
      carrier: {
        request_id: '0b9f6a4e-5f55-4a43-9d1c-3c2f1d9a7e10', reference: 'REQ-7KQ2MX', external_id: 'CLM-1001',
        status: 'housing_options_found', previous_status: 'housing_needs_collected',
      },
    },
  },
} satisfies Record<string, EventDefinition>;

export type EventName = keyof typeof eventRegistry;

export const eventNames = Object.keys(eventRegistry) as EventName[];

export function isEventName(name: string): name is EventName {
  return Object.hasOwn(eventRegistry, name);
}

/** Events a side can see and subscribe to. */
export function eventsFor(side: Side): EventName[] {
  return eventNames.filter((name) => side in eventRegistry[name].payloads);
}

/** The OpenAPI `webhooks` section: one entry per event, with the envelope and its payload. */
export function openApiWebhooks() {
  return Object.fromEntries(
    eventNames.map((name) => {
      const definition: EventDefinition = eventRegistry[name];
      const payloads = Object.values(definition.payloads);
      const envelope = z.object({
        id: z.string().uuid(),
        event: z.literal(name),
        created_at: z.string(),
        data: payloads.length === 1 ? payloads[0] : z.union(payloads as [z.ZodType, z.ZodType]),
        simulated: z.boolean().optional(),
        replay: z.boolean().optional(),
      });
      return [
        name,
        {
          post: {
            summary: definition.summary,
            description: `Audience: ${Object.keys(definition.payloads).join(', ')}. Signed with X-Service-Signature.`,
            requestBody: { content: { 'application/json': { schema: z.toJSONSchema(envelope, { io: 'input', unrepresentable: 'any' }) } } },
            responses: { '2xx': { description: 'Any 2xx acknowledges the delivery.' } },
          },
        },
      ];
    }),
  );
}
