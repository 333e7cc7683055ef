import { z } from '@hono/zod-openapi';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, dataOf, defineRoute, jsonBody, jsonResponse, pageOf } from '../../shared/http/routes.ts';
import { list, page, single } from '../../shared/http/envelope.ts';
import { ApiError, notFound } from '../../shared/http/errors.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import type { Tx } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { randomString } from '../../shared/keys.ts';
import { refusedEndpointUrl } from '../../shared/webhooks/destination.ts';
import { existingId, IdParams, keysetAfter, knownEvents } from '../../shared/webhooks/params.ts';

// Webhook endpoints of the caller's organisation in the key's environment, and their deliveries.
// An endpoint's secret is returned when issued (creation, rotation) and never again: the API role
// cannot read it back (column grants in the webhooks migration).

const Endpoint = z
  .object({
    id: z.string().uuid(),
    url: z.string().openapi({ example: 'https://hooks.example.com/housing' }),
    events: z.array(z.string()).nullable().describe("Subscribed events; null means every event of the caller's side, including future ones."),
    description: z.string().nullable(),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    secret_rotated_at: z.string().nullable(),
  })
  .openapi('WebhookEndpoint');

const IssuedSecret = {
  secret: z.string().openapi({ example: 'whsec_4f9KcQ2mX7bT1rZs8nW3yV6pL0aH5dJe' }).describe('Shown once, never again.'),
  secret_note: z.string(),
};

const CreatedEndpoint = Endpoint.extend(IssuedSecret).openapi('CreatedWebhookEndpoint');
const RotatedSecret = z
  .object({ id: z.string().uuid(), ...IssuedSecret, secret_rotated_at: z.string() })
  .openapi('RotatedWebhookSecret');
const DeletedEndpoint = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedWebhookEndpoint');
const QueuedPing = z
  .object({ delivery_id: z.string().uuid(), endpoint_id: z.string().uuid(), event: z.literal('ping') })
  .openapi('QueuedPing');

const Attempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  outcome: z.enum(['succeeded', 'failed', 'interrupted']),
  http_status: z.number().int().nullable(),
  response_body: z.string().nullable().describe('The first 1 KB of the answer.'),
  error: z.string().nullable().describe('Time-out, network error, refused address or redirect.'),
  duration_ms: z.number().int().nullable(),
});

const deliveryStatuses = ['pending', 'succeeded', 'abandoned', 'cancelled'] as const;

const Delivery = z
  .object({
    id: z.string().uuid().describe('Sent as X-Service-Delivery.'),
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

const maxEndpointsPage = 100;
const maxDeliveriesPage = 100;

const EndpointsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxEndpointsPage).default(maxEndpointsPage),
  cursor: z.string().optional(),
});

const DeliveriesQuery = z.object({
  endpoint_id: z.string().uuid().optional(),
  event_id: z.string().uuid().optional(),
  status: z.enum(deliveryStatuses).optional(),
  limit: z.coerce.number().int().min(1).max(maxDeliveriesPage).default(25).openapi({ description: `1 to ${maxDeliveriesPage}, default 25.` }),
  cursor: z.string().optional(),
});

const eventList = z.array(z.string()).min(1).max(100);

const CreateBody = z
  .strictObject({
    url: z.string().max(2048).openapi({ example: 'https://hooks.example.com/housing' }),
    events: eventList.optional().describe("Omitted: every event of the caller's side."),
    description: z.string().max(500).optional(),
  })
  .openapi('CreateWebhookEndpoint');

const UpdateBody = z
  .strictObject({
    url: z.string().max(2048).optional(),
    events: eventList.nullable().optional().describe('null: every event of the side.'),
    is_active: z.boolean().optional().describe('false stops the endpoint; its waiting deliveries are cancelled.'),
    description: z.string().max(500).nullable().optional(),
  })
  .openapi('UpdateWebhookEndpoint');

interface EndpointRow {
  id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  secret_rotated_at: Date | null;
  position: string;
}

interface AttemptRow {
  attempt: number;
  at: string;
  outcome: 'succeeded' | 'failed' | 'interrupted';
  http_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
}

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
  history: AttemptRow[];
  position: string;
}

const endpointColumns = (tx: Tx) =>
  tx`id, url, events, description, is_active, created_at, updated_at, secret_rotated_at, to_json(created_at) #>> '{}' as position`;

const iso = (value: Date | null) => (value ? value.toISOString() : null);

const endpointOf = (row: EndpointRow) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  is_active: row.is_active,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  secret_rotated_at: iso(row.secret_rotated_at),
});

function deliveryOf(row: DeliveryRow) {
  // Stored as jsonb (keys re-ordered); given back in the documented order.
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
    next_attempt_at: iso(row.next_attempt_at),
    created_at: row.created_at.toISOString(),
    completed_at: iso(row.completed_at),
    history,
  };
}

/** A new signing secret: `whsec_` and 32 random base62 characters (about 190 bits). */
const newSecret = () => `whsec_${randomString(32)}`;
const secretNote =
  'Store this secret now: it is shown only this once. Verify the X-Service-Signature of every delivery with it (see the webhooks guide).';

function acceptableUrl(url: string): string {
  const refused = refusedEndpointUrl(url, config.webhookAllowPrivateNetworks());
  if (refused) throw new ApiError('invalid_field', refused, 'url');
  return url;
}


const endpointErrors = { 404: 'not_found: no such endpoint in this organisation and environment.' };

export const routes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/',
      tags: ['Webhooks'],
      summary: 'Create a webhook endpoint',
      description: [
        "The endpoint belongs to the key's environment and receives the events it subscribes to (all of the caller's side when `events` is omitted), signed with the returned `secret`.",
        'The `url` must be https and reachable on the public internet; it is checked again before every delivery, and redirects are never followed.',
      ].join('\n\n'),
      scope: 'manage-webhooks',
      request: { body: jsonBody(CreateBody) },
      responses: { 201: jsonResponse(dataOf(CreatedEndpoint), 'Created; `secret` is shown only here.') },
      errors: { 422: 'invalid_field (url not https, private, or with credentials; events empty) or unknown_event (field `events`).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const body = c.req.valid('json');
      const url = acceptableUrl(body.url);
      const events = body.events ? knownEvents(body.events, caller.side, 'events') : null;
      const secret = newSecret();
      const [row] = await withTenant(caller, (tx) => tx<EndpointRow[]>`
        insert into app.webhook_endpoints (org_id, environment, url, events, description, secret)
        values (${caller.orgId}, ${caller.environment}, ${url}, ${events}, ${body.description ?? null}, ${secret})
        returning ${endpointColumns(tx)}`);
      return c.json(single({ ...endpointOf(row), secret, secret_note: secretNote }), 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      tags: ['Webhooks'],
      summary: "The caller's webhook endpoints in the key's environment, newest first",
      description: 'Secrets are never listed.',
      scope: 'read-webhooks',
      request: { query: EndpointsQuery },
      responses: { 200: jsonResponse(pageOf(Endpoint), 'A page of endpoints.') },
      errors: { 422: 'invalid_field (limit, cursor).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const query = c.req.valid('query');
      const after = query.cursor ? keysetAfter(query.cursor) : undefined;
      const rows = await withTenant(caller, (tx) => tx<EndpointRow[]>`
        select ${endpointColumns(tx)} from app.webhook_endpoints
         where org_id = ${caller.orgId} and environment = ${caller.environment}
           ${after ? tx`and (created_at, id) < (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``}
         order by created_at desc, id desc
         limit ${query.limit + 1}`);
      const { items, nextCursor } = page(rows, query.limit, (row) => [row.position, row.id]);
      return c.json(list(items.map(endpointOf), nextCursor), 200);
    },
  )
  .openapi(
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
      request: { query: DeliveriesQuery },
      responses: { 200: jsonResponse(pageOf(Delivery), 'A page of deliveries.') },
      errors: { 422: 'invalid_field (a filter, limit or cursor).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const query = c.req.valid('query');
      const after = query.cursor ? keysetAfter(query.cursor) : undefined;
      const rows = await withTenant(caller, (tx) => tx<DeliveryRow[]>`
        select id, endpoint_id, event_id, event, replay, status, attempts, next_attempt_at, created_at, completed_at,
               history, to_json(created_at) #>> '{}' as position
          from app.webhook_deliveries
         where org_id = ${caller.orgId} and environment = ${caller.environment}
           ${query.endpoint_id ? tx`and endpoint_id = ${query.endpoint_id}` : tx``}
           ${query.event_id ? tx`and event_id = ${query.event_id}` : tx``}
           ${query.status ? tx`and status = ${query.status}` : tx``}
           ${after ? tx`and (created_at, id) < (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``}
         order by created_at desc, id desc
         limit ${query.limit + 1}`);
      const { items, nextCursor } = page(rows, query.limit, (row) => [row.position, row.id]);
      return c.json(list(items.map(deliveryOf), nextCursor), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'patch',
      path: '/{id}',
      tags: ['Webhooks'],
      summary: 'Change an endpoint: url, events, is_active, description',
      description:
        'Deliveries already queued go to the new url. Setting `is_active: false` cancels the deliveries waiting for the endpoint; replay what you need once it is active again.',
      scope: 'manage-webhooks',
      request: { params: IdParams, body: jsonBody(UpdateBody) },
      responses: { 200: jsonResponse(dataOf(Endpoint), 'The endpoint as changed.') },
      errors: { ...endpointErrors, 422: 'invalid_field (nothing to change, url, events) or unknown_event (field `events`).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const body = c.req.valid('json');
      const changes: Record<string, unknown> = {};
      if (body.url !== undefined) changes.url = acceptableUrl(body.url);
      if (body.events !== undefined) changes.events = body.events === null ? null : knownEvents(body.events, caller.side, 'events');
      if (body.is_active !== undefined) changes.is_active = body.is_active;
      if (body.description !== undefined) changes.description = body.description;
      if (Object.keys(changes).length === 0) {
        throw new ApiError('invalid_field', 'Send at least one of url, events, is_active, description.', 'body');
      }
      const [row] = await withTenant(caller, (tx) => tx<EndpointRow[]>`
        update app.webhook_endpoints set ${tx(changes)}, updated_at = now()
         where id = ${id}
        returning ${endpointColumns(tx)}`);
      if (!row) throw notFound('webhook endpoint');
      return c.json(single(endpointOf(row)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'delete',
      path: '/{id}',
      tags: ['Webhooks'],
      summary: 'Delete an endpoint',
      description: 'The endpoint stops receiving at once; its queued deliveries and their history are removed with it.',
      scope: 'manage-webhooks',
      request: { params: IdParams },
      responses: { 200: jsonResponse(dataOf(DeletedEndpoint), 'Deleted.') },
      errors: endpointErrors,
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const [row] = await withTenant(caller, (tx) => tx<{ id: string }[]>`
        delete from app.webhook_endpoints where id = ${id} returning id`);
      if (!row) throw notFound('webhook endpoint');
      return c.json(single({ id: row.id, deleted: true as const }), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/rotate-secret',
      tags: ['Webhooks'],
      summary: 'Issue a new signing secret for the endpoint',
      description:
        'Deliveries queued from now on are signed with the new secret. Deliveries already queued (including their retries) keep the old one, so accept both while they drain.',
      scope: 'manage-webhooks',
      request: { params: IdParams },
      responses: { 200: jsonResponse(dataOf(RotatedSecret), 'The new secret, shown only here.') },
      errors: endpointErrors,
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const secret = newSecret();
      const [row] = await withTenant(caller, (tx) => tx<{ id: string; secret_rotated_at: Date }[]>`
        update app.webhook_endpoints set secret = ${secret}, secret_rotated_at = now(), updated_at = now()
         where id = ${id}
        returning id, secret_rotated_at`);
      if (!row) throw notFound('webhook endpoint');
      return c.json(single({ id: row.id, secret, secret_note: secretNote, secret_rotated_at: row.secret_rotated_at.toISOString() }), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/test',
      tags: ['Webhooks'],
      summary: 'Queue a ping to the endpoint',
      description:
        'A `ping` (`data.message`, `data.test: true`) goes through the normal delivery path: signed, retried, recorded in GET /webhooks/deliveries. It is sent whatever the endpoint subscribes to, also while it is inactive.',
      scope: 'manage-webhooks',
      request: { params: IdParams },
      responses: { 202: jsonResponse(dataOf(QueuedPing), 'Queued.') },
      errors: endpointErrors,
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const [row] = await withTenant(caller, (tx) => tx<{ delivery_id: string | null }[]>`
        select app.queue_ping(${id}) as delivery_id`);
      if (!row.delivery_id) throw notFound('webhook endpoint');
      return c.json(single({ delivery_id: row.delivery_id, endpoint_id: id, event: 'ping' as const }), 202);
    },
  );

export const app = createFunctionApp('webhooks', routes);
