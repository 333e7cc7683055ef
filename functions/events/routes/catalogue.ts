import { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../../shared/http/context.ts';
import { withTenant } from '../../../shared/db/tenant.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { ApiError } from '../../../shared/http/errors.ts';
import { createRoutes, dataOf, defineRoute, jsonBody, jsonResponse, validationError } from '../../../shared/http/routes.ts';
import { definitionOf, eventsFor, type EventDefinition } from '../../../shared/events/registry.ts';
import { knownEvents } from '../../../shared/events/params.ts';
import { recordSimulatedEvent } from '../repository.ts';
import { Event } from '../schemas.ts';
import { storedJson, storedText } from '../../../shared/http/values.ts';

// What the event registry offers the caller's side: the catalogue, and simulated events in sandbox.

const EventType = z
  .object({
    event: z.string(),
    summary: z.string(),
    audience: z.enum(['carrier', 'provider']),
    simulatable: z.boolean(),
    sample: Event.describe('A representative envelope, as delivered.'),
  })
  .openapi('EventType');

const SimulateBody = z
  .strictObject({
    event: storedText().min(1).openapi({ example: 'lease.signed' }),
    data: storedJson().optional().describe("The payload; omitted, the event type's sample."),
  })
  .openapi('SimulateEvent');

const Simulated = z
  .object({
    event_id: z.string().uuid(),
    event: z.string(),
    queued_to: z.number().int().describe('Sandbox endpoints the event was queued to.'),
    simulated: z.literal(true),
    note: z.string(),
  })
  .openapi('SimulatedEvent');

const sampleEnvelope = (definition: EventDefinition) => ({
  id: '00000000-0000-4000-8000-000000000000',
  event: definition.event,
  created_at: '2026-11-21T10:15:00.000Z',
  data: definition.sample,
});

/**
 * Simulate is for sandbox keys whatever the body says, so a live key is told that first, before any
 * complaint about the body (registered ahead of the route's validation).
 */
const sandboxOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('caller').environment !== 'sandbox') {
    throw new ApiError('sandbox_only', 'Events can be simulated with a sandbox key only (svc_sk_...).');
  }
  await next();
};

/**
 * The payload to simulate: `data` merged over the event type's sample (nested objects merged too),
 * so any subset of the documented fields works, then checked against the payload: a wrong value or
 * a field the payload does not have is 422 naming `data.<field>`.
 */
function payloadToSimulate(definition: EventDefinition, data: Record<string, unknown> = {}): Record<string, unknown> {
  const merged = mergeOver(definition.sample, data);
  const payload = definition.payload instanceof z.ZodObject
    ? definition.payload.extend({ simulated: z.literal(true).optional() }).strict()
    : definition.payload;
  const checked = z.object({ data: payload }).safeParse({ data: merged });
  if (!checked.success) throw validationError(checked.error);
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

const routes = createRoutes();
routes.post('/simulate', sandboxOnly);

export const catalogueRoutes = routes
  .openapi(
    defineRoute({
      method: 'get',
      path: '/types',
      tags: ['Events'],
      summary: "The events of the caller's side, with a sample envelope of each",
      description: 'Every event a webhook endpoint of this side can subscribe to. `simulatable` ones can be raised in sandbox with POST /events/simulate.',
      scope: 'read-webhooks',
      responses: { 200: jsonResponse(z.object({ data: z.array(EventType), count: z.number().int() }), 'The catalogue.') },
    }),
    (c) => {
      const types = eventsFor(c.get('caller').side).map((definition) => ({
        event: definition.event,
        summary: definition.summary,
        audience: definition.audience,
        simulatable: definition.simulatable,
        sample: sampleEnvelope(definition),
      }));
      return c.json(list(types), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/simulate',
      tags: ['Events'],
      summary: 'Raise a simulated event in sandbox',
      description: [
        "Records the event in the sandbox log with `simulated: true` (in the envelope and in `data`) and queues it to the caller's sandbox endpoints subscribed to it, signed and retried like a real event. Nothing else changes: no request, lease, booking or money moves.",
        "`data` is laid over the event type's sample (GET /events/types) and the result checked against the payload, so any subset of the documented fields works: `{\"reference\": \"REQ-TEST01\", \"reason\": \"...\"}` for option.declined; omitted, the sample itself. Samples name an obviously fictional request (`SIM-...`).",
      ].join('\n\n'),
      scope: 'any-write',
      request: { body: jsonBody(SimulateBody) },
      responses: { 202: jsonResponse(dataOf(Simulated), 'Recorded and queued.') },
      errors: {
        403: 'sandbox_only: a live key (whatever the body); forbidden: a sandbox key without a write scope (the message names it).',
        422: 'unknown_event: not an event of the caller\'s side; invalid_field: an event outside the simulatable list (field `event`) or `data` with a wrong value or a field the payload does not have (field `data.<name>`).',
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      const body = c.req.valid('json');
      const [name] = knownEvents([body.event], caller.side, 'event');
      const definition = definitionOf(name, caller.side)!;
      if (!definition.simulatable) {
        const simulatable = eventsFor(caller.side).filter((d) => d.simulatable).map((d) => d.event).join(', ');
        throw new ApiError('invalid_field', `${name} cannot be simulated; simulatable: ${simulatable}.`, 'event');
      }
      const data = payloadToSimulate(definition, body.data);
      const recorded = await withTenant(caller, (tx) => recordSimulatedEvent(tx, name, data));
      return c.json(
        single({
          event_id: recorded.id,
          event: name,
          queued_to: recorded.queued,
          simulated: true as const,
          note: `Recorded in the sandbox event log and queued to ${recorded.queued} sandbox endpoint(s) subscribed to ${name}; nothing else changed.`,
        }),
        202,
      );
    },
  );
