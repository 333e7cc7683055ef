// The typed client's webhook deliveries, per audience: a carrier's endpoint and a provider's receive
// different payloads under one event name (payment.succeeded), so each audience has its own
// delivery type, and narrowing on `event` gives exactly that event's payload. The type assertions
// are checked by `npm run typecheck`; the document they come from is read over HTTP.
import { expect, expectTypeOf, it } from 'vitest';
import { parseWebhook, type CarrierWebhook, type ProviderWebhook, type Schema, type WebhookEnvelope } from '../../client/index.ts';
import { statuses } from '../../shared/claims/status.ts';
import { call } from '../helpers.ts';

type Status = Schema<'HousingRequest'>['status_primary'];

it("narrows a carrier's delivery on event to its payload: payment.succeeded has amount, a status change the status union", () => {
  const amount = (delivery: CarrierWebhook) => (delivery.event === 'payment.succeeded' ? delivery.data.amount : undefined);
  expectTypeOf(amount).returns.toEqualTypeOf<number | undefined>();
  const status = (delivery: CarrierWebhook) => (delivery.event === 'request.status_changed' ? delivery.data.status : undefined);
  expectTypeOf(status).returns.toEqualTypeOf<Status | undefined>();
  expectTypeOf<CarrierWebhook<'request.status_changed'>['data']['previous_status']>().toEqualTypeOf<Status | null>();
  // @ts-expect-error: the carrier's payment.succeeded says amount; gross is the provider's.
  ((delivery: CarrierWebhook<'payment.succeeded'>) => delivery.data.gross);
});

it("narrows a provider's delivery on event to the provider's payload, and offers no carrier-only event", () => {
  const net = (delivery: ProviderWebhook) => (delivery.event === 'payment.succeeded' ? delivery.data.net_to_you : undefined);
  expectTypeOf(net).returns.toEqualTypeOf<number | undefined>();
  // @ts-expect-error: the provider's payment.succeeded has gross, not amount.
  ((delivery: ProviderWebhook<'payment.succeeded'>) => delivery.data.amount);
  expectTypeOf<ProviderWebhook<'request.status_changed'>>().toBeNever();
  // The test ping reaches every endpoint.
  expectTypeOf<ProviderWebhook<'ping'>['data']['test']>().toEqualTypeOf<true>();
  expectTypeOf<CarrierWebhook<'ping'>['data']['test']>().toEqualTypeOf<true>();
});

it('parses a delivery as its audience says, and as either audience without one', () => {
  expectTypeOf(parseWebhook('{}', null, 'whsec_x', { audience: 'carrier' })).resolves.toEqualTypeOf<CarrierWebhook | null>();
  expectTypeOf(parseWebhook('{}', null, 'whsec_x', { audience: 'provider' })).resolves.toEqualTypeOf<ProviderWebhook | null>();
  expectTypeOf(parseWebhook('{}', null, 'whsec_x')).resolves.toEqualTypeOf<WebhookEnvelope | null>();
  expectTypeOf<WebhookEnvelope<'payment.succeeded', 'carrier'>>().toEqualTypeOf<CarrierWebhook<'payment.succeeded'>>();
});

it("documents request.status_changed's status and previous_status as the request's status values", async () => {
  const document = (await call('GET', '/openapi.json')).body as unknown as { webhooks: Record<string, any> };
  const data = document.webhooks['request.status_changed (carrier)'].post.requestBody.content['application/json'].schema.properties.data;
  expect(data.properties.status.enum).toEqual([...statuses]);
  expect(JSON.stringify(data.properties.previous_status)).toContain(JSON.stringify([...statuses]));
});
