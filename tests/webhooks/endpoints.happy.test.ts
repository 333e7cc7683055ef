import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../shared/db/client.ts';
import { client, createKey, createTenant, ownerSql } from '../helpers.ts';
import { recordEvent } from './support.ts';

let tenant: Awaited<ReturnType<typeof createTenant>>;
let api: ReturnType<typeof client>;

beforeAll(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
});

beforeEach(async () => {
  tenant = await createTenant('carrier');
  api = client(tenant.sandbox);
});

const url = 'https://hooks.customer.example/housing';

describe('POST /webhooks', () => {
  it('creates an endpoint and shows its secret once', async () => {
    const res = await api.post('/webhooks', { url, events: ['lease.sent', 'lease.signed', 'lease.sent'], description: 'claims system' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      url,
      events: ['lease.sent', 'lease.signed'],
      description: 'claims system',
      is_active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret_rotated_at: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
      secret_note: expect.stringContaining('only this once'),
    });

    const listed = await api.get('/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [expect.objectContaining({ id: res.body.data.id, url })], count: 1, next_cursor: null });
    expect(listed.text).not.toContain(res.body.data.secret);
    expect(listed.body.data[0]).not.toHaveProperty('secret');
  });

  it('stores the url normalized, as deliveries will use it', async () => {
    for (const [given, stored] of [
      ['HTTPS://Hooks.Customer.EXAMPLE:443/housing', url],
      [`  ${url}`, url],
      ['https://hooks.customer.example/a b?x=1', 'https://hooks.customer.example/a%20b?x=1'],
    ]) {
      const res = await api.post('/webhooks', { url: given });
      expect(res.status).toBe(201);
      expect(res.body.data.url).toBe(stored);
      const changed = await api.patch(`/webhooks/${res.body.data.id}`, { url: given.replace('/housing', '/v2') });
      expect(changed.body.data.url).toBe(stored.replace('/housing', '/v2'));
    }
  });

  it('subscribes to every event of the side when events are omitted', async () => {
    const res = await api.post('/webhooks', { url });
    expect(res.status).toBe(201);
    expect(res.body.data.events).toBeNull();
  });

  it('accepts a key with webhooks:manage only, and with a write scope only', async () => {
    const manage = await createKey(tenant.orgId, 'sandbox', { scopes: ['webhooks:manage'] });
    const write = await createKey(tenant.orgId, 'sandbox', { scopes: ['claims:write'] });
    expect((await client(manage.key).post('/webhooks', { url })).status).toBe(201);
    expect((await client(write.key).post('/webhooks', { url })).status).toBe(201);
    expect((await client(manage.key).get('/webhooks')).body.count).toBe(2);
  });

  it('stores the secret where the API role cannot read it back', async () => {
    await api.post('/webhooks', { url });
    const asApi = connect(process.env.DATABASE_URL!, { max: 1 });
    try {
      const read = asApi.begin(async (tx) => {
        await tx`select set_config('role', 'svc_api', true), set_config('app.org_id', ${tenant.orgId}, true), set_config('app.env', 'sandbox', true)`;
        return tx`select secret from app.webhook_endpoints`;
      });
      await expect(read).rejects.toThrow(/permission denied/);
    } finally {
      await asApi.end();
    }
  });
});

describe('GET /webhooks', () => {
  it('pages newest first with an opaque cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/webhooks', { url: `${url}/${i}` })).body.data.id);
    const first = await api.get('/webhooks?limit=2');
    expect(first.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await api.get(`/webhooks?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ data: [{ id: ids[0] }], count: 1, next_cursor: null });
  });
});

describe('PATCH /webhooks/{id}', () => {
  it('changes url, events, description and is_active', async () => {
    const { id, updated_at } = (await api.post('/webhooks', { url, events: ['lease.sent'] })).body.data;
    const res = await api.patch(`/webhooks/${id}`, { url: `${url}/v2`, events: ['option.saved'], description: 'v2', is_active: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, url: `${url}/v2`, events: ['option.saved'], description: 'v2', is_active: false });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(updated_at));
    expect(res.body.data).not.toHaveProperty('secret');

    const reset = await api.patch(`/webhooks/${id}`, { events: null, description: null, is_active: true });
    expect(reset.body.data).toMatchObject({ events: null, description: null, is_active: true, url: `${url}/v2` });
  });

  it('cancels the deliveries waiting for an endpoint that is deactivated', async () => {
    const { id } = (await api.post('/webhooks', { url, events: ['lease.sent'] })).body.data;
    await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', { reference: 'REQ-1' });
    expect((await api.get(`/webhooks/deliveries?endpoint_id=${id}`)).body.data[0].status).toBe('pending');
    await api.patch(`/webhooks/${id}`, { is_active: false });
    const [delivery] = (await api.get(`/webhooks/deliveries?endpoint_id=${id}`)).body.data;
    expect(delivery).toMatchObject({ status: 'cancelled', next_attempt_at: null, completed_at: expect.any(String) });
  });
});

describe('DELETE /webhooks/{id}', () => {
  it('removes the endpoint and its queued deliveries', async () => {
    const { id } = (await api.post('/webhooks', { url })).body.data;
    await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', { reference: 'REQ-1' });
    const res = await api.delete(`/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id, deleted: true } });
    expect((await api.get('/webhooks')).body.count).toBe(0);
    expect((await api.get('/webhooks/deliveries')).body.count).toBe(0);
    expect((await api.delete(`/webhooks/${id}`)).status).toBe(404);
  });
});

describe('POST /webhooks/{id}/rotate-secret', () => {
  it('issues a new secret, shown once', async () => {
    const created = (await api.post('/webhooks', { url })).body.data;
    const res = await api.post(`/webhooks/${created.id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: created.id,
      secret: expect.stringMatching(/^whsec_/),
      secret_note: expect.any(String),
      secret_rotated_at: expect.any(String),
    });
    expect(res.body.data.secret).not.toBe(created.secret);
    const [stored] = await ownerSql()<{ secret: string }[]>`select secret from app.webhook_endpoints where id = ${created.id}`;
    expect(stored.secret).toBe(res.body.data.secret);
    expect((await api.get('/webhooks')).body.data[0].secret_rotated_at).toBe(res.body.data.secret_rotated_at);
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('queues a ping, listed with the deliveries', async () => {
    const { id } = (await api.post('/webhooks', { url, events: ['lease.sent'] })).body.data;
    const res = await api.post(`/webhooks/${id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { delivery_id: expect.any(String), endpoint_id: id, event: 'ping' } });
    const listed = await api.get('/webhooks/deliveries');
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: res.body.data.delivery_id, endpoint_id: id, event: 'ping', event_id: null, status: 'pending', attempts: 0, history: [] }),
    ]);
  });
});

describe('GET /webhooks/deliveries', () => {
  it('pages newest first and filters by endpoint, event and status', async () => {
    const a = (await api.post('/webhooks', { url, events: ['lease.sent'] })).body.data.id;
    const b = (await api.post('/webhooks', { url: `${url}/b` })).body.data.id;
    const first = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', { reference: 'REQ-1' });
    const second = await recordEvent(tenant.orgId, 'sandbox', 'option.saved', { reference: 'REQ-1' });
    await api.patch(`/webhooks/${a}`, { is_active: false });

    const all = await api.get('/webhooks/deliveries?limit=2');
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(2);
    expect(all.body.data[0].event_id).toBe(second);
    const rest = await api.get(`/webhooks/deliveries?limit=2&cursor=${all.body.next_cursor}`);
    expect(rest.body).toMatchObject({ count: 1, next_cursor: null });
    expect([...all.body.data, ...rest.body.data].map((d: any) => d.event_id).sort()).toEqual([first, first, second].sort());

    expect((await api.get(`/webhooks/deliveries?endpoint_id=${b}`)).body.count).toBe(2);
    expect((await api.get(`/webhooks/deliveries?event_id=${first}`)).body.count).toBe(2);
    const cancelled = await api.get('/webhooks/deliveries?status=cancelled');
    expect(cancelled.body.data).toEqual([expect.objectContaining({ endpoint_id: a, event_id: first, status: 'cancelled' })]);
  });
});
