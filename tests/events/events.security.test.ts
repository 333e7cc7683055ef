// Every events route: another organisation's and the other environment's events answer 404 (or
// are not listed); a key without the needed scope gets 403 forbidden naming it.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, client, createKey } from '../helpers.ts';
import { recordEvent, securityFixture } from '../webhooks/support.ts';

let { owner, stranger, readOnlyKey, writeOnlyKey } = {} as Awaited<ReturnType<typeof securityFixture>>;
let liveEvent: string;

beforeAll(async () => {
  ({ owner, stranger, readOnlyKey, writeOnlyKey } = await securityFixture());
  // Endpoints everywhere, so that a refused replay is refused for its tenant, not for lack of endpoints.
  for (const key of [owner.live, owner.sandbox, stranger.live, stranger.sandbox]) {
    await client(key).post('/webhooks', { url: 'https://hooks.customer.example/all' });
  }
  liveEvent = await recordEvent(owner.orgId, 'live', 'lease.sent', { reference: 'REQ-LIVE' });
});

describe.each([
  ['GET', ''],
  ['POST', '/replay'],
])('%s /events/{id}%s', (method, suffix) => {
  it("answers 404 for another organisation's event", async () => {
    const res = await call(method, `/events/${liveEvent}${suffix}`, { key: stranger.live });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it("answers 404 for the other environment's event", async () => {
    const res = await call(method, `/events/${liveEvent}${suffix}`, { key: owner.sandbox });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers 403 forbidden without the scope', async () => {
    const key = method === 'GET' ? writeOnlyKey : readOnlyKey;
    const res = await call(method, `/events/${liveEvent}${suffix}`, { key });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(method === 'GET' ? /any read scope/ : /any write scope/) });
  });
});

describe('the refused replays', () => {
  it('queued nothing anywhere', async () => {
    for (const key of [owner.live, owner.sandbox, stranger.live, stranger.sandbox]) {
      const deliveries = (await client(key).get('/webhooks/deliveries')).body.data;
      expect(deliveries.filter((d: any) => d.replay)).toEqual([]);
    }
  });
});

describe('GET /events', () => {
  it("lists nothing of another organisation's or the other environment's", async () => {
    expect((await client(stranger.live).get('/events')).body.data).toEqual([]);
    expect((await client(owner.sandbox).get('/events')).body.data).toEqual([]);
    expect((await client(owner.live).get('/events')).body.data.map((e: any) => e.id)).toEqual([liveEvent]);
  });

  it('answers 403 forbidden without a read scope, naming it', async () => {
    const res = await client(writeOnlyKey).get('/events');
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('any read scope') });
  });
});

describe('GET /events/types', () => {
  it('answers 403 forbidden without a read scope or webhooks:manage, naming them', async () => {
    const res = await client(writeOnlyKey).get('/events/types');
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('any read scope or webhooks:manage') });
  });

  it('is readable with webhooks:manage alone, to choose subscriptions', async () => {
    const manage = await createKey(owner.orgId, 'live', { scopes: ['webhooks:manage'] });
    expect((await client(manage.key).get('/events/types')).status).toBe(200);
  });
});

describe('POST /events/simulate', () => {
  it('answers 403 forbidden without a write scope, naming it', async () => {
    const sandboxReader = await createKey(owner.orgId, 'sandbox', { scopes: ['claims:read', 'webhooks:manage'] });
    const res = await client(sandboxReader.key).post('/events/simulate', { event: 'lease.signed' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('any write scope') });
    expect((await client(owner.sandbox).get('/events')).body.data).toEqual([]);
  });

  it("files the simulated event under the caller's organisation and sandbox only", async () => {
    const id = (await client(stranger.sandbox).post('/events/simulate', { event: 'lease.signed' })).body.data.event_id;
    expect((await client(owner.sandbox).get(`/events/${id}`)).status).toBe(404);
    expect((await client(stranger.live).get(`/events/${id}`)).status).toBe(404);
    expect((await client(stranger.sandbox).get(`/events/${id}`)).status).toBe(200);
  });
});
