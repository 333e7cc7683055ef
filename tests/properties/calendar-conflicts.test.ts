// An imported calendar that takes nights a stay here already holds cannot undo the stay: the overlap
// is a conflict, on the home and its readiness, announced to the provider once, and resolved by a
// later fetch that no longer overlaps. A feed that keeps failing is announced once per run of failures.
import { describe, expect, it } from 'vitest';
import { route } from '../../scripts/lib/router.ts';
import { client, createKey } from '../helpers.ts';
import { drainJobs, events, inDays, placeWithDates, scene } from '../placements/fixtures.ts';
import { useReceiver } from '../webhooks/support.ts';

const receiver = useReceiver();
const compact = (iso: string) => iso.replaceAll('-', '');
const calendar = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
const stay = (uid: string, checkIn: string, checkOut: string) =>
  ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART;VALUE=DATE:${compact(checkIn)}`, `DTEND;VALUE=DATE:${compact(checkOut)}`, 'SUMMARY:Reserved', 'END:VEVENT'].join('\r\n');

async function withFeed() {
  const s = await scene('sandbox', { home: { environment: 'sandbox' } });
  const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
  const path = `/vrbo-${crypto.randomUUID()}.ics`;
  const serve = (body: string) => receiver.answer(path, { body, headers: { 'content-type': 'text/calendar' } });
  serve(calendar());
  const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path), name: 'Vrbo' });
  expect(registered.status, registered.text).toBe(201);
  const feed = registered.body.data as { id: string };
  const fetchNow = async () => {
    expect((await provider.post(`/properties/${s.home}/calendar-feeds/${feed.id}/refresh`, {})).status).toBe(202);
    await drainJobs(s.providerOrg);
  };
  return { s, provider, feed, path, serve, fetchNow };
}

describe('an imported calendar over a stay booked here', () => {
  it('keeps the stay, records the overlap as a conflict on the home and its readiness, announces it once, and resolves it when the feed moves', async () => {
    const { s, provider, feed, serve, fetchNow } = await withFeed();
    // The stay here holds the nights of days 40 to 79 (move-out day 80).
    await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(80));
    const conflicts = async () => (await provider.get(`/properties/${s.home}`)).body.data.calendar_conflicts;
    const warnings = async () => (await provider.get('/properties/readiness')).body.data.warnings;
    const held = async () => ((await provider.get(`/properties/${s.home}/availability`)).body.data as any[])
      .filter((b) => b.source === 'service').map((b) => [b.start_date, b.end_date]);

    expect(await conflicts()).toEqual([]);
    expect(await warnings()).toEqual([]);

    // The other channel takes the nights of days 75 to 82 (check-out day 83).
    serve(calendar(stay('r1@vrbo.com', inDays(75), inDays(83))));
    await fetchNow();
    const [open] = await conflicts();
    expect(await conflicts()).toEqual([{
      id: expect.any(String), feed_id: feed.id, booking_id: null, start_date: inDays(75), end_date: inDays(79), detected_at: expect.any(String),
    }]);
    expect(await warnings()).toEqual([{ field: 'calendar_conflict', homes: 1 }]);
    expect(await held()).toEqual([[inDays(40), inDays(79)]]);
    const announced = await events(s.providerOrg, 'calendar.conflict');
    expect(announced.map((e: any) => e.payload)).toEqual([{
      conflict_id: open.id, feed_id: feed.id, feed_name: 'Vrbo', property_id: s.home, external_id: null,
      property: { name: expect.anything(), api_external_id: null }, booking_id: null,
      start_date: inDays(75), end_date: inDays(79), detected_at: open.detected_at,
    }]);

    // The same feed read again: the same conflict, not announced twice.
    await fetchNow();
    expect((await conflicts()).map((c: any) => c.id)).toEqual([open.id]);
    expect(await events(s.providerOrg, 'calendar.conflict')).toHaveLength(1);

    // The other channel drops the nights: the next fetch resolves the conflict; the stay never moved.
    serve(calendar(stay('r2@vrbo.com', inDays(90), inDays(92))));
    await fetchNow();
    expect(await conflicts()).toEqual([]);
    expect(await warnings()).toEqual([]);
    expect(await held()).toEqual([[inDays(40), inDays(79)]]);
  });

  it("this home's own feed handed back by a channel that re-exports it: its stays and blocks are no other channel's nights, no conflict with itself", async () => {
    const { s, provider, serve, fetchNow } = await withFeed();
    await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(80));
    const block = await provider.post(`/properties/${s.home}/availability`, { start_date: inDays(100), end_date: inDays(104), reason: 'Repairs' });
    expect(block.status, block.text).toBe(201);
    const exported = await provider.post(`/properties/${s.home}/calendar-export`, {});
    const feedText = await (await route(new Request(exported.body.data.url!))).text();
    expect(feedText).toMatch(/UID:stay-/);
    // The channel manager serves back this home's feed, with one booking of its own besides.
    serve(feedText.replace('END:VCALENDAR', `${stay('r9@channel.example', inDays(120), inDays(125))}\r\nEND:VCALENDAR`));
    await fetchNow();
    expect((await provider.get(`/properties/${s.home}`)).body.data.calendar_conflicts).toEqual([]);
    expect(await events(s.providerOrg, 'calendar.conflict')).toEqual([]);
    const imported = ((await provider.get(`/properties/${s.home}/availability`)).body.data as any[])
      .filter((b) => b.source === 'ical').map((b) => [b.start_date, b.end_date]);
    expect(imported).toEqual([[inDays(120), inDays(124)]]);
  });

  it('tells the provider once when a feed has failed three fetches running, and again only after a success', async () => {
    const { s, feed, path, serve, fetchNow } = await withFeed();
    await fetchNow();
    const failing = async () => (await events(s.providerOrg, 'calendar.feed_failing')).map((e: any) => e.payload);
    receiver.answer(path, { status: 503, body: 'down' });
    for (let n = 1; n <= 2; n += 1) await fetchNow();
    expect(await failing()).toEqual([]);
    await fetchNow();
    expect(await failing()).toEqual([{
      feed_id: feed.id, feed_name: 'Vrbo', property_id: s.home, external_id: null, property: { name: expect.anything(), api_external_id: null },
      url: receiver.url(path), consecutive_failures: 3, last_error: 'answered HTTP 503', last_success_at: expect.any(String),
    }]);
    // The same run of failures goes on: not told again.
    await fetchNow();
    expect(await failing()).toHaveLength(1);
    // A success ends the run; three more failures are a new run, told once more.
    serve(calendar());
    await fetchNow();
    receiver.answer(path, { status: 503, body: 'down' });
    for (let n = 1; n <= 3; n += 1) await fetchNow();
    expect((await failing()).map((p: any) => p.consecutive_failures)).toEqual([3, 3]);
  });
});
