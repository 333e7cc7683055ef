import { z } from '@hono/zod-openapi';
import { withTenant } from '../../../shared/db/tenant.ts';
import { list } from '../../../shared/http/envelope.ts';
import { createRoutes, defineRoute, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { cursorKeyset, keysetPage, olderThan, pageQuery, pageSizes, positionColumn } from '../../../shared/http/paging.ts';

// The delivery queue as the caller sees it: one item per delivery (an event, replay or ping queued to
// one endpoint) with every attempt. Rows are written only by the fan-out, the queueing functions and
// the dispatcher; the API role may read them.

const deliveryStatuses = ['pending', 'succeeded', 'abandoned', 'cancelled'] as const;
const attemptOutcomes = ['succeeded', 'failed', 'interrupted'] as const;

const Attempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  outcome: z.enum(attemptOutcomes).describe('interrupted: the dispatcher stopped before the answer was recorded.'),
  http_status: z.number().int().nullable(),
  response_body: z.string().nullable().describe('The first 1 KB of the answer.'),
  error: z.string().nullable().describe('Time-out, network error, refused address or redirect.'),
  duration_ms: z.number().int().nullable(),
});

const Delivery = z
  .object({
    id: z.string().uuid().describe('Sent as X-Service-Delivery; the same on every attempt.'),
    endpoint_id: z.string().uuid(),
    event_id: z.string().uuid().nullable().describe('null for a ping.'),
    event: z.string(),
    replay: z.boolean(),
    status: z.enum(deliveryStatuses).describe('pending (queued or waiting to retry), succeeded, abandoned (the retry schedule ran out) or cancelled (the endpoint was deactivated).'),
    attempts: z.number().int().describe('Attempts made so far.'),
    http_status: z.number().int().nullable().describe('HTTP status of the last attempt.'),
    response_body: z.string().nullable().describe('The first 1 KB of the last answer.'),
    error: z.string().nullable().describe('Why the last attempt failed, when it did.'),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable().describe('When a pending delivery is tried next.'),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    history: z.array(Attempt).describe('Every attempt, oldest first.'),
  })
  .openapi('WebhookDelivery');

const ListQuery = pageQuery(pageSizes.webhookDeliveries).extend({
  endpoint_id: z.string().uuid().optional().openapi({ description: 'Only deliveries to this endpoint.' }),
  event_id: z.string().uuid().optional().openapi({ description: 'Only deliveries of this event (its original delivery and replays).' }),
  status: z.enum(deliveryStatuses).optional().openapi({ description: 'Only deliveries in this status.' }),
});

type AttemptEntry = z.infer<typeof Attempt>;

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string | null;
  event: string;
  replay: boolean;
  status: (typeof deliveryStatuses)[number];
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  history: AttemptEntry[];
  position: string;
}

function renderDelivery(row: DeliveryRow): z.infer<typeof Delivery> {
  // Stored as jsonb (keys re-ordered, timestamps as written); given back in the documented order.
  const history = row.history.map((entry) => ({
    attempt: entry.attempt,
    at: new Date(entry.at).toISOString(),
    outcome: entry.outcome,
    http_status: entry.http_status,
    response_body: entry.response_body,
    error: entry.error,
    duration_ms: entry.duration_ms,
  }));
  const last = history.at(-1);
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event: row.event,
    replay: row.replay,
    status: row.status,
    attempts: row.attempts,
    http_status: last?.http_status ?? null,
    response_body: last?.response_body ?? null,
    error: last?.error ?? null,
    last_attempt_at: last?.at ?? null,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    history,
  };
}

export const deliveryRoutes = createRoutes().openapi(
  defineRoute({
    method: 'get',
    path: '/deliveries',
    tags: ['Webhooks'],
    summary: 'Webhook deliveries and their attempts, newest first',
    description: [
      'One item per delivery (an event, replay or ping queued to one endpoint) with its status, attempt count, the last HTTP status, answer excerpt and error, the next attempt time, and every attempt in `history`.',
      'Filter by `endpoint_id`, `event_id` or `status`. Kept as long as their event (90 days).',
    ].join('\n\n'),
    scope: 'read-webhooks',
    request: { query: ListQuery },
    responses: { 200: jsonResponse(pageOf(Delivery), 'A page of deliveries.') },
    errors: { 422: 'invalid_field (a filter, limit or cursor).' },
  }),
  async (c) => {
    const caller = c.get('caller');
    const query = c.req.valid('query');
    const after = cursorKeyset(query.cursor);
    const rows = await withTenant(caller, (tx) => tx<DeliveryRow[]>`
      select id, endpoint_id, event_id, event, replay, status, attempts, next_attempt_at, created_at, completed_at,
             history, ${positionColumn(tx)}
        from app.webhook_deliveries
       where org_id = ${caller.orgId} and environment = ${caller.environment}
         ${query.endpoint_id ? tx`and endpoint_id = ${query.endpoint_id}` : tx``}
         ${query.event_id ? tx`and event_id = ${query.event_id}` : tx``}
         ${query.status ? tx`and status = ${query.status}` : tx``}
         ${olderThan(tx, after)}
       order by created_at desc, id desc
       limit ${query.limit + 1}`);
    const { items, nextCursor } = keysetPage(rows, query.limit);
    return c.json(list(items.map(renderDelivery), nextCursor), 200);
  },
);
