import { z } from '@hono/zod-openapi';
import type { Side } from '../db/tenant.ts';
import { eventNames, type EventDefinition, type EventName } from './definition.ts';
import { requestEvents } from './definitions/requests.ts';
import { placementEvents } from './definitions/placements.ts';
import { providerEvents } from './definitions/provider.ts';

// The one registry of events. Each definition is an (event, audience) pair with its summary, payload
// schema and sample: the same name may exist for both sides with different payloads
// (payment.succeeded). It drives GET /events/types, the validation of emitted payloads in tests,
// the OpenAPI webhooks section, simulate and the unknown_event check.
// Payloads carry the caller's `external_id` (null when the resource has none).

export const eventDefinitions = [...requestEvents, ...placementEvents, ...providerEvents] as const satisfies readonly EventDefinition[];

type Definition = (typeof eventDefinitions)[number];

/**
 * The `data` an event is emitted with: its definition's payload (the union of both audiences' when
 * an event is sent to carriers and providers alike). emit() takes it, so a payload that drifts from
 * the registry fails the type check, not only the strict payload check of the test suite.
 */
export type EventPayload<E extends EventName> = z.input<Extract<Definition, { event: E }>['payload']>;

function isEventName(name: string): name is EventName {
  return (eventNames as readonly string[]).includes(name);
}

export function definitionOf(event: EventName, audience: Side): EventDefinition | undefined {
  return eventDefinitions.find((d) => d.event === event && d.audience === audience);
}

/** The definitions a side can see and subscribe to. */
export function eventsFor(side: Side): EventDefinition[] {
  return eventDefinitions.filter((d) => d.audience === side);
}

/** Whether `name` is an event the service sends to `side` (the unknown_event check). */
export function sendsTo(side: Side, name: string): name is EventName {
  return eventDefinitions.some((d) => d.event === name && d.audience === side);
}

/**
 * Checks a payload against its definition: tests call it on every payload they see emitted, so an
 * emitter drifting from the documented shape fails there. Simulated payloads carry `simulated: true`.
 */
export function payloadIssues(event: string, audience: Side, payload: unknown): string[] {
  const definition = isEventName(event) ? definitionOf(event, audience) : undefined;
  if (!definition) return [`${event} is not an event for ${audience}s`];
  const result = definition.payload.safeParse(payload);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`);
}

/** The `ping` sent by POST /webhooks/{id}/test; not an event of the log, not subscribable. */
export const pingEvent = 'ping';
const pingPayload = z.object({ message: z.string(), test: z.literal(true) });

/** An event's name as an operationId's words: `request.status_changed` → `requestStatusChanged`. */
const camel = (name: string) => name.split(/[._]/).map((word, i) => (i === 0 ? word : word[0].toUpperCase() + word.slice(1))).join('');

/** What every delivery carries to prove it came from the service. */
const signatureHeader = {
  name: 'X-Service-Signature',
  in: 'header',
  required: true,
  description:
    "`t=<unix seconds>,v1=<hex HMAC-SHA256>`, computed with the endpoint's secret over `<t>.<raw body>`. Verify it on the raw " +
    'body before parsing, and reject a timestamp more than 300 seconds from your clock (see Verifying signatures in docs/webhooks.md).',
  schema: { type: 'string' },
};

/**
 * The OpenAPI `webhooks` section: one entry per event and audience, with the envelope and payload, and the ping.
 * A delivery carries no API key (`security: []`): the receiver trusts it by its X-Service-Signature instead. Each
 * entry's operationId is derived from its event and audience, which are themselves never renamed.
 */
export function openApiWebhooks() {
  const entry = (event: string, operationId: string, payload: z.ZodType, summary: string, description: string) => {
    const envelope = z.object({
      id: z.string().uuid(),
      event: z.literal(event),
      created_at: z.string(),
      data: payload,
      simulated: z.boolean().optional(),
      replay: z.boolean().optional(),
    });
    // The document's own dialect (OpenAPI 3.1's, a superset of 2020-12) applies: a schema naming another fails the official schema.
    const { $schema, ...schema } = z.toJSONSchema(envelope, { io: 'input', unrepresentable: 'any' });
    return {
      post: {
        operationId,
        summary,
        description: `${description} Signed with X-Service-Signature; see the webhooks guide.`,
        security: [],
        parameters: [signatureHeader],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: { '2XX': { description: 'Any 2xx acknowledges the delivery.' } },
      },
    };
  };
  return {
    ...Object.fromEntries(
      eventDefinitions.map((d) => [
        `${d.event} (${d.audience})`,
        entry(d.event, `${camel(d.event)}For${d.audience === 'carrier' ? 'Carriers' : 'Providers'}`, d.payload, d.summary, `Sent to ${d.audience} endpoints subscribed to ${d.event}.`),
      ]),
    ),
    [pingEvent]: entry(pingEvent, 'webhookPing', pingPayload, 'Test delivery', 'Sent to one endpoint by POST /webhooks/{id}/test, whatever it subscribes to.'),
  };
}
