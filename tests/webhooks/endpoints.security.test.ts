// What the generated security matrix (tests/security) cannot ask of every route: where a new
// endpoint is filed, and what the lists and their filters show of another organisation's or the
// other environment's endpoints and deliveries.
import { beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers.ts';
import { recordEvent, securityFixture } from './support.ts';

const url = 'https://hooks.customer.example/housing';
let { owner, stranger } = {} as Awaited<ReturnType<typeof securityFixture>>;
let liveEvent: string;
let liveEndpoint: string;

beforeAll(async () => {
  ({ owner, stranger } = await securityFixture());
  liveEndpoint = (await client(owner.live).post('/webhooks', { url, description: 'live' })).body.data.id;
  // The sandbox has an endpoint of its own, so its lists are not empty for want of any.
  await client(owner.sandbox).post('/webhooks', { url, description: 'sandbox' });
  liveEvent = await recordEvent(owner.orgId, 'live', 'lease.sent', { reference: 'REQ-LIVE' });
});

describe('POST /webhooks', () => {
  it("files the endpoint under the key's organisation and environment only", async () => {
    const created = (await client(stranger.sandbox).post('/webhooks', { url })).body.data.id;
    expect((await client(stranger.live).get('/webhooks')).body.data.map((e: any) => e.id)).not.toContain(created);
    expect((await client(owner.sandbox).get('/webhooks')).body.data.map((e: any) => e.id)).not.toContain(created);
  });
});

describe.each([['/webhooks'], ['/webhooks/deliveries']] as const)('GET %s', (path) => {
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
