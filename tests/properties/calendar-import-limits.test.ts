// Imported calendars built to be costly (feed bombs), served over HTTPS by the test itself: each is
// a failed fetch within seconds that keeps the blocks of the last success, read in a worker as the
// local server reads (and in process, as the Edge Runtime reads); /health answers while the worst
// is read; a home imports a limited number of calendars; a refresh while one is pending is one.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, client, createKey, ownerSql } from '../helpers.ts';
import { drainJobs, inDays, scene } from '../placements/fixtures.ts';
import { useReceiver } from '../webhooks/support.ts';
import { useCalendarFeedReader, type CalendarFeedReader } from '../../shared/properties/calendar-import-job.ts';
import { workerFeedReader } from '../../scripts/lib/calendar-reader.ts';
import { movedInstancesSharingOneUid, singleNights, worstAccepted } from '../fixtures/ical/generated.ts';

const receiver = useReceiver();
const file = (name: string) => readFileSync(new URL(`../fixtures/ical/${name}.ics`, import.meta.url), 'utf8');
const compact = (iso: string) => iso.replaceAll('-', '');
const good = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN', 'BEGIN:VEVENT', 'UID:a1@airbnb.com',
  `DTSTART;VALUE=DATE:${compact(inDays(50))}`, `DTEND;VALUE=DATE:${compact(inDays(55))}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

const bombs: [string, () => string, RegExp][] = [
  ['a time zone changing hourly since 1601', () => file('timezone-hourly'), /time zone Europe\/Restless changes hourly, not yearly/],
  ['a time zone changing every minute since 1601', () => file('timezone-minutely'), /time zone Europe\/Restless changes minutely, not yearly/],
  ['a rule whose parts never match', () => file('rule-never-matches'), /rules need more than \d+ steps/],
  ['8,400 events and 7,000 moved instances sharing one UID', () => movedInstancesSharingOneUid(), /15400 events, more than the 5000 read/],
  ['15,000 one-night stays', () => singleNights(), /15000 events, more than the 5000 read/],
];

/** A home with a feed read once from a good calendar (one block), its provider, and the feed's state. */
async function homeWithFeed() {
  const s = await scene('sandbox', { home: { environment: 'sandbox' } });
  const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
  const path = `/feed-${crypto.randomUUID()}.ics`;
  receiver.answer(path, { body: good });
  const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path) });
  expect(registered.status, registered.text).toBe(201);
  const feed = registered.body.data;
  await drainJobs(s.providerOrg);
  const state = async () => ((await provider.get(`/properties/${s.home}/calendar-feeds`)).body.data as any[])[0];
  const blocks = async () => ((await provider.get(`/properties/${s.home}/availability`)).body.data as any[])
    .filter((b) => b.source === 'ical').map((b) => [b.start_date, b.end_date]);
  expect(await blocks()).toEqual([[inDays(50), inDays(54)]]);
  /** Serves `text` from now on and asks for a fetch now. */
  const serveAndRefresh = async (text: string) => {
    receiver.answer(path, { body: text });
    expect((await provider.post(`/properties/${s.home}/calendar-feeds/${feed.id}/refresh`, {})).status).toBe(202);
  };
  /** Serves `text` and fetches the feed now; resolves once the fetch is done, with the time it took. */
  const fetchNow = async (text: string) => {
    await serveAndRefresh(text);
    const started = performance.now();
    await drainJobs(s.providerOrg);
    return performance.now() - started;
  };
  return { s, state, blocks, serveAndRefresh, fetchNow };
}

afterEach(() => {
  delete process.env.CALENDAR_IMPORT_READ_TIMEOUT_MS;
  delete process.env.CALENDAR_IMPORT_MAX_FEEDS_PER_HOME;
});

const readers: [string, CalendarFeedReader | undefined][] = [['in a worker (the local server)', workerFeedReader], ['in process (the Edge Runtime)', undefined]];
for (const [where, reader] of readers) {
  describe(`feed bombs read ${where}`, () => {
    let previous: CalendarFeedReader | undefined;
    beforeAll(() => {
      if (reader) previous = useCalendarFeedReader(reader);
    });
    afterAll(() => {
      if (previous) useCalendarFeedReader(previous);
    });

    it.each(bombs)('%s: a failed fetch within seconds, the last good blocks kept', async (_name, bomb, reason) => {
      const { fetchNow, state, blocks } = await homeWithFeed();
      const ms = await fetchNow(bomb());
      expect(ms).toBeLessThan(8_000);
      expect(await state()).toMatchObject({ consecutive_failures: 1, last_error: expect.stringMatching(reason), blocks: 1 });
      expect(await blocks()).toEqual([[inDays(50), inDays(54)]]);
    });
  });
}

describe('reading in a worker', () => {
  let previous: CalendarFeedReader;
  beforeAll(() => {
    previous = useCalendarFeedReader(workerFeedReader);
  });
  afterAll(() => {
    useCalendarFeedReader(previous);
  });

  it('/health answers within 2 s all along the worst feeds\' fetch: the costliest one read, and a time zone changing hourly', async () => {
    for (const [name, text] of [['worst accepted', worstAccepted()], ['hourly zone', file('timezone-hourly')]]) {
      const { s, state, serveAndRefresh } = await homeWithFeed();
      await serveAndRefresh(text);
      let done = false;
      const importing = drainJobs(s.providerOrg).finally(() => (done = true));
      const latencies: number[] = [];
      while (!done) {
        const started = performance.now();
        expect((await call('GET', '/health')).status).toBe(200);
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await importing;
      expect(Math.max(...latencies), `${name}: ${latencies.map(Math.round).join(' ')} ms`).toBeLessThan(2_000);
      expect((await state()).consecutive_failures, name).toBe(name === 'worst accepted' ? 0 : 1);
    }
  });

  it('a reading past its time limit is stopped: a failed fetch, the last good blocks kept', async () => {
    const { fetchNow, state, blocks } = await homeWithFeed();
    process.env.CALENDAR_IMPORT_READ_TIMEOUT_MS = '20';
    expect(await fetchNow(worstAccepted())).toBeLessThan(8_000);
    expect(await state()).toMatchObject({ consecutive_failures: 1, last_error: 'reading the calendar took longer than 20 ms: stopped', blocks: 1 });
    expect(await blocks()).toEqual([[inDays(50), inDays(54)]]);
  });
});

describe('feeds of a home', () => {
  it('are at most CALENDAR_IMPORT_MAX_FEEDS_PER_HOME: one more is refused naming the limit; one already there still answers', async () => {
    process.env.CALENDAR_IMPORT_MAX_FEEDS_PER_HOME = '2';
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const url = (n: number) => receiver.url(`/many-${n}-${s.home}.ics`);
    expect((await provider.post(`/properties/${s.home}/calendar-feeds`, { url: url(1) })).status).toBe(201);
    const second = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: url(2) });
    expect(second.status).toBe(201);
    const refused = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: url(3) });
    expect([refused.status, refused.body.error?.code, refused.body.error?.field]).toEqual([422, 'invalid_field', 'url']);
    expect(refused.body.error?.message).toMatch(/imports 2 calendars, the most one home may import \(2\)/);
    expect((await provider.post(`/properties/${s.home}/calendar-feeds`, { url: url(1) })).status).toBe(200);
    expect((await provider.delete(`/properties/${s.home}/calendar-feeds/${second.body.data.id}`)).status).toBe(200);
    expect((await provider.post(`/properties/${s.home}/calendar-feeds`, { url: url(3) })).status).toBe(201);
  });
});

describe('refreshing a feed', () => {
  it('while the fetch a refresh queued has not started is that refresh: one job, the same answer', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
    const path = `/refresh-${crypto.randomUUID()}.ics`;
    receiver.answer(path, { body: good });
    const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path) });
    const feed = registered.body.data;
    const fetchesNow = async () => (await ownerSql()<{ n: number }[]>`
      select count(*)::int as n from app.jobs
       where org_id = ${s.providerOrg} and kind = 'fetch_calendar_import' and payload ->> 'import_id' = ${feed.id} and run_at <= now() and status = 'pending'`)[0].n;
    const refresh = () => provider.post(`/properties/${s.home}/calendar-feeds/${feed.id}/refresh`, {});

    // The registration's fetch is pending: refreshing, even at once, adds nothing.
    const answers = await Promise.all([refresh(), refresh(), refresh()]);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(answers[1].body).toEqual(answers[0].body);
    expect(await fetchesNow()).toBe(1);
    await drainJobs(s.providerOrg);
    expect(receiver.at(path)).toHaveLength(1);

    // Once it ran, a refresh queues one fetch again, and only one.
    const first = await refresh();
    const again = await refresh();
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(first.body);
    expect(await fetchesNow()).toBe(1);
    await drainJobs(s.providerOrg);
    expect(receiver.at(path)).toHaveLength(2);
  });
});
