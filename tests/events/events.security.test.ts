// What the generated security matrix (tests/security) cannot ask of every route: the event log
// lists exactly the caller's own events, the catalogue opens to webhooks:manage alone, and a
// simulated event is filed under its caller's organisation and sandbox only.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createKey } from '../helpers.ts';
import { recordEvent, securityFixture } from '../webhooks/support.ts';

let { owner, stranger } = {} as Awaited<ReturnType<typeof securityFixture>>;
let liveEvent: string;

beforeAll(async () => {
  ({ owner, stranger } = await securityFixture());
  liveEvent = await recordEvent(owner.orgId, 'live', 'lease.sent', { reference: 'REQ-LIVE' });
});

describe('GET /events', () => {
  it("lists nothing of another organisation's or the other environment's", async () => {
    expect((await client(stranger.live).get('/events')).body.data).toEqual([]);
    expect((await client(owner.sandbox).get('/events')).body.data).toEqual([]);
    expect((await client(owner.live).get('/events')).body.data.map((e: any) => e.id)).toEqual([liveEvent]);
  });
});

describe('GET /events/types', () => {
  it('is readable with webhooks:manage alone, to choose subscriptions', async () => {
    const manage = await createKey(owner.orgId, 'live', { scopes: ['webhooks:manage'] });
    expect((await client(manage.key).get('/events/types')).status).toBe(200);
  });
});

describe('POST /events/simulate', () => {
  it("files the simulated event under the caller's organisation and sandbox only", async () => {
    const id = (await client(stranger.sandbox).post('/events/simulate', { event: 'lease.signed' })).body.data.event_id;
    expect((await client(owner.sandbox).get(`/events/${id}`)).status).toBe(404);
    expect((await client(stranger.live).get(`/events/${id}`)).status).toBe(404);
    expect((await client(stranger.sandbox).get(`/events/${id}`)).status).toBe(200);
  });
});
