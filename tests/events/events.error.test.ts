import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { expectError, recordEvent } from '../webhooks/support.ts';

let tenant: Awaited<ReturnType<typeof createTenant>>;
let sandbox: ReturnType<typeof client>;
let live: ReturnType<typeof client>;
const unknownId = '0d5a1c9e-7b3f-4e21-8a6d-2c4b9e7f1a30';

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
  tenant = await createTenant('carrier');
  sandbox = client(tenant.sandbox);
  live = client(tenant.live);
});

describe('GET /events', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=251', 'limit'],
    ['limit=ten', 'limit'],
    ['since=yesterday', 'since'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from('["2026-11-21T10:00:00Z"]').toString('base64url')}`, 'cursor'],
  ])('refuses %s with 422 invalid_field', async (query, field) => {
    expectError(await live.get(`/events?${query}`), 422, 'invalid_field', field);
  });

  it('refuses an event type the side is not sent with 422 unknown_event', async () => {
    expectError(await live.get('/events?event=lease.sent,lease.lost'), 422, 'unknown_event', 'event');
    expectError(await live.get('/events?event=booking.updated'), 422, 'unknown_event', 'event');
  });
});

describe('GET /events/{id}', () => {
  it('answers 404 for an unknown or malformed id', async () => {
    expectError(await live.get(`/events/${unknownId}`), 404, 'not_found');
    expectError(await live.get('/events/REQ-12'), 404, 'not_found');
  });
});

describe('POST /events/simulate', () => {
  it('refuses a live key with 403 sandbox_only, whatever the body', async () => {
    for (const body of [{ event: 'lease.signed' }, {}, { event: 'lease.exploded' }, { event: 'payment.refunded' }, { event: 'lease.signed', extra: 1 }]) {
      expectError(await live.post('/events/simulate', body), 403, 'sandbox_only');
    }
    expect((await live.get('/events')).body.count).toBe(0);
  });

  it('refuses an event the service does not send with 422 unknown_event', async () => {
    expectError(await sandbox.post('/events/simulate', { event: 'lease.exploded' }), 422, 'unknown_event', 'event');
    expectError(await sandbox.post('/events/simulate', { event: 'booking.updated' }), 422, 'unknown_event', 'event');
  });

  it('refuses an event outside the simulatable list', async () => {
    const res = await sandbox.post('/events/simulate', { event: 'payment.refunded' });
    expectError(res, 422, 'invalid_field', 'event');
    expect(res.body.error?.message).toContain('lease.signed');
  });

  it('refuses data that does not match the payload, naming the field', async () => {
    const data = { ...definitionOf('payment.succeeded', 'carrier')!.sample, amount: 'a lot' };
    expectError(await sandbox.post('/events/simulate', { event: 'payment.succeeded', data }), 422, 'invalid_field', 'data.amount');
  });

  it('refuses a partial payload with a wrong value, or a field the payload does not have, naming it', async () => {
    expectError(await sandbox.post('/events/simulate', { event: 'option.declined', data: { reason: 42 } }), 422, 'invalid_field', 'data.reason');
    // A status change's status is one of the request's status values, as its receivers are told.
    expectError(await sandbox.post('/events/simulate', { event: 'request.status_changed', data: { status: 'somewhere_else' } }), 422, 'invalid_field', 'data.status');
    expectError(await sandbox.post('/events/simulate', { event: 'booking.confirmed', data: { property: 'Maple Court' } }), 422, 'invalid_field', 'data.property');
    const unknown = await sandbox.post('/events/simulate', { event: 'option.declined', data: { reference: 'REQ-TEST01', mood: 'sad' } });
    expectError(unknown, 422, 'invalid_field', 'data.mood');
    expect((await sandbox.get('/events')).body.count).toBe(0);
  });

  it('refuses data nested deeper than any payload (thousands of levels) as a field error, not a server fault', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 3000; i++) deep = { a: deep };
    const res = await sandbox.post('/events/simulate', { event: 'option.declined', data: deep as Record<string, unknown> });
    expectError(res, 422, 'invalid_field', 'data');
    expect(res.body.error?.message).toContain('64 levels');
    let arrays: unknown = 1;
    for (let i = 0; i < 3000; i++) arrays = [arrays];
    expectError(await sandbox.post('/events/simulate', { event: 'option.declined', data: { reason: arrays } as Record<string, unknown> }), 422, 'invalid_field', 'data');
    expect((await sandbox.get('/events')).body.count).toBe(0);
  });

  it('refuses a missing event and unknown fields', async () => {
    expectError(await sandbox.post('/events/simulate', {}), 422, 'invalid_field', 'event');
    expectError(await sandbox.post('/events/simulate', { event: 'lease.signed', queue: true }), 422, 'invalid_field', 'queue');
    expect((await sandbox.get('/events')).body.count).toBe(0);
  });
});

describe('POST /events/{id}/replay', () => {
  it('answers 409 no_endpoint when no active endpoint subscribes to the event', async () => {
    const id = await recordEvent(tenant.orgId, 'live', 'lease.sent', {});
    expectError(await live.post(`/events/${id}/replay`), 409, 'no_endpoint');
    await live.post('/webhooks', { url: 'https://hooks.customer.example/other', events: ['lease.signed'] });
    const inactive = (await live.post('/webhooks', { url: 'https://hooks.customer.example/off' })).body.data.id;
    await live.patch(`/webhooks/${inactive}`, { is_active: false });
    expectError(await live.post(`/events/${id}/replay`), 409, 'no_endpoint');
  });

  it('answers 409 could_not_replay while a replay of the event already waits for every subscribed endpoint', async () => {
    const id = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', {});
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/all' });
    expect((await sandbox.post(`/events/${id}/replay`)).status).toBe(202);
    expectError(await sandbox.post(`/events/${id}/replay`), 409, 'could_not_replay');
    // A newly subscribed endpoint still gets its replay.
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/new', events: ['lease.sent'] });
    expect((await sandbox.post(`/events/${id}/replay`)).body.data.queued_to).toBe(1);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expectError(await live.post(`/events/${unknownId}/replay`), 404, 'not_found');
    expectError(await live.post('/events/xyz/replay'), 404, 'not_found');
  });
});

describe('the database', () => {
  it('refuses a simulated event outside sandbox, whoever records it', async () => {
    await expect(ownerSql()`select app.record_event('lease.sent', '{}'::jsonb, ${tenant.orgId}, 'live', true)`).rejects.toThrow(
      /events_simulated_in_sandbox/,
    );
  });
});
