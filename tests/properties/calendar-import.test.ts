// Another channel's calendar imported into a home, from a feed the test itself serves over HTTPS:
// it blocks the nights, frees them when the event is dropped, survives a feed that times out, is
// too large or is not iCalendar (keeping the last good state, and saying so), and its nights are
// taken for a placement's dates.
import { afterEach, describe, expect, it } from 'vitest';
import { client, createKey } from '../helpers.ts';
import { drainJobs, inDays, scene } from '../placements/fixtures.ts';
import { useReceiver } from '../webhooks/support.ts';
import { pinnedTransport } from '../../scripts/lib/pinned-transport.ts';
import { useCalendarFeedNetwork } from '../../shared/properties/calendar-import-job.ts';
import { recordSuccess } from '../../shared/properties/calendar-import-repository.ts';
import { withTenant } from '../../shared/db/tenant.ts';

const receiver = useReceiver();
const compact = (iso: string) => iso.replaceAll('-', '');
const calendar = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
const stay = (uid: string, checkIn: string, checkOut: string) =>
  ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART;VALUE=DATE:${compact(checkIn)}`, `DTEND;VALUE=DATE:${compact(checkOut)}`, 'SUMMARY:Reserved', 'END:VEVENT'].join('\r\n');

afterEach(() => {
  delete process.env.CALENDAR_IMPORT_TIMEOUT_MS;
});

describe('importing another channel\'s calendar', () => {
  it('blocks the nights of its events, frees them when they are dropped, and keeps the last good state through failed fetches', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const path = `/airbnb-${crypto.randomUUID()}.ics`;
    receiver.answer(path, { body: calendar(stay('a1@airbnb.com', inDays(50), inDays(55))), headers: { 'content-type': 'text/calendar' } });

    const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path), name: 'Airbnb' });
    expect(registered.status, registered.text).toBe(201);
    const feed = registered.body.data;
    expect(feed).toMatchObject({ property_id: s.home, url: receiver.url(path), name: 'Airbnb', last_fetched_at: null, consecutive_failures: 0, blocks: 0 });
    expect((await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path) })).status).toBe(200);

    const blocks = async () => ((await provider.get(`/properties/${s.home}/availability`)).body.data as any[])
      .filter((b) => b.source === 'ical').map((b) => [b.start_date, b.end_date, b.calendar_import_id, b.reason]);
    const state = async () => ((await provider.get(`/properties/${s.home}/calendar-feeds`)).body.data as any[])[0];

    await drainJobs(s.providerOrg);
    expect(await blocks()).toEqual([[inDays(50), inDays(54), feed.id, 'Imported from Airbnb']]);
    expect(await state()).toMatchObject({ last_error: null, consecutive_failures: 0, blocks: 1, last_success_at: expect.any(String) });

    // The nights are taken for a placement: its dates over them are refused.
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    const clash = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(45), move_out: inDays(100) });
    expect([clash.status, clash.body.error?.code]).toEqual([409, 'dates_unavailable']);

    // Failed fetches: no answer in time, too large, not iCalendar. The blocks of the last success stay.
    process.env.CALENDAR_IMPORT_TIMEOUT_MS = '300';
    const failures: [Parameters<typeof receiver.answer>[1], RegExp][] = [
      [{ body: calendar(), delayMs: 1500 }, /no answer within 300 ms/],
      [{ body: calendar(stay('big@airbnb.com', inDays(60), inDays(61)), `X-PAD:${'x'.repeat(1_100_000)}`) }, /larger than 1000000 bytes/],
      [{ body: '<!doctype html><title>Sign in</title>', headers: { 'content-type': 'text/html' } }, /did not answer an iCalendar feed/],
      [{ status: 404, body: 'gone' }, /HTTP 404/],
    ];
    for (const [index, [answer, error]] of failures.entries()) {
      receiver.answer(path, answer);
      expect((await provider.post(`/properties/${s.home}/calendar-feeds/${feed.id}/refresh`, {})).status).toBe(202);
      await drainJobs(s.providerOrg);
      expect(await state()).toMatchObject({ consecutive_failures: index + 1, last_error: expect.stringMatching(error), blocks: 1 });
      expect(await blocks()).toEqual([[inDays(50), inDays(54), feed.id, 'Imported from Airbnb']]);
    }

    // The channel cancels the stay: the next fetch frees the nights, and the failures are over.
    receiver.answer(path, { body: calendar(stay('other@airbnb.com', inDays(120), inDays(122))) });
    expect((await provider.post(`/properties/${s.home}/calendar-feeds/${feed.id}/refresh`, {})).status).toBe(202);
    await drainJobs(s.providerOrg);
    expect(await blocks()).toEqual([[inDays(120), inDays(121), feed.id, 'Imported from Airbnb']]);
    expect(await state()).toMatchObject({ consecutive_failures: 0, last_error: null });
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(45), move_out: inDays(100) })).status).toBe(200);

    // Removing the feed removes its blocks.
    expect((await provider.delete(`/properties/${s.home}/calendar-feeds/${feed.id}`)).body.data).toEqual({ id: feed.id, deleted: true });
    expect(await blocks()).toEqual([]);
    expect((await provider.post(`/properties/${s.home}/calendar-feeds/${feed.id}/refresh`, {})).status).toBe(404);
  });

  it('registers only https addresses on the public internet', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const allowed = process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    try {
      for (const url of ['http://calendar.example.com/a.ics', 'https://127.0.0.1/a.ics', 'https://10.1.2.3/a.ics', 'https://localhost/a.ics', 'https://user:pw@calendar.example.com/a.ics']) {
        const refused = await provider.post(`/properties/${s.home}/calendar-feeds`, { url });
        expect([refused.status, refused.body.error?.field], url).toEqual([422, 'url']);
        // http and local addresses say what admits a local https feed on a developer's server.
        if (!url.includes('user:pw')) expect(refused.body.error?.message, url).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
      }
    } finally {
      process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = allowed;
    }
    expect((await provider.get(`/properties/${s.home}/calendar-feeds`)).body.data).toEqual([]);
  });

  it('DNS rebinding: a feed whose name is public when checked and loopback when connecting is not fetched', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const path = `/rebound-${crypto.randomUUID()}.ics`;
    receiver.answer(path, { body: calendar(stay('r1@airbnb.com', inDays(50), inDays(55))) });
    const url = receiver.url(path).replace('127.0.0.1', 'localhost');
    // Registered while private addresses are allowed (as in development); then they are not.
    expect((await provider.post(`/properties/${s.home}/calendar-feeds`, { url })).status).toBe(201);
    const allowed = process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    // The check's resolver answers a public address; the connection's own lookup the loopback one.
    const connectTo: string[] = [];
    const previous = useCalendarFeedNetwork({
      resolve: async () => ['93.184.216.34'],
      transport: pinnedTransport({ allowPrivate: false, lookup: async (host) => (connectTo.push(host), [{ address: '127.0.0.1', family: 4 }]) }),
    });
    try {
      await drainJobs(s.providerOrg);
      expect(connectTo).toEqual(['localhost']);
      expect(receiver.at(path)).toEqual([]);
      const [state] = (await provider.get(`/properties/${s.home}/calendar-feeds`)).body.data;
      expect(state).toMatchObject({ consecutive_failures: 1, last_error: expect.stringMatching(/^refused: localhost does not resolve only to public internet addresses/), blocks: 0 });
    } finally {
      useCalendarFeedNetwork(previous);
      process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = allowed;
    }
  });

  it('two fetches of one feed finishing at once leave one set of blocks', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(`/race-${crypto.randomUUID()}.ics`), name: 'Airbnb' });
    expect(registered.status).toBe(201);
    const row = { id: registered.body.data.id, property_id: registered.body.data.property_id };
    const tenant = { orgId: s.providerOrg, environment: 'sandbox' as const };
    const ranges = [{ uid: 'a', start_date: inDays(10), end_date: inDays(12) }, { uid: 'b', start_date: inDays(20), end_date: inDays(21) }];
    // The first writes its blocks and holds its transaction open while the second writes.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const firstWrote = new Promise<void>((resolve) => (written = resolve));
    const first = withTenant(tenant, async (tx) => {
      await recordSuccess(tx, row, ranges, 'Imported from Airbnb');
      written();
      await held;
    });
    await firstWrote;
    const second = withTenant(tenant, (tx) => recordSuccess(tx, row, ranges, 'Imported from Airbnb'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await Promise.all([first, second]);
    const blocks = ((await provider.get(`/properties/${s.home}/availability`)).body.data as any[]).filter((b) => b.source === 'ical');
    expect(blocks.map((b) => [b.start_date, b.end_date])).toEqual([[inDays(10), inDays(12)], [inDays(20), inDays(21)]]);
  });

  it('shows the address without its query (the feed\'s key, as in Airbnb\'s ?s=…) and fetches it whole', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const path = `/calendar/ical/${crypto.randomUUID()}.ics`;
    const secret = `${path}?s=0f9e8d7c6b5a4f3e2d1c`;
    receiver.answer(secret, { body: calendar(stay('k1@airbnb.com', inDays(30), inDays(32))) });
    const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(secret), name: 'Airbnb' });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body.data.url).toBe(`${receiver.url(path)}?…`);
    expect((await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(secret) })).body.data.url).toBe(`${receiver.url(path)}?…`);
    await drainJobs(s.providerOrg);
    expect(receiver.at(secret)).toHaveLength(1);
    const listed = await provider.get(`/properties/${s.home}/calendar-feeds`);
    expect(listed.body.data).toMatchObject([{ url: `${receiver.url(path)}?…`, blocks: 1 }]);
    expect(listed.text).not.toContain('0f9e8d7c6b5a4f3e2d1c');
    const refreshed = await provider.post(`/properties/${s.home}/calendar-feeds/${registered.body.data.id}/refresh`, {});
    expect(refreshed.text).not.toContain('0f9e8d7c6b5a4f3e2d1c');
  });
});
