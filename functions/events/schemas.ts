import { z } from '@hono/zod-openapi';
import { type EventDefinition } from '../../shared/events/definition.ts';
import { pageQuery, pageSizes } from '../../shared/http/paging.ts';
import { validationError } from '../../shared/http/routes.ts';
import { storedJson, storedText, timestampQuery } from '../../shared/http/values.ts';
import type { EventRow } from './repository.ts';

// The events group's schemas: an event as the log lists it and as a webhook delivers it (without the
// delivery flags), the log's query and answers, the catalogue, and what simulate accepts.

export const Event = z
  .object({
    id: z.string().uuid().describe('The deduplication key: the same on every delivery and replay.'),
    event: z.string().openapi({ example: 'lease.sent' }),
    created_at: z.string().openapi({ example: '2026-11-21T10:15:00.000Z' }),
    data: z.record(z.string(), z.unknown()).describe("The event's payload; carries the caller's external_id."),
  })
  .openapi('Event');

export const renderEvent = (row: EventRow): z.infer<typeof Event> => ({
  id: row.id,
  event: row.event,
  created_at: row.created_at.toISOString(),
  data: row.data,
});

export const EventsQuery = pageQuery(pageSizes.events).extend({
  event: storedText().optional().openapi({ description: 'Comma-separated event types.', example: 'lease.sent,lease.signed' }),
  since: timestampQuery().optional().openapi({ description: 'Only events recorded after this ISO timestamp, with `Z` or an offset.', example: '2026-11-21T10:15:00Z' }),
});

const DeliveryCounts = z
  .object({
    total: z.number().int(),
    succeeded: z.number().int(),
    pending: z.number().int(),
    abandoned: z.number().int(),
    cancelled: z.number().int(),
  })
  .describe("The event's webhook deliveries by status (see GET /webhooks/deliveries?event_id=).");

export const EventDetail = Event.extend({ simulated: z.boolean(), deliveries: DeliveryCounts }).openapi('EventDetail');

export const Replayed = z
  .object({ event_id: z.string().uuid(), queued_to: z.number().int(), replay: z.literal(true) })
  .openapi('ReplayedEvent');

export const EventType = z
  .object({
    event: z.string(),
    summary: z.string(),
    audience: z.enum(['carrier', 'provider']),
    simulatable: z.boolean(),
    sample: Event.describe('A representative envelope, as delivered.'),
  })
  .openapi('EventType');

export const SimulateBody = z
  .strictObject({
    event: storedText().min(1).openapi({ example: 'lease.signed' }),
    data: storedJson().optional().describe("The payload; omitted, the event type's sample."),
  })
  .openapi('SimulateEvent');

export const Simulated = z
  .object({
    event_id: z.string().uuid(),
    event: z.string(),
    queued_to: z.number().int().describe('Sandbox endpoints the event was queued to.'),
    simulated: z.literal(true),
    note: z.string(),
  })
  .openapi('SimulatedEvent');

export const sampleEnvelope = (definition: EventDefinition) => ({
  id: '00000000-0000-4000-8000-000000000000',
  event: definition.event,
  created_at: '2026-11-21T10:15:00.000Z',
  data: definition.sample,
});

/**
 * The payload to simulate: `data` merged over the event type's sample (nested objects merged too),
 * so any subset of the documented fields works, then checked against the payload: a wrong value or
 * a field the payload does not have is 422 naming `data.<field>`.
 */
export function payloadToSimulate(definition: EventDefinition, data: Record<string, unknown> = {}): Record<string, unknown> {
  const merged = mergeOver(definition.sample, data);
  const payload = definition.payload instanceof z.ZodObject
    ? definition.payload.extend({ simulated: z.literal(true).optional() }).strict()
    : definition.payload;
  const simulated = z.object({ data: payload });
  const checked = simulated.safeParse({ data: merged });
  if (!checked.success) throw validationError(checked.error, simulated);
  return merged;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `over` laid over `base`: keys of both objects merged, anything else (arrays, null) replaced. */
function mergeOver(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(over)) {
    merged[key] = isPlainObject(value) && isPlainObject(base[key]) ? mergeOver(base[key], value) : value;
  }
  return merged;
}
