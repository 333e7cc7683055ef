import { cursorKeyset, keysetPage } from '../../../shared/http/paging.ts';
import { createRoutes, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { deliveriesPage } from '../endpoints.ts';
import { DeliveriesQuery, Delivery, renderDelivery } from '../schemas.ts';

// The delivery queue as the caller sees it: one item per delivery (an event, replay or ping queued to
// one endpoint) with every attempt.

export const deliveryRoutes = createRoutes().openapi(
  defineRoute({
    method: 'get',
    path: '/deliveries',
    operationId: 'listWebhookDeliveries',
    tags: ['Webhooks'],
    summary: 'Webhook deliveries and their attempts, newest first',
    description: [
      'One item per delivery (an event, replay or ping queued to one endpoint) with its status, attempt count, the last HTTP status, answer excerpt and error, the next attempt time, and every attempt in `history`.',
      'Filter by `endpoint_id`, `event_id`, `status` or `since` (queued after). `endpoint_id=…&status=abandoned&since=…` lists what an endpoint gave up on during an outage; POST /webhooks/{id}/recover sends it again. Kept as long as their event (90 days).',
    ].join('\n\n'),
    scope: 'read-webhooks',
    request: { query: DeliveriesQuery },
    responses: { 200: jsonResponse(pageOf(Delivery), 'A page of deliveries.') },
    errors: {
      422: {
        invalid_field: 'a filter, limit or cursor.',
      },
    },
  }),
  async (c) => {
    const query = c.req.valid('query');
    const filter = {
      endpointId: query.endpoint_id,
      eventId: query.event_id,
      status: query.status,
      since: query.since,
      after: cursorKeyset(query.cursor),
      limit: query.limit,
    };
    const rows = await deliveriesPage(c.get('caller'), filter);
    return c.json(keysetPage(rows, query.limit, renderDelivery), 200);
  },
);
