import { z } from '@hono/zod-openapi';
import { config } from '../../shared/config.ts';
import type { Side } from '../../shared/db/tenant.ts';
import { knownEvents } from '../../shared/events/params.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { pageQuery, pageSizes } from '../../shared/http/paging.ts';
import { storedText, timestampQuery } from '../../shared/http/values.ts';
import { checkEndpointUrl, maxEndpointUrlLength } from '../../shared/webhooks/destination.ts';
import { attemptOutcomes, deliveryStatuses, type DeliveryRow, type EndpointChanges, type EndpointInput, type EndpointRow } from './rows.ts';

// The webhooks group's schemas: endpoints (what is sent, how it is checked, what is answered) and the
// delivery queue as the caller reads it, with the rendering of their rows.

export const Endpoint = z
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
  secret: z.string().nullable().openapi({ example: 'whsec_4f9KcQ2mX7bT1rZs8nW3yV6pL0aH5dJe' })
    .describe('Shown once, never again: null in the replay of this call for its Idempotency-Key (rotate the secret if it was lost).'),
  secret_note: z.string(),
};

export const CreatedEndpoint = Endpoint.extend(IssuedSecret).openapi('CreatedWebhookEndpoint');
export const RotatedSecret = z
  .object({ id: z.string().uuid(), ...IssuedSecret, secret_rotated_at: z.string() })
  .openapi('RotatedWebhookSecret');
export const DeletedEndpoint = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedWebhookEndpoint');
export const QueuedPing = z
  .object({ delivery_id: z.string().uuid(), endpoint_id: z.string().uuid(), event: z.literal('ping') })
  .openapi('QueuedPing');

export const secretNote =
  'Store this secret now: it is shown only this once. Verify the X-Service-Signature of every delivery with it (see the webhooks guide).';

const url = storedText().max(maxEndpointUrlLength).openapi({ example: 'https://hooks.example.com/housing' });
const eventList = z.array(storedText()).min(1).max(100);
const description = storedText().max(500);

export const CreateBody = z
  .strictObject({
    url: url.describe('https, reachable on the public internet.'),
    events: eventList.optional().describe("Omitted: every event of the caller's side."),
    description: description.optional(),
  })
  .openapi('CreateWebhookEndpoint');

export const UpdateBody = z
  .strictObject({
    url: url.optional(),
    events: eventList.nullable().optional().describe('null: every event of the side.'),
    is_active: z.boolean().optional().describe('false stops the endpoint; its waiting deliveries are cancelled.'),
    description: description.nullable().optional(),
  })
  .openapi('UpdateWebhookEndpoint');

export const EndpointsQuery = pageQuery(pageSizes.webhookEndpoints);

/** The url to store (normalized), or 422 invalid_field on `url` saying why it cannot be an endpoint. */
function endpointUrl(raw: string): string {
  const checked = checkEndpointUrl(raw, config.webhookAllowPrivateNetworks());
  if (!checked.ok) throw new ApiError('invalid_field', checked.reason, 'url');
  return checked.url;
}

/** A new endpoint as stored: the url normalized, the events checked against the caller's side. */
export function endpointInput(body: z.infer<typeof CreateBody>, side: Side): EndpointInput {
  return {
    url: endpointUrl(body.url),
    events: body.events ? knownEvents(body.events, side, 'events') : null,
    description: body.description ?? null,
  };
}

/** The columns a PATCH changes, checked like a new endpoint's; 422 on `body` when it changes nothing. */
export function endpointChanges(body: z.infer<typeof UpdateBody>, side: Side): EndpointChanges {
  const changes: EndpointChanges = {};
  if (body.url !== undefined) changes.url = endpointUrl(body.url);
  if (body.events !== undefined) changes.events = body.events === null ? null : knownEvents(body.events, side, 'events');
  if (body.is_active !== undefined) changes.is_active = body.is_active;
  if (body.description !== undefined) changes.description = body.description;
  if (Object.keys(changes).length === 0) {
    throw new ApiError('invalid_field', 'Send at least one of url, events, is_active, description.', 'body');
  }
  return changes;
}

export const renderEndpoint = (row: EndpointRow): z.infer<typeof Endpoint> => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  is_active: row.is_active,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  secret_rotated_at: row.secret_rotated_at?.toISOString() ?? null,
});


export const Attempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  outcome: z.enum(attemptOutcomes).describe('interrupted: the dispatcher stopped before the answer was recorded.'),
  http_status: z.number().int().nullable(),
  response_body: z.string().nullable().describe('The first 1 KB of the answer.'),
  error: z.string().nullable().describe('Time-out, network error, refused address or redirect.'),
  duration_ms: z.number().int().nullable(),
});

export const Delivery = z
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

export const DeliveriesQuery = pageQuery(pageSizes.webhookDeliveries).extend({
  endpoint_id: z.string().uuid().optional().openapi({ description: 'Only deliveries to this endpoint.' }),
  event_id: z.string().uuid().optional().openapi({ description: 'Only deliveries of this event (its original delivery and replays).' }),
  status: z.enum(deliveryStatuses).optional().openapi({ description: 'Only deliveries in this status (`abandoned`: the ones an endpoint gave up on; POST /webhooks/{id}/recover sends them again).' }),
  since: timestampQuery().optional().openapi({ description: 'Only deliveries queued after this ISO timestamp, with `Z` or an offset.', example: '2026-11-21T10:15:00Z' }),
});

export const RecoverBody = z
  .strictObject({
    since: timestampQuery().describe('Recover the deliveries queued after this ISO timestamp (with `Z` or an offset): when the outage began.'),
  })
  .openapi('RecoverWebhookDeliveries');

export const Recovered = z
  .object({
    endpoint_id: z.string().uuid(),
    since: z.string().describe('As sent.'),
    abandoned: z.number().int().describe('Events whose delivery to the endpoint was abandoned since then and that it never received (a replay that got through counts as received).'),
    queued: z.number().int().describe('Replays queued now; fewer than `abandoned` when a replay of some is already waiting, or the endpoint no longer subscribes to them.'),
  })
  .openapi('RecoveredWebhookDeliveries');

export function renderDelivery(row: DeliveryRow): z.infer<typeof Delivery> {
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
