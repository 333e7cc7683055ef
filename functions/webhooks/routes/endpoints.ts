import { existingId, IdParams } from '../../../shared/events/params.ts';
import { single } from '../../../shared/http/envelope.ts';
import { ApiError, notFound } from '../../../shared/http/errors.ts';
import { cursorKeyset, keysetPage } from '../../../shared/http/paging.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { addEndpoint, changeEndpoint, endpointsPage, newSecret, ping, recoverSince, removeEndpoint } from '../endpoints.ts';
import {
  CreateBody, CreatedEndpoint, DeletedEndpoint, Endpoint, endpointChanges, endpointInput, EndpointsQuery, QueuedPing, RecoverBody, Recovered,
  renderEndpoint, RotatedSecret, secretNote, UpdateBody,
} from '../schemas.ts';

// Webhook endpoints of the caller's organisation in the key's environment. An endpoint's secret is
// returned when issued (creation, rotation) and never again.

const notFoundError = { 404: { not_found: 'no such endpoint in this organisation and environment.' } };

export const endpointRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'createWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Create a webhook endpoint',
      description: [
        "The endpoint belongs to the key's environment and receives the events it subscribes to (all of the caller's side when `events` is omitted), signed with the returned `secret`.",
        'The `url` must be https and reachable on the public internet; it is stored normalized, checked again before every delivery, and redirects are never followed.',
      ].join('\n\n'),
      scope: 'manage-webhooks',
      request: { body: jsonBody(CreateBody) },
      responses: { 201: jsonResponse(dataOf(CreatedEndpoint), 'Created; `secret` is shown only here.') },
      errors: {
        422: {
          invalid_field: 'url not https, private, with credentials or too long, or events empty',
          unknown_event: '(field events) an event the side is not sent.',
        },
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      const body = c.req.valid('json');
      const { row, secret } = await addEndpoint(caller, endpointInput(body, caller.side));
      return c.json(single({ ...renderEndpoint(row), secret, secret_note: secretNote }), 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listWebhookEndpoints',
      tags: ['Webhooks'],
      summary: "The caller's webhook endpoints in the key's environment, newest first",
      description: 'Secrets are never listed.',
      scope: 'read-webhooks',
      request: { query: EndpointsQuery },
      responses: { 200: jsonResponse(pageOf(Endpoint), 'A page of endpoints.') },
      errors: {
        422: {
          invalid_field: 'limit or cursor.',
        },
      },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const after = cursorKeyset(query.cursor);
      const rows = await endpointsPage(c.get('caller'), { limit: query.limit, after });
      return c.json(keysetPage(rows, query.limit, renderEndpoint), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'patch',
      path: '/{id}',
      operationId: 'updateWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Change an endpoint: url, events, is_active, description',
      description:
        'Deliveries already queued go to the new url. Setting `is_active: false` cancels the deliveries waiting for the endpoint; replay what you need once it is active again.',
      scope: 'manage-webhooks',
      request: { params: IdParams, body: jsonBody(UpdateBody) },
      responses: { 200: jsonResponse(dataOf(Endpoint), 'The endpoint as changed.') },
      errors: {
        ...notFoundError,
        422: {
          invalid_field: 'nothing to change, or url or events wrong',
          unknown_event: '(field events) an event the side is not sent.',
        },
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const changes = endpointChanges(c.req.valid('json'), caller.side);
      const row = await changeEndpoint(caller, id, changes);
      if (!row) throw notFound('webhook endpoint');
      return c.json(single(renderEndpoint(row)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'delete',
      path: '/{id}',
      operationId: 'deleteWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Delete an endpoint',
      description:
        'The endpoint stops receiving at once; its queued deliveries and their history are removed with it. Events recorded, replayed or simulated while it is being deleted wait for the deletion and are queued to the endpoints that remain.',
      scope: 'manage-webhooks',
      request: { params: IdParams },
      responses: { 200: jsonResponse(dataOf(DeletedEndpoint), 'Deleted.') },
      errors: notFoundError,
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      if (!(await removeEndpoint(c.get('caller'), id))) throw notFound('webhook endpoint');
      return c.json(single({ id, deleted: true as const }), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
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
      const rotated = await newSecret(c.get('caller'), id);
      if (!rotated) throw notFound('webhook endpoint');
      return c.json(single({ id, secret: rotated.secret, secret_note: secretNote, secret_rotated_at: rotated.rotatedAt.toISOString() }), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/test',
      operationId: 'testWebhookEndpoint',
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
      const deliveryId = await ping(c.get('caller'), id);
      if (!deliveryId) throw notFound('webhook endpoint');
      return c.json(single({ delivery_id: deliveryId, endpoint_id: id, event: 'ping' as const }), 202);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{id}/recover',
      operationId: 'recoverWebhookDeliveries',
      tags: ['Webhooks'],
      summary: 'Send again what the endpoint gave up on since a time',
      description: [
        "Replays to this endpoint, and no other, every event whose delivery to it was queued after `since` and abandoned (the retry schedule ran out) and that it never received; list them first with GET /webhooks/deliveries?endpoint_id=…&status=abandoned&since=….",
        'Each goes out as POST /events/{id}/replay sends it: the same event id, `replay: true`, signed with the current secret, retried on the normal schedule, and only if the endpoint still subscribes to the event. Safe to repeat: an event the endpoint received (a replay that got through included) is never sent again, and one whose replay is waiting is not queued twice, so a second call queues nothing new. Test pings are not recovered.',
      ].join('\n\n'),
      scope: 'manage-webhooks',
      request: { params: IdParams, body: jsonBody(RecoverBody) },
      responses: { 202: jsonResponse(dataOf(Recovered), 'What was found and queued (queued 0 when there is nothing left to send).') },
      errors: {
        ...notFoundError,
        409: { could_not_replay: 'the endpoint is inactive: reactivate it (PATCH is_active true) first.' },
        422: { invalid_field: 'since missing or not an ISO timestamp, or a field other than since.' },
      },
    }),
    async (c) => {
      const id = existingId(c.req.valid('param').id, 'webhook endpoint');
      const { since } = c.req.valid('json');
      const outcome = await recoverSince(c.get('caller'), id, since);
      if (!outcome) throw notFound('webhook endpoint');
      if (!outcome.active) {
        throw new ApiError('could_not_replay', 'This endpoint is inactive: reactivate it (PATCH is_active true) before recovering its deliveries.');
      }
      return c.json(single({ endpoint_id: id, since, abandoned: outcome.abandoned, queued: outcome.queued }), 202);
    },
  );
