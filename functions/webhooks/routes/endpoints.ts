import { z } from '@hono/zod-openapi';
import type { Tx } from '../../../shared/db/client.ts';
import { withTenant } from '../../../shared/db/tenant.ts';
import { config } from '../../../shared/config.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { ApiError, notFound } from '../../../shared/http/errors.ts';
import { createRoutes, dataOf, defineRoute, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { randomString } from '../../../shared/keys.ts';
import { storedText } from '../../../shared/http/values.ts';
import { checkEndpointUrl, maxEndpointUrlLength } from '../../../shared/webhooks/destination.ts';
import { existingId, IdParams, knownEvents } from '../../../shared/events/params.ts';
import { cursorKeyset, keysetPage, olderThan, pageQuery, pageSizes, positionColumn } from '../../../shared/http/paging.ts';

// Webhook endpoints of the caller's organisation in the key's environment. An endpoint's secret is
// returned when issued (creation, rotation) and never again: the API role cannot read it back
// (column grants in the webhooks migration).

const Endpoint = z
  .object({
    id: z.string().uuid(),
    url: z.string().openapi({ example: 'https://hooks.example.com/housing' }).describe('Normalized: the address every delivery is POSTed to.'),
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

const url = storedText().max(maxEndpointUrlLength).openapi({ example: 'https://hooks.example.com/housing' });
const eventList = z.array(storedText()).min(1).max(100);
const description = storedText().max(500);

const CreateBody = z
  .strictObject({
    url: url.describe('https, reachable on the public internet.'),
    events: eventList.optional().describe("Omitted: every event of the caller's side."),
    description: description.optional(),
  })
  .openapi('CreateWebhookEndpoint');

const UpdateBody = z
  .strictObject({
    url: url.optional(),
    events: eventList.nullable().optional().describe('null: every event of the side.'),
    is_active: z.boolean().optional().describe('false stops the endpoint; its waiting deliveries are cancelled.'),
    description: description.nullable().optional(),
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

const endpointColumns = (tx: Tx) =>
  tx`id, url, events, description, is_active, created_at, updated_at, secret_rotated_at, ${positionColumn(tx)}`;

const renderEndpoint = (row: EndpointRow): z.infer<typeof Endpoint> => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  is_active: row.is_active,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  secret_rotated_at: row.secret_rotated_at?.toISOString() ?? null,
});

/** A new signing secret: `whsec_` and 32 random base62 characters (about 190 bits). */
const newSecret = () => `whsec_${randomString(32)}`;
const secretNote =
  'Store this secret now: it is shown only this once. Verify the X-Service-Signature of every delivery with it (see the webhooks guide).';

/** The url to store (normalized), or 422 invalid_field on `url` saying why it cannot be an endpoint. */
function endpointUrl(raw: string): string {
  const checked = checkEndpointUrl(raw, config.webhookAllowPrivateNetworks());
  if (!checked.ok) throw new ApiError('invalid_field', checked.reason, 'url');
  return checked.url;
}

const notFoundError = { 404: 'not_found: no such endpoint in this organisation and environment.' };

export const endpointRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/',
      tags: ['Webhooks'],
      summary: 'Create a webhook endpoint',
      description: [
        "The endpoint belongs to the key's environment and receives the events it subscribes to (all of the caller's side when `events` is omitted), signed with the returned `secret`.",
        'The `url` must be https and reachable on the public internet; it is stored normalized, checked again before every delivery, and redirects are never followed.',
      ].join('\n\n'),
      scope: 'manage-webhooks',
      request: { body: jsonBody(CreateBody) },
      responses: { 201: jsonResponse(dataOf(CreatedEndpoint), 'Created; `secret` is shown only here.') },
      errors: { 422: 'invalid_field (url not https, private, with credentials or too long; events empty) or unknown_event (field `events`).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const body = c.req.valid('json');
      const url = endpointUrl(body.url);
      const events = body.events ? knownEvents(body.events, caller.side, 'events') : null;
      const secret = newSecret();
      const [row] = await withTenant(caller, (tx) => tx<EndpointRow[]>`
        insert into app.webhook_endpoints (org_id, environment, url, events, description, secret)
        values (${caller.orgId}, ${caller.environment}, ${url}, ${events}, ${body.description ?? null}, ${secret})
        returning ${endpointColumns(tx)}`);
      return c.json(single({ ...renderEndpoint(row), secret, secret_note: secretNote }), 201);
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
      request: { query: pageQuery(pageSizes.webhookEndpoints) },
      responses: { 200: jsonResponse(pageOf(Endpoint), 'A page of endpoints.') },
      errors: { 422: 'invalid_field (limit, cursor).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const query = c.req.valid('query');
      const after = cursorKeyset(query.cursor);
      const rows = await withTenant(caller, (tx) => tx<EndpointRow[]>`
        select ${endpointColumns(tx)} from app.webhook_endpoints
         where org_id = ${caller.orgId} and environment = ${caller.environment} ${olderThan(tx, after)}
         order by created_at desc, id desc
         limit ${query.limit + 1}`);
      const { items, nextCursor } = keysetPage(rows, query.limit);
      return c.json(list(items.map(renderEndpoint), nextCursor), 200);
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
      errors: { ...notFoundError, 422: 'invalid_field (nothing to change, url, events) or unknown_event (field `events`).' },
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const body = c.req.valid('json');
      const changes: Record<string, unknown> = {};
      if (body.url !== undefined) changes.url = endpointUrl(body.url);
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
      return c.json(single(renderEndpoint(row)), 200);
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
      errors: notFoundError,
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const [row] = await withTenant(c.get('caller'), (tx) => tx<{ id: string }[]>`
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
      errors: notFoundError,
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const secret = newSecret();
      const [row] = await withTenant(c.get('caller'), (tx) => tx<{ id: string; secret_rotated_at: Date }[]>`
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
      errors: notFoundError,
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const [row] = await withTenant(c.get('caller'), (tx) => tx<{ delivery_id: string | null }[]>`
        select app.queue_ping(${id}) as delivery_id`);
      if (!row.delivery_id) throw notFound('webhook endpoint');
      return c.json(single({ delivery_id: row.delivery_id, endpoint_id: id, event: 'ping' as const }), 202);
    },
  );
