import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../../shared/http/context.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { ApiError } from '../../../shared/http/errors.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, listOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { definitionOf, eventsFor } from '../../../shared/events/registry.ts';
import { knownEvents } from '../../../shared/events/params.ts';
import { simulateEvent } from '../log.ts';
import { EventType, payloadToSimulate, sampleEnvelope, SimulateBody, Simulated } from '../schemas.ts';

// What the event registry offers the caller's side: the catalogue, and simulated events in sandbox.

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

const routes = createRoutes();
routes.post('/simulate', sandboxOnly);

export const catalogueRoutes = routes
  .openapi(
    defineRoute({
      method: 'get',
      path: '/types',
      operationId: 'listEventTypes',
      tags: ['Events'],
      summary: "The events of the caller's side, with a sample envelope of each",
      description: 'Every event a webhook endpoint of this side can subscribe to. `simulatable` ones can be raised in sandbox with POST /events/simulate.',
      scope: 'read-webhooks',
      responses: { 200: jsonResponse(listOf(EventType), 'The catalogue.') },
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
      operationId: 'simulateEvent',
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
        403: {
          sandbox_only: 'a live key (whatever the body)',
          forbidden: 'a sandbox key without a write scope (the message names it).',
        },
        422: {
          unknown_event: 'not an event of the caller\'s side',
          invalid_field: 'an event outside the simulatable list (field `event`) or `data` with a wrong value or a field the payload does not have (field `data.<name>`).',
        },
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
      const recorded = await simulateEvent(caller, name, data);
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
