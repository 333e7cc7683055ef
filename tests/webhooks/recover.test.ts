// Deliveries an endpoint gave up on are found and sent again: GET /webhooks/deliveries lists the
// abandoned ones since a time, POST /webhooks/{id}/recover replays them to that endpoint, once, and
// never an event the endpoint already received.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { client, createKey, createTenant, ownerSql } from '../helpers.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { dispatchFor, expectError, recordEvent, useReceiver } from './support.ts';

const receiver = useReceiver();
const leaseSent = definitionOf('lease.sent', 'carrier')!.sample;
let tenant: Awaited<ReturnType<typeof createTenant>>;
let api: ReturnType<typeof client>;
let paths = 0;

beforeEach(async () => {
  tenant = await createTenant('carrier');
  api = client(tenant.sandbox);
  // Two attempts, no wait between them: a failing receiver abandons a delivery in one dispatcher run.
  process.env.WEBHOOK_RETRY_SCHEDULE = '0';
});

afterEach(() => {
  delete process.env.WEBHOOK_RETRY_SCHEDULE;
});

const dispatch = () => dispatchFor([tenant.orgId]);

async function endpoint() {
  const path = `/recover-${++paths}`;
  const res = await api.post('/webhooks', { url: receiver.url(path), events: ['lease.sent'] });
  expect(res.status).toBe(201);
  return { path, id: res.body.data.id as string };
}

/** The endpoint's deliveries of one event, as the API lists them. */
async function deliveriesOf(endpointId: string, eventId: string) {
  const res = await api.get(`/webhooks/deliveries?endpoint_id=${endpointId}&event_id=${eventId}`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

describe('recovering abandoned deliveries', () => {
  it('lists the abandoned deliveries since a time and replays each event the endpoint never received, once', async () => {
    const hook = await endpoint();
    const other = await endpoint();
    receiver.answer(hook.path, { status: 503 });
    receiver.answer(other.path, { status: 503 });
    const before = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);
    const lost = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);
    const replayedSince = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);
    await dispatch();
    for (const id of [before, lost, replayedSince]) expect((await deliveriesOf(hook.id, id))[0]).toMatchObject({ status: 'abandoned', attempts: 2 });
    // The first was given up on long ago; the outage being recovered began after it.
    await ownerSql()`update app.webhook_deliveries set created_at = now() - interval '2 days' where event_id = ${before}`;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    // One of the events reached the endpoint since, by a replay of its own.
    receiver.answer(hook.path, { status: 200 });
    expect((await api.post(`/events/${replayedSince}/replay`)).status).toBe(202);
    await dispatch();
    receiver.answer(hook.path, { status: 503 });
    const received = receiver.at(hook.path).length;

    const listed = await api.get(`/webhooks/deliveries?endpoint_id=${hook.id}&status=abandoned&since=${encodeURIComponent(since)}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((d: any) => d.event_id).sort()).toEqual([lost, replayedSince].sort());
    expect(listed.body.data.every((d: any) => d.endpoint_id === hook.id && d.status === 'abandoned')).toBe(true);

    const key = { 'Idempotency-Key': `recover-${hook.id}` };
    const recovered = await api.post(`/webhooks/${hook.id}/recover`, { since }, key);
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ data: { endpoint_id: hook.id, since, abandoned: 1, queued: 1 } });
    // The same call retried with its key answers as the first did, without doing it again.
    const retried = await api.post(`/webhooks/${hook.id}/recover`, { since }, key);
    expect([retried.status, retried.headers.get('idempotent-replayed'), retried.text]).toEqual([202, 'true', recovered.text]);
    // Asked again without one before the replay went out: nothing more is queued.
    const repeated = await api.post(`/webhooks/${hook.id}/recover`, { since });
    expect(repeated.body).toEqual({ data: { endpoint_id: hook.id, since, abandoned: 1, queued: 0 } });

    receiver.answer(hook.path, { status: 200 });
    await dispatch();
    const sent = receiver.at(hook.path).slice(received);
    expect(sent.map((r) => [r.json.id, r.json.replay])).toEqual([[lost, true]]);
    expect((await deliveriesOf(hook.id, lost)).map((d) => [d.replay, d.status])).toEqual([[true, 'succeeded'], [false, 'abandoned']]);
    // The other endpoint's abandoned deliveries stay as they were: recovery is per endpoint.
    expect((await deliveriesOf(other.id, lost)).map((d) => d.status)).toEqual(['abandoned']);

    // Once received, an event is never recovered again; the older one only with an earlier since.
    expect((await api.post(`/webhooks/${hook.id}/recover`, { since })).body).toMatchObject({ data: { abandoned: 0, queued: 0 } });
    const earlier = new Date(Date.now() - 3 * 86_400_000).toISOString();
    expect((await api.post(`/webhooks/${hook.id}/recover`, { since: earlier })).body).toMatchObject({ data: { abandoned: 1, queued: 1 } });
    await dispatch();
    expect(receiver.at(hook.path).slice(received).map((r) => r.json.id)).toEqual([lost, before]);
  });

  it('refuses what cannot be recovered: another tenant, an inactive endpoint, a bad since, a read-only key', async () => {
    const hook = await endpoint();
    const since = '2026-01-01T00:00:00Z';
    expectError(await api.post(`/webhooks/${crypto.randomUUID()}/recover`, { since }), 404, 'not_found');
    expectError(await api.post('/webhooks/not-an-id/recover', { since }), 404, 'not_found');
    const stranger = await createTenant('carrier');
    expectError(await client(stranger.sandbox).post(`/webhooks/${hook.id}/recover`, { since }), 404, 'not_found');
    expectError(await client(tenant.live).post(`/webhooks/${hook.id}/recover`, { since }), 404, 'not_found');

    expectError(await api.post(`/webhooks/${hook.id}/recover`, {}), 422, 'invalid_field', 'since');
    expectError(await api.post(`/webhooks/${hook.id}/recover`, { since: 'yesterday' }), 422, 'invalid_field', 'since');
    expectError(await api.post(`/webhooks/${hook.id}/recover`, { since, events: ['lease.sent'] }), 422, 'invalid_field', 'events');
    expectError(await api.get(`/webhooks/deliveries?since=yesterday`), 422, 'invalid_field', 'since');

    const readOnly = await createKey(tenant.orgId, 'sandbox', { scopes: ['claims:read'] });
    expectError(await client(readOnly.key).post(`/webhooks/${hook.id}/recover`, { since }), 403, 'forbidden');

    expect((await api.patch(`/webhooks/${hook.id}`, { is_active: false })).status).toBe(200);
    expectError(await api.post(`/webhooks/${hook.id}/recover`, { since }), 409, 'could_not_replay');
  });
});
