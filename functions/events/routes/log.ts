import { single } from '../../../shared/http/envelope.ts';
import { ApiError, notFound } from '../../../shared/http/errors.ts';
import { createRoutes, dataOf, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { existingId, IdParams, knownEvents } from '../../../shared/events/params.ts';
import { cursorKeyset, keysetPage } from '../../../shared/http/paging.ts';
import { eventOf, eventsPage, replayEvent } from '../log.ts';
import { Event, EventDetail, EventsQuery, renderEvent, Replayed } from '../schemas.ts';

// The event log, the system of record of everything announced, and replay of what it holds.

const notFoundError = { 404: { not_found: 'no such event in this organisation and environment (or past its 90 days).' } };

export const logRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listEvents',
      tags: ['Events'],
      summary: 'The event log, newest first',
      description: [
        "Every event raised for the caller's organisation in the key's environment, whether or not an endpoint existed or a delivery succeeded. Reading consumes nothing. Events are kept 90 days.",
        'Paged with an opaque `cursor`; the cost of a page does not grow with its depth.',
      ].join('\n\n'),
      scope: 'any-read',
      request: { query: EventsQuery },
      responses: { 200: jsonResponse(pageOf(Event), 'A page of events.') },
      errors: {
        422: {
          invalid_field: 'limit, since or cursor',
          unknown_event: 'an `event` name the side is not sent.',
        },
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      const query = c.req.valid('query');
      const requested = query.event?.split(',').map((name) => name.trim()).filter(Boolean) ?? [];
      const filter = {
        names: knownEvents(requested, caller.side, 'event'),
        since: query.since,
        after: cursorKeyset(query.cursor),
        limit: query.limit,
      };
      const rows = await eventsPage(caller, filter);
      return c.json(keysetPage(rows, query.limit, renderEvent), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{id}',
      operationId: 'getEvent',
      tags: ['Events'],
      summary: 'One event of the log',
      description: 'The event as listed, with `simulated` and a count of its webhook deliveries by status.',
      scope: 'any-read',
      request: { params: IdParams },
      responses: { 200: jsonResponse(dataOf(EventDetail), 'The event.') },
      errors: notFoundError,
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'event');
      const row = await eventOf(c.get('caller'), id);
      if (!row) throw notFound('event');
      return c.json(single({ ...renderEvent(row), simulated: row.simulated, deliveries: row.deliveries }), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/replay',
      operationId: 'replayEvent',
      tags: ['Events'],
      summary: "Queue an event again to the caller's endpoints subscribed now",
      description:
        'The delivered envelope keeps the event id and carries `replay: true`. Only active endpoints that subscribe to the event now receive it. An endpoint that already has a replay of this event waiting is not queued again.',
      scope: 'any-write',
      request: { params: IdParams },
      responses: { 202: jsonResponse(dataOf(Replayed), 'Queued.') },
      errors: {
        ...notFoundError,
        409: {
          no_endpoint: 'no active endpoint subscribes to the event',
          could_not_replay: 'a replay of it is already waiting for every subscribed endpoint.',
        },
      },
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'event');
      const outcome = await replayEvent(c.get('caller'), id);
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
