// Every webhooks route: another organisation's and the other environment's endpoints answer 404
// exactly like unknown ones, and lists show nothing of theirs; a key without the needed scope gets
// 403 forbidden naming it. The webhooks statements carry no tenant filter of their own: these tests
// are what proves that row-level security alone keeps tenants apart.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, client } from '../helpers.ts';
import { recordEvent, securityFixture } from './support.ts';

const url = 'https://hooks.customer.example/housing';
let { owner, stranger, readOnlyKey, writeOnlyKey } = {} as Awaited<ReturnType<typeof securityFixture>>;
let liveEvent: string;
let liveEndpoint: string;
let sandboxEndpoint: string;

beforeAll(async () => {
  ({ owner, stranger, readOnlyKey, writeOnlyKey } = await securityFixture());
  liveEndpoint = (await client(owner.live).post('/webhooks', { url, description: 'live' })).body.data.id;
  sandboxEndpoint = (await client(owner.sandbox).post('/webhooks', { url, description: 'sandbox' })).body.data.id;
  liveEvent = await recordEvent(owner.orgId, 'live', 'lease.sent', { reference: 'REQ-LIVE' });
});

const endpointRoutes: Array<[string, string, unknown]> = [
  ['PATCH', '', { is_active: false }],
  ['DELETE', '', undefined],
  ['POST', '/rotate-secret', undefined],
  ['POST', '/test', undefined],
];

describe.each(endpointRoutes)('%s /webhooks/{id}%s', (method, suffix, body) => {
  it("answers 404 for another organisation's endpoint", async () => {
    const res = await call(method, `/webhooks/${liveEndpoint}${suffix}`, { key: stranger.live, body });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it("answers 404 for the other environment's endpoint (a sandbox key cannot touch a live endpoint)", async () => {
    const res = await call(method, `/webhooks/${liveEndpoint}${suffix}`, { key: owner.sandbox, body });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers 403 forbidden without webhooks:manage or a write scope', async () => {
    const res = await call(method, `/webhooks/${liveEndpoint}${suffix}`, { key: readOnlyKey, body });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('webhooks:manage or any write scope') });
  });
});

describe('after the refused calls', () => {
  it('left both endpoints untouched', async () => {
    const live = (await client(owner.live).get('/webhooks')).body.data;
    const sandbox = (await client(owner.sandbox).get('/webhooks')).body.data;
    expect(live).toEqual([expect.objectContaining({ id: liveEndpoint, is_active: true, secret_rotated_at: null })]);
    expect(sandbox).toEqual([expect.objectContaining({ id: sandboxEndpoint, is_active: true })]);
    expect((await client(owner.live).get('/webhooks/deliveries')).body.data.every((d: any) => d.event !== 'ping')).toBe(true);
  });
});

describe('POST /webhooks', () => {
  it('answers 403 forbidden without webhooks:manage or a write scope, naming them', async () => {
    const res = await client(readOnlyKey).post('/webhooks', { url });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('webhooks:manage or any write scope') });
    expect((await client(owner.live).get('/webhooks')).body.count).toBe(1);
  });

  it("files the endpoint under the key's organisation and environment only", async () => {
    const created = (await client(stranger.sandbox).post('/webhooks', { url })).body.data.id;
    // Filed by the policy's tenant, not by a value of the request: its own key lists it.
    expect((await client(stranger.sandbox).get('/webhooks')).body.data.map((e: any) => e.id)).toEqual([created]);
    expect((await client(stranger.live).get('/webhooks')).body.data.map((e: any) => e.id)).not.toContain(created);
    expect((await client(owner.sandbox).get('/webhooks')).body.data.map((e: any) => e.id)).not.toContain(created);
  });
});

describe.each([['/webhooks'], ['/webhooks/deliveries']])('GET %s', (path) => {
  it("lists nothing of another organisation's", async () => {
    const res = await client(stranger.live).get(path);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it("lists nothing of the other environment's", async () => {
    const live = await client(owner.live).get(path);
    expect(live.body.count).toBe(1);
    const sandbox = await client(owner.sandbox).get(path);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.data.map((item: any) => item.endpoint_id ?? item.id)).not.toContain(liveEndpoint);
  });

  it('answers 403 forbidden without a read scope or webhooks:manage', async () => {
    const res = await client(writeOnlyKey).get(path);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('any read scope or webhooks:manage') });
  });
});

describe('GET /webhooks/deliveries filtered by a foreign endpoint or event', () => {
  it('finds nothing', async () => {
    for (const key of [stranger.live, owner.sandbox]) {
      for (const filter of [`endpoint_id=${liveEndpoint}`, `event_id=${liveEvent}`]) {
        const res = await client(key).get(`/webhooks/deliveries?${filter}`);
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(0);
      }
    }
    expect((await client(owner.live).get(`/webhooks/deliveries?event_id=${liveEvent}`)).body.count).toBe(1);
  });
});
