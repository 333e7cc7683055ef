// The typed client of the Housing Placement Service: openapi-fetch over the types generated from the
// service's OpenAPI document (schema.generated.ts), with the key sent on every call, plus the webhook
// signature helper the guides give, so that a receiver gets the delivery back typed.
//
// Runtime dependency: openapi-fetch (the version pinned in the repository's package.json). See
// client/README.md.
import createFetchClient, { type Client } from 'openapi-fetch';
import { verifyWebhookSignature } from '../shared/webhooks/verify-signature.ts';
import type { components, paths, webhooks } from './schema.generated.ts';

export type { components, paths, webhooks } from './schema.generated.ts';
export { verifyWebhookSignature };

export interface ClientOptions {
  /**
   * Where the API lives, `/functions/v1` included: `https://<project>.supabase.co/functions/v1`, or
   * `http://127.0.0.1:54321/functions/v1` for `npm start`.
   */
  baseUrl: string;
  /** An organisation key: `svc_pk_...` (live) or `svc_sk_...` (sandbox). */
  apiKey: string;
  /** Another fetch (a proxy's, a test's in-process app); defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers added to every call (for example a User-Agent naming your integration). */
  headers?: Record<string, string>;
}

/** Every operation of the API, by method and path: `api.GET('/claims/{reference}', ...)`. */
export type HousingPlacementClient = Client<paths>;

/**
 * A client whose calls are typed by the API's own document: paths, path and query parameters,
 * bodies and each status's answer. Calls resolve to `{ data, error, response }`: `data` is the
 * success body, `error` the `{ error: { code, message, field? } }` body of a 4xx or 5xx. Writes take
 * an `Idempotency-Key` as `params: { header: { 'Idempotency-Key': ... } }`.
 */
export function createClient(options: ClientOptions): HousingPlacementClient {
  return createFetchClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
  });
}

/** A named schema of the document: `Schema<'HousingRequest'>`, `Schema<'Home'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type EnvelopeOf<Operation> = Operation extends { post: { requestBody?: { content: { 'application/json': infer Envelope } } } } ? Envelope : never;

/** Whose endpoint receives a delivery: a carrier's or a provider's (the organisation's side). */
export type Audience = 'carrier' | 'provider';

/** The document's deliveries to one audience: its `webhooks` entries `<event> (<audience>)`, and the test ping, which reaches every endpoint. */
type DeliveryTo<A extends Audience> = Extract<keyof webhooks, `${string} (${A})` | 'ping'>;

/**
 * A webhook delivery's body, `{ id, event, created_at, data }`, narrowed to one event by name
 * (`WebhookEnvelope<'lease.sent'>`) or, without a name, any event (narrow on `event`); with an
 * audience, only what that audience's endpoints receive. One event may carry another payload to each
 * audience (payment.succeeded: `amount` to carriers, `gross` and `net_to_you` to providers), so
 * without one, narrowing on `event` gives the union of both: use CarrierWebhook or ProviderWebhook.
 */
export type WebhookEnvelope<Event extends string = string, A extends Audience = Audience> = Extract<EnvelopeOf<webhooks[DeliveryTo<A>]>, { event: Event }>;

/** A delivery to a carrier's endpoint; narrowing on `event` gives that event's carrier payload. */
export type CarrierWebhook<Event extends string = string> = WebhookEnvelope<Event, 'carrier'>;

/** A delivery to a provider's endpoint; narrowing on `event` gives that event's provider payload. */
export type ProviderWebhook<Event extends string = string> = WebhookEnvelope<Event, 'provider'>;

type SignatureOptions = Parameters<typeof verifyWebhookSignature>[3];

/**
 * The delivery, parsed and typed, when its X-Service-Signature verifies with one of `secrets`
 * (see verifyWebhookSignature); null when it does not, in which case answer 400 and ignore it. Pass
 * the raw body exactly as received, and `audience`, the side of the organisation whose endpoint
 * received it, to have it typed as that side's delivery (the body does not say it; it is only a type).
 */
export function parseWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secrets: string | string[],
  options: SignatureOptions & { audience: 'carrier' },
): Promise<CarrierWebhook | null>;
export function parseWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secrets: string | string[],
  options: SignatureOptions & { audience: 'provider' },
): Promise<ProviderWebhook | null>;
export function parseWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secrets: string | string[],
  options?: SignatureOptions & { audience?: Audience },
): Promise<WebhookEnvelope | null>;
export async function parseWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secrets: string | string[],
  options?: SignatureOptions & { audience?: Audience },
): Promise<WebhookEnvelope | null> {
  if (!(await verifyWebhookSignature(rawBody, signatureHeader, secrets, options))) return null;
  return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as WebhookEnvelope;
}
