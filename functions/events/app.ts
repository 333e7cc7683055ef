import { z } from '@hono/zod-openapi';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, dataOf, defineRoute, jsonBody, jsonResponse, pageOf } from '../../shared/http/routes.ts';
import { list, page, single } from '../../shared/http/envelope.ts';
import { ApiError, notFound } from '../../shared/http/errors.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import { definitionOf, eventsFor } from '../../shared/events/registry.ts';
import { existingId, IdParams, keysetAfter, knownEvents } from '../../shared/webhooks/params.ts';

// The event log (the system of record of everything announced), the catalogue, simulate and replay.
// A live key sees live events; a sandbox key sees sandbox events, simulated ones included.

const Event = z
  .object({
    id: z.string().uuid(),
    event: z.string().openapi({ example: 'lease.sent' }),
    created_at: z.string().openapi({ example: '2026-11-21T10:15:00.000Z' }),
    data: z.record(z.string(), z.unknown()).describe("The event's payload; carries the caller's external_id."),
  })
  .openapi('Event');

const DeliveryCounts = z
  .object({
    total: z.number().int(),
    succeeded: z.number().int(),
    pending: z.number().int(),
    abandoned: z.number().int(),
    cancelled: z.number().int(),
  })
  .describe("The event's webhook deliveries by status (see GET /webhooks/deliveries?event_id=).");

const EventDetail = Event.extend({ simulated: z.boolean(), deliveries: DeliveryCounts }).openapi('EventDetail');

const EventType = z
  .object({
    event: z.string(),
    summary: z.string(),
    audience: z.enum(['carrier', 'provider']),
    simulatable: z.boolean(),
    sample: Event.describe('A representative envelope, as delivered.'),
  })
  .openapi('EventType');

const Simulated = z
  .object({
    event_id: z.string().uuid(),
    event: z.string(),
    queued_to: z.number().int().describe('Sandbox endpoints the event was queued to.'),
    simulated: z.literal(true),
    note: z.string(),
  })
  .openapi('SimulatedEvent');

const Replayed = z
  .object({ event_id: z.string().uuid(), queued_to: z.number().int(), replay: z.literal(true) })
  .openapi('ReplayedEvent');

const maxEventsPage = 250;

const ListQuery = z.object({
  event: z.string().optional().openapi({ description: 'Comma-separated event types.', example: 'lease.sent,lease.signed' }),
  since: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Only events recorded after this ISO timestamp.' }),
  limit: z.coerce.number().int().min(1).max(maxEventsPage).default(100).openapi({ description: `1 to ${maxEventsPage}, default 100.` }),
  cursor: z.string().optional().openapi({ description: '`next_cursor` of the previous page, unchanged.' }),
});

const SimulateBody = z
  .strictObject({
    event: z.string().min(1).openapi({ example: 'lease.signed' }),
    data: z.record(z.string(), z.unknown()).optional().describe("The payload; omitted, the event type's sample."),
  })
  .openapi('SimulateEvent');

interface EventRow {
  id: string;
  event: string;
  created_at: Date;
  data: Record<string, unknown>;
  /** The exact recording time, as Postgres prints it: the keyset of the feed. */
  position: string;
}

const sampleEventId = '00000000-0000-4000-8000-000000000000';
const sampleCreatedAt = '2026-11-21T10:15:00.000Z';

const eventOf = (row: Pick<EventRow, 'id' | 'event' | 'created_at' | 'data'>) => ({
  id: row.id,
  event: row.event,
  created_at: row.created_at.toISOString(),
  data: row.data,
});


export const routes = createRoutes()
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
      const types = eventsFor(c.get('caller').side).map((d) => ({
        event: d.event,
        summary: d.summary,
        audience: d.audience,
        simulatable: d.simulatable,
        sample: { id: sampleEventId, event: d.event, created_at: sampleCreatedAt, data: d.sample },
      }));
      return c.json(list(types), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      tags: ['Events'],
      summary: 'The event log, newest first',
      description: [
        "Every event raised for the caller's organisation in the key's environment, whether or not an endpoint existed or a delivery succeeded. Reading consumes nothing. Events are kept 90 days.",
        'Paged with an opaque `cursor`; the cost of a page does not grow with its depth.',
      ].join('\n\n'),
      scope: 'any-read',
      request: { query: ListQuery },
      responses: { 200: jsonResponse(pageOf(Event), 'A page of events.') },
      errors: { 422: 'invalid_field (limit, since, cursor) or unknown_event (an `event` name the side is not sent).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const query = c.req.valid('query');
      const names = query.event ? knownEvents(query.event.split(',').map((n) => n.trim()).filter(Boolean), caller.side, 'event') : [];
      const after = query.cursor ? keysetAfter(query.cursor) : undefined;
      const rows = await withTenant(caller, (tx) => tx<EventRow[]>`
        select id, event, created_at, payload as data, to_json(created_at) #>> '{}' as position
          from app.events
         where org_id = ${caller.orgId} and environment = ${caller.environment}
           ${names.length ? tx`and event = any (${names})` : tx``}
           ${query.since ? tx`and created_at > ${query.since}::text::timestamptz` : tx``}
           ${after ? tx`and (created_at, id) < (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``}
         order by created_at desc, id desc
         limit ${query.limit + 1}`);
      const { items, nextCursor } = page(rows, query.limit, (row) => [row.position, row.id]);
      return c.json(list(items.map(eventOf), nextCursor), 200);
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
        '`data` is checked against the event type\'s payload; omitted, the sample of GET /events/types is used.',
      ].join('\n\n'),
      scope: 'any-write',
      request: { body: jsonBody(SimulateBody) },
      responses: { 202: jsonResponse(dataOf(Simulated), 'Recorded and queued.') },
      errors: {
        403: 'sandbox_only: a live key.',
        422: 'unknown_event: not an event of the caller\'s side; invalid_field: an event outside the simulatable list (field `event`) or `data` not matching its payload.',
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      if (caller.environment !== 'sandbox') {
        throw new ApiError('sandbox_only', 'Events can be simulated with a sandbox key only (svc_sk_...).');
      }
      const body = c.req.valid('json');
      const name = knownEvents([body.event], caller.side, 'event')[0];
      const definition = definitionOf(name, caller.side)!;
      if (!definition.simulatable) {
        const simulatable = eventsFor(caller.side).filter((d) => d.simulatable).map((d) => d.event).join(', ');
        throw new ApiError('invalid_field', `${name} cannot be simulated; simulatable: ${simulatable}.`, 'event');
      }
      const data = body.data ?? definition.sample;
      const checked = definition.payload.safeParse(data);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        const field = ['data', ...issue.path.map(String)].join('.');
        throw new ApiError('invalid_field', `${field}: ${issue.message}`, field);
      }
      const { eventId, queuedTo } = await withTenant(caller, async (tx) => {
        const [recorded] = await tx<{ id: string }[]>`
          select app.record_event(${name}, ${tx.json({ ...data, simulated: true } as never)}, null, null, true) as id`;
        const [queued] = await tx<{ count: number }[]>`
          select count(*)::int as count from app.webhook_deliveries where event_id = ${recorded.id}`;
        return { eventId: recorded.id, queuedTo: queued.count };
      });
      return c.json(
        single({
          event_id: eventId,
          event: name,
          queued_to: queuedTo,
          simulated: true as const,
          note: `Recorded in the sandbox event log and queued to ${queuedTo} sandbox endpoint(s) subscribed to ${name}; nothing else changed.`,
        }),
        202,
      );
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{id}',
      tags: ['Events'],
      summary: 'One event of the log',
      description: 'The event as listed, with `simulated` and a count of its webhook deliveries by status.',
      scope: 'any-read',
      request: { params: IdParams },
      responses: { 200: jsonResponse(dataOf(EventDetail), 'The event.') },
      errors: { 404: 'not_found: no such event in this organisation and environment (or past its 90 days).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'event');
      const [row] = await withTenant(caller, (tx) => tx<(EventRow & { simulated: boolean; deliveries: z.infer<typeof DeliveryCounts> })[]>`
        select e.id, e.event, e.created_at, e.payload as data, e.simulated,
               (select json_build_object(
                         'total', count(*),
                         'succeeded', count(*) filter (where d.status = 'succeeded'),
                         'pending', count(*) filter (where d.status = 'pending'),
                         'abandoned', count(*) filter (where d.status = 'abandoned'),
                         'cancelled', count(*) filter (where d.status = 'cancelled'))
                  from app.webhook_deliveries d where d.event_id = e.id) as deliveries
          from app.events e
         where e.id = ${id}`);
      if (!row) throw notFound('event');
      return c.json(single({ ...eventOf(row), simulated: row.simulated, deliveries: row.deliveries }), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/replay',
      tags: ['Events'],
      summary: "Queue an event again to the caller's endpoints subscribed now",
      description:
        'The delivered envelope keeps the event id and carries `replay: true`. Only active endpoints that subscribe to the event now receive it. An endpoint that already has a replay of this event waiting is not queued again.',
      scope: 'any-write',
      request: { params: IdParams },
      responses: { 202: jsonResponse(dataOf(Replayed), 'Queued.') },
      errors: {
        404: 'not_found: no such event in this organisation and environment.',
        409: 'no_endpoint: no active endpoint subscribes to the event; could_not_replay: a replay of it is already waiting for every subscribed endpoint.',
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'event');
      const [outcome] = await withTenant(caller, (tx) => tx<{ subscribed: number; queued: number }[]>`
        select subscribed, queued from app.queue_replay(${id})`);
      if (!outcome) throw notFound('event');
      if (outcome.subscribed === 0) {
        throw new ApiError('no_endpoint', 'No active webhook endpoint in this environment subscribes to this event.');
      }
      if (outcome.queued === 0) {
        throw new ApiError('could_not_replay', 'A replay of this event is already waiting to be delivered to every subscribed endpoint.');
      }
      return c.json(single({ event_id: id, queued_to: outcome.queued, replay: true as const }), 202);
    },
  );

export const app = createFunctionApp('events', routes);
