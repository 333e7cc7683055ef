// The acceptance path, in each environment: an integrator subscribes an endpoint, verifies
// signatures with the guide's helper, sees failures retried and recorded, replays what it missed,
// and reconciles against the event log.
import { afterEach, describe, expect, it } from 'vitest';
import { client, createTenant } from '../helpers.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { dispatchFor, recordEvent, useReceiver, verifyWebhookSignature } from './support.ts';

const receiver = useReceiver();

afterEach(() => {
  delete process.env.WEBHOOK_RETRY_SCHEDULE;
});

describe.each(['live', 'sandbox'] as const)('an integrator in %s', (environment) => {
  it('subscribes, verifies, sees failures retried and recorded, replays what it missed, and reconciles', async () => {
    // One retry, at once, so that a delivery is abandoned within one dispatcher run.
    process.env.WEBHOOK_RETRY_SCHEDULE = '0';
    const tenant = await createTenant('carrier');
    const api = client(environment === 'live' ? tenant.live : tenant.sandbox);
    const path = `/acceptance-${environment}`;
    const created = await api.post('/webhooks', { url: receiver.url(path), events: ['lease.signed', 'lease.sent'] });
    expect(created.status).toBe(201);
    const secret = created.body.data.secret;
    if (!secret) throw new Error('the creation shows the signing secret');

    // The receiver is down: both attempts fail and are recorded; the delivery is abandoned.
    receiver.answer(path, { status: 503, body: 'maintenance' });
    const missed = await recordEvent(tenant.orgId, environment, 'lease.signed', definitionOf('lease.signed', 'carrier')!.sample);
    await dispatchFor([tenant.orgId]);
    const [abandoned] = (await api.get('/webhooks/deliveries?status=abandoned')).body.data;
    expect(abandoned).toMatchObject({ event_id: missed, attempts: 2, http_status: 503, response_body: 'maintenance' });
    expect(abandoned.history.map((h: any) => h.outcome)).toEqual(['failed', 'failed']);

    // Back up: a new event arrives, and the missed one is replayed.
    receiver.answer(path, { status: 204 });
    const next = await recordEvent(tenant.orgId, environment, 'lease.sent', definitionOf('lease.sent', 'carrier')!.sample);
    const replay = await api.post(`/events/${missed}/replay`);
    expect(replay.body).toEqual({ data: { event_id: missed, queued_to: 1, replay: true } });
    await dispatchFor([tenant.orgId]);

    const accepted = [];
    for (const request of receiver.at(path)) {
      expect(await verifyWebhookSignature(request.raw, request.headers['x-service-signature'] as string, secret)).toBe(true);
      if (request.json.replay || request.json.id === next) accepted.push(request.json);
    }
    expect(accepted.map((envelope) => [envelope.id, envelope.replay ?? false]).sort()).toEqual([[missed, true], [next, false]].sort());

    // Reconciling: every event of the log reached the receiver at least once with a 2xx.
    const log = (await api.get('/events')).body.data.map((event: any) => event.id);
    expect(log.sort()).toEqual([missed, next].sort());
    expect(new Set(accepted.map((envelope) => envelope.id))).toEqual(new Set(log));
    const other = client(environment === 'live' ? tenant.sandbox : tenant.live);
    expect((await other.get('/events')).body.data).toEqual([]);
    expect((await other.get('/webhooks/deliveries')).body.data).toEqual([]);
  });
});
