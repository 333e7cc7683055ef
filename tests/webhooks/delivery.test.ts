// Delivery end to end: events recorded as the service records them, dispatched to a real HTTPS
// receiver on loopback, checked with the integrator's verification helper.
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { definitionOf, payloadIssues } from '../../shared/events/registry.ts';
import { dispatchFor, makeDue, recordEvent, useReceiver, verifyWebhookSignature, type Received } from './support.ts';

const receiver = useReceiver();
let tenant: Awaited<ReturnType<typeof createTenant>>;
let sandbox: ReturnType<typeof client>;
let live: ReturnType<typeof client>;
let paths = 0;

const leaseSent = definitionOf('lease.sent', 'carrier')!.sample;
const dispatch = () => dispatchFor([tenant.orgId]);

/** A fresh receiver path and an endpoint on it. */
async function endpoint(api: ReturnType<typeof client>, body: Record<string, unknown> = {}) {
  const path = `/hook-${++paths}`;
  const res = await api.post('/webhooks', { url: receiver.url(path), ...body });
  expect(res.status).toBe(201);
  return { path, id: res.body.data.id as string, secret: res.body.data.secret as string };
}

async function deliveriesOf(eventOrEndpoint: { event_id?: string; endpoint_id?: string }, api = sandbox) {
  const query = new URLSearchParams(eventOrEndpoint as Record<string, string>).toString();
  const res = await api.get(`/webhooks/deliveries?${query}`);
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

const signatureOf = (request: Received) => request.headers['x-service-signature'] as string;

// A fresh organisation per test: its endpoints see only the test's own events.
beforeEach(async () => {
  tenant = await createTenant('carrier');
  sandbox = client(tenant.sandbox);
  live = client(tenant.live);
});

afterEach(() => {
  delete process.env.WEBHOOK_RETRY_SCHEDULE;
  delete process.env.WEBHOOK_TIMEOUT_MS;
});

describe('signed delivery', () => {
  it('POSTs the envelope with the signature, event and delivery headers, verifiable with the documented helper', async () => {
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    const report = await dispatch();
    expect(report.succeeded).toBe(1);

    const [request] = receiver.at(hook.path);
    const [delivery] = await deliveriesOf({ event_id: eventId });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-event']).toBe('lease.sent');
    expect(request.headers['x-service-delivery']).toBe(delivery.id);
    expect(signatureOf(request)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(request.json).toEqual({ id: eventId, event: 'lease.sent', created_at: expect.any(String), data: leaseSent });
    expect(new Date(request.json.created_at).toISOString()).toBe(request.json.created_at);
    expect(payloadIssues('lease.sent', 'carrier', request.json.data)).toEqual([]);

    expect(await verifyWebhookSignature(request.body, signatureOf(request), hook.secret)).toBe(true);
    expect(await verifyWebhookSignature(request.body, signatureOf(request), 'whsec_not-the-secret')).toBe(false);
    expect(await verifyWebhookSignature(request.body.replace('lease.sent', 'lease.sant'), signatureOf(request), hook.secret)).toBe(false);
    const signedAt = Number(/t=(\d+)/.exec(signatureOf(request))![1]) * 1000;
    expect(await verifyWebhookSignature(request.body, signatureOf(request), hook.secret, { nowMs: signedAt + 301_000 })).toBe(false);
    expect(await verifyWebhookSignature(request.body, signatureOf(request), hook.secret, { nowMs: signedAt + 299_000 })).toBe(true);

    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, http_status: 200, response_body: 'ok', error: null, next_attempt_at: null });
    expect(delivery.history).toEqual([
      { attempt: 1, at: expect.any(String), outcome: 'succeeded', http_status: 200, response_body: 'ok', error: null, duration_ms: expect.any(Number) },
    ]);
  });

  it('signs the raw body bytes with the secret as issued, whsec_ prefix included, as UTF-8 (operating contract)', async () => {
    const hook = await endpoint(sandbox, { events: ['option.declined'] });
    const declined = { ...definitionOf('option.declined', 'carrier')!.sample, reason: 'Trop loin de l’école — 3 km' };
    await recordEvent(tenant.orgId, 'sandbox', 'option.declined', declined);
    await dispatch();

    const [request] = receiver.at(hook.path);
    expect(request.json.data.reason).toBe(declined.reason);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signatureOf(request))!;
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(60);
    // Computed independently of the service's signer: HMAC-SHA256 keyed with the secret's UTF-8 bytes.
    const hmac = (key: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.concat([Buffer.from(`${t}.`), request.raw])).digest('hex');
    expect(hmac(hook.secret)).toBe(v1);
    expect(hmac(hook.secret.slice('whsec_'.length))).not.toBe(v1);
    expect(await verifyWebhookSignature(request.raw, signatureOf(request), hook.secret)).toBe(true);
  });

  it('queues in the same transaction as the event: a rolled-back event leaves no delivery', async () => {
    const hook = await endpoint(sandbox);
    const sql = ownerSql();
    let insideCount = -1;
    await sql
      .begin(async (tx) => {
        await tx`select app.record_event('lease.sent', ${tx.json(leaseSent as never)}, ${tenant.orgId}, 'sandbox')`;
        [{ count: insideCount }] = await tx<{ count: number }[]>`
          select count(*)::int as count from app.webhook_deliveries where endpoint_id = ${hook.id}`;
        throw new Error('the operation failed');
      })
      .catch(() => {});
    expect(insideCount).toBe(1);
    expect(await deliveriesOf({ endpoint_id: hook.id })).toEqual([]);
  });

  it('sends each endpoint only the events it subscribes to, and nothing to inactive endpoints', async () => {
    const onlyLeaseSent = await endpoint(sandbox, { events: ['lease.sent'] });
    const everything = await endpoint(sandbox);
    const inactive = await endpoint(sandbox);
    expect((await sandbox.patch(`/webhooks/${inactive.id}`, { is_active: false })).status).toBe(200);

    await recordEvent(tenant.orgId, 'sandbox', 'lease.signed', definitionOf('lease.signed', 'carrier')!.sample);
    await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);
    await dispatch();

    expect(receiver.at(onlyLeaseSent.path).map((r) => r.json.event)).toEqual(['lease.sent']);
    expect(receiver.at(everything.path).map((r) => r.json.event).sort()).toEqual(['lease.sent', 'lease.signed']);
    expect(receiver.at(inactive.path)).toEqual([]);
  });

  it('keeps the environments apart: live events reach live endpoints only, sandbox events sandbox ones', async () => {
    const liveHook = await endpoint(live, { events: ['option.saved'] });
    const sandboxHook = await endpoint(sandbox, { events: ['option.saved'] });
    const sample = definitionOf('option.saved', 'carrier')!.sample;
    const liveEvent = await recordEvent(tenant.orgId, 'live', 'option.saved', sample);
    const sandboxEvent = await recordEvent(tenant.orgId, 'sandbox', 'option.saved', sample);
    await dispatch();

    expect(receiver.at(liveHook.path).map((r) => r.json.id)).toEqual([liveEvent]);
    expect(receiver.at(sandboxHook.path).map((r) => r.json.id)).toEqual([sandboxEvent]);
    expect(await deliveriesOf({ event_id: sandboxEvent }, live)).toEqual([]);
  });
});

describe('failures and retries', () => {
  it('retries a 5xx after the first step of the schedule, with every attempt recorded', async () => {
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    receiver.answer(hook.path, { status: 503, body: 'down for maintenance' });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    await dispatch();
    const [failed] = await deliveriesOf({ event_id: eventId });
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, http_status: 503, response_body: 'down for maintenance', error: null });
    const wait = Date.parse(failed.next_attempt_at) - Date.parse(failed.last_attempt_at);
    expect(wait).toBeGreaterThan(55_000);
    expect(wait).toBeLessThan(65_000);

    // Not due yet: a dispatcher leaves it alone.
    expect((await dispatch()).claimed).toBe(0);

    receiver.answer(hook.path, { status: 204 });
    await makeDue([tenant.orgId]);
    await dispatch();
    const [delivered] = await deliveriesOf({ event_id: eventId });
    expect(delivered).toMatchObject({ status: 'succeeded', attempts: 2, http_status: 204 });
    expect(delivered.history.map((h: any) => [h.attempt, h.outcome, h.http_status])).toEqual([
      [1, 'failed', 503],
      [2, 'succeeded', 204],
    ]);
    const [first, second] = receiver.at(hook.path);
    expect(second.body).toBe(first.body);
    expect(second.headers['x-service-delivery']).toBe(first.headers['x-service-delivery']);
    expect(await verifyWebhookSignature(second.body, signatureOf(second), hook.secret)).toBe(true);
  });

  it('counts no answer within WEBHOOK_TIMEOUT_MS as a failure and retries it', async () => {
    process.env.WEBHOOK_TIMEOUT_MS = '300';
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    receiver.answer(hook.path, { status: 200, delayMs: 3000 });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    await dispatch();
    const [delivery] = await deliveriesOf({ event_id: eventId });
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, http_status: null, error: 'no answer within 300 ms' });
    expect(delivery.history[0].duration_ms).toBeLessThan(2000);
    expect(Date.parse(delivery.next_attempt_at) - Date.parse(delivery.last_attempt_at)).toBeGreaterThan(55_000);
  });

  it('waits 1 min, 5 min, 30 min, 2 h and 6 h between attempts by default, then abandons', async () => {
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    receiver.answer(hook.path, { status: 500 });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    const waits: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      await makeDue([tenant.orgId]);
      await dispatch();
      const [delivery] = await deliveriesOf({ event_id: eventId });
      expect(delivery.attempts).toBe(attempt);
      if (delivery.next_attempt_at) waits.push(Math.round((Date.parse(delivery.next_attempt_at) - Date.parse(delivery.last_attempt_at)) / 1000));
    }
    expect(waits.map((w) => Math.round(w / 10) * 10)).toEqual([60, 300, 1800, 7200, 21600]);
    const [abandoned] = await deliveriesOf({ event_id: eventId });
    expect(abandoned).toMatchObject({ status: 'abandoned', attempts: 6, next_attempt_at: null, http_status: 500 });
    expect(abandoned.history).toHaveLength(6);
    expect(receiver.at(hook.path)).toHaveLength(6);

    await makeDue([tenant.orgId]);
    expect((await dispatch()).claimed).toBe(0);
  });

  it('follows WEBHOOK_RETRY_SCHEDULE: steps of zero seconds are retried within the same run', async () => {
    process.env.WEBHOOK_RETRY_SCHEDULE = '0,0';
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    receiver.answer(hook.path, { status: 502 });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    await dispatch();
    const [delivery] = await deliveriesOf({ event_id: eventId });
    expect(delivery).toMatchObject({ status: 'abandoned', attempts: 3 });
    expect(receiver.at(hook.path)).toHaveLength(3);
  });

  it('never follows redirects: a 3xx is a failed attempt and the target is not called', async () => {
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    const target = `/redirect-target-${paths}`;
    receiver.answer(hook.path, { status: 307, headers: { location: receiver.url(target) } });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    await dispatch();
    const [delivery] = await deliveriesOf({ event_id: eventId });
    expect(delivery).toMatchObject({ status: 'pending', http_status: 307, error: `redirect to ${receiver.url(target)} not followed` });
    expect(receiver.at(target)).toEqual([]);
  });

  it('keeps only the first 1 KB of an answer, as storable text', async () => {
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    receiver.answer(hook.path, { status: 500, body: `\u0000${'x'.repeat(100_000)}` });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    await dispatch();
    const [delivery] = await deliveriesOf({ event_id: eventId });
    expect(delivery.response_body).toHaveLength(1024);
    expect(delivery.response_body.startsWith('\uFFFDxxx')).toBe(true);
  });
});

describe('rotation, ping, replay and simulate', () => {
  it('signs deliveries queued before a rotation with the old secret and later ones with the new', async () => {
    const hook = await endpoint(sandbox, { events: ['lease.sent'] });
    const before = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);
    const rotated = await sandbox.post(`/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(hook.secret);
    const after = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', leaseSent);

    await dispatch();
    const byEvent = new Map(receiver.at(hook.path).map((r) => [r.json.id, r]));
    const old = byEvent.get(before)!;
    const fresh = byEvent.get(after)!;
    expect(await verifyWebhookSignature(old.body, signatureOf(old), hook.secret)).toBe(true);
    expect(await verifyWebhookSignature(old.body, signatureOf(old), newSecret)).toBe(false);
    expect(await verifyWebhookSignature(fresh.body, signatureOf(fresh), newSecret)).toBe(true);
    expect(await verifyWebhookSignature(fresh.body, signatureOf(fresh), hook.secret)).toBe(false);
    // During a rotation a receiver accepts both.
    expect(await verifyWebhookSignature(old.body, signatureOf(old), [newSecret, hook.secret])).toBe(true);
  });

  it('sends a signed ping through the normal path, whatever the endpoint subscribes to, even while inactive', async () => {
    const hook = await endpoint(sandbox, { events: ['payment.failed'] });
    await sandbox.patch(`/webhooks/${hook.id}`, { is_active: false });
    const queued = await sandbox.post(`/webhooks/${hook.id}/test`);
    expect(queued.status).toBe(202);

    await dispatch();
    const [ping] = receiver.at(hook.path);
    expect(ping.headers['x-service-event']).toBe('ping');
    expect(ping.headers['x-service-delivery']).toBe(queued.body.data.delivery_id);
    expect(ping.json).toEqual({
      id: queued.body.data.delivery_id,
      event: 'ping',
      created_at: expect.any(String),
      data: { message: expect.any(String), test: true },
    });
    expect(await verifyWebhookSignature(ping.body, signatureOf(ping), hook.secret)).toBe(true);
    const [delivery] = await deliveriesOf({ endpoint_id: hook.id });
    expect(delivery).toMatchObject({ event: 'ping', event_id: null, status: 'succeeded' });
  });

  it('replays an event with the same id and replay: true to the endpoints subscribed now', async () => {
    const original = await endpoint(sandbox, { events: ['lease.signed'] });
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.signed', definitionOf('lease.signed', 'carrier')!.sample);
    await dispatch();
    const later = await endpoint(sandbox, { events: ['lease.signed'] });
    await sandbox.patch(`/webhooks/${original.id}`, { events: ['lease.sent'] });

    const replay = await sandbox.post(`/events/${eventId}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ data: { event_id: eventId, queued_to: 1, replay: true } });
    await dispatch();

    const [first] = receiver.at(original.path);
    expect(first.json.replay).toBeUndefined();
    expect(receiver.at(original.path)).toHaveLength(1);
    const [replayed] = receiver.at(later.path);
    expect(replayed.json).toEqual({ ...first.json, replay: true });
    expect(replayed.headers['x-service-delivery']).not.toBe(first.headers['x-service-delivery']);
    expect(await verifyWebhookSignature(replayed.body, signatureOf(replayed), later.secret)).toBe(true);
    const [delivery] = await deliveriesOf({ endpoint_id: later.id });
    expect(delivery).toMatchObject({ event_id: eventId, replay: true, status: 'succeeded' });
  });

  it('delivers a simulated event, flagged in the envelope and in data, to sandbox endpoints only', async () => {
    const sandboxHook = await endpoint(sandbox, { events: ['payment.succeeded'] });
    const liveHook = await endpoint(live, { events: ['payment.succeeded'] });
    const simulated = await sandbox.post('/events/simulate', { event: 'payment.succeeded' });
    expect(simulated.status).toBe(202);
    expect(simulated.body.data).toMatchObject({ event: 'payment.succeeded', queued_to: 1, simulated: true });

    await dispatch();
    const [request] = receiver.at(sandboxHook.path);
    const sample = definitionOf('payment.succeeded', 'carrier')!.sample;
    expect(request.json).toEqual({
      id: simulated.body.data.event_id,
      event: 'payment.succeeded',
      created_at: expect.any(String),
      data: { ...sample, simulated: true },
      simulated: true,
    });
    expect(await verifyWebhookSignature(request.body, signatureOf(request), sandboxHook.secret)).toBe(true);
    expect(receiver.at(liveHook.path)).toEqual([]);
  });
});
