// A home's calendar as an iCalendar feed for the other channels: its address (issued, rotated,
// revoked), what pollers get (ETag, Last-Modified, 304), and a stay that moves in it under one UID.
import { describe, expect, it } from 'vitest';
import { route } from '../../scripts/lib/router.ts';
import { client, createKey, createOrg } from '../helpers.ts';
import { clockAt, drainJobs, inDays, placeWithDates, scene, type Api } from '../placements/fixtures.ts';

/** Fetches a feed as a channel does: a plain GET of the address, no API key. */
async function poll(url: string, headers: Record<string, string> = {}) {
  const response = await route(new Request(url, { headers }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

interface FeedEvent { uid: string; summary: string; start: string; end: string }

/** The all-day events of a feed (this service writes one property per line, never folded). */
function eventsOf(text: string): FeedEvent[] {
  return [...text.matchAll(/BEGIN:VEVENT\r\n([\s\S]*?)END:VEVENT\r\n/g)].map(([, body]) => {
    const field = (name: string) => body.match(new RegExp(`^${name}[:;][^\\r]*?:?([^:\\r]*)\\r$`, 'm'))?.[1] ?? '';
    const date = (name: string) => field(name).replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3');
    return { uid: field('UID'), summary: field('SUMMARY'), start: date('DTSTART'), end: date('DTEND') };
  });
}

async function signBoth(api: Api, ref: string, home: string) {
  for (const who of ['household', 'landlord']) {
    const res = await api.post(`/sandbox/claims/${ref}/homes/${home}/${who}`, { action: 'sign' });
    expect(res.status, `${who}: ${res.text}`).toBe(200);
  }
}

const dayAfter = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('the iCalendar export of a home', () => {
  it('shows a stay from its dates on, booked, extended and shortened, as one event with one UID, and nothing about the household', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const providerApi = client((await createKey(s.providerOrg, 'sandbox')).key);
    const issued = await providerApi.post(`/properties/${s.home}/calendar-export`, {});
    expect(issued.status, issued.text).toBe(201);
    const url = issued.body.data.url as string;
    expect(url).toMatch(/\/functions\/v1\/calendar\/cal_test_[0-9A-Za-z]{40}\.ics$/);
    const empty = await poll(url);
    expect([empty.status, empty.headers.get('content-type')]).toEqual([200, 'text/calendar; charset=utf-8']);
    expect(empty.text).toMatch(/^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\n[\s\S]*END:VCALENDAR\r\n$/);
    expect(eventsOf(empty.text)).toEqual([]);

    expect((await s.api.post('/sandbox/clock', {})).status).toBe(201);
    const moveIn = inDays(40);
    await placeWithDates(s.api, s.ref, s.home, moveIn, inDays(130));
    // Dates set, not yet signed or paid: the nights are held already. DTEND is the move-out day (exclusive).
    const held = eventsOf((await poll(url)).text);
    expect(held).toEqual([{ uid: expect.stringMatching(/^stay-[0-9a-f-]{36}@/), summary: 'Reserved', start: moveIn, end: inDays(130) }]);
    const uid = held[0].uid;

    await drainJobs(s.c.orgId);
    await signBoth(s.api, s.ref, s.home);
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
    expect(eventsOf((await poll(url)).text)).toEqual([{ uid, summary: 'Booked', start: moveIn, end: inDays(130) }]);

    // An extension holds its nights from the moment it is asked for, and they join the stay's event.
    const extension = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) });
    expect(extension.status, extension.text).toBe(201);
    expect(eventsOf((await poll(url)).text)).toEqual([{ uid, summary: 'Booked', start: moveIn, end: inDays(160) }]);
    await drainJobs(s.c.orgId);
    await signBoth(s.api, s.ref, s.home);
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
    expect(eventsOf((await poll(url)).text)).toEqual([{ uid, summary: 'Booked', start: moveIn, end: inDays(160) }]);

    // Moved in, then shortened on day 10 to leave on day 20: the event ends on the new move-out.
    await clockAt(s.api, moveIn);
    expect((await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home })).status).toBe(200);
    await s.api.post('/sandbox/clock/advance', { frozen_time: `${dayAfter(moveIn, 10)}T12:00:00Z` });
    const shortened = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: moveIn, move_out: dayAfter(moveIn, 20) });
    expect(shortened.status, shortened.text).toBe(200);
    const last = await poll(url);
    expect(eventsOf(last.text)).toEqual([{ uid, summary: 'Booked', start: moveIn, end: dayAfter(moveIn, 20) }]);
    // Nothing of the household, the request or the home's address leaves in the feed.
    const home = (await providerApi.get(`/properties/${s.home}`)).body.data;
    for (const secret of ['family@example.com', 'adjuster@example.com', s.ref, s.claim.id, home.address, home.name]) {
      expect(last.text).not.toContain(secret);
    }
  });

  it('answers pollers 304 until the calendar changes, shows provider blocks, and stops answering once rotated or revoked', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const providerApi = client((await createKey(s.providerOrg, 'sandbox')).key);
    expect((await providerApi.get(`/properties/${s.home}/calendar-export`)).status).toBe(404);
    const url = (await providerApi.post(`/properties/${s.home}/calendar-export`, {})).body.data.url as string;
    const first = await poll(url);
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(Number.isNaN(Date.parse(lastModified))).toBe(false);
    for (const validator of [{ 'if-none-match': etag }, { 'if-modified-since': lastModified }] as Record<string, string>[]) {
      const again = await poll(url, validator);
      expect([again.status, again.text, again.headers.get('etag')]).toEqual([304, '', etag]);
    }

    const block = await providerApi.post(`/properties/${s.home}/availability`, { start_date: inDays(10), end_date: inDays(12), reason: 'Owner visiting with family' });
    expect(block.status).toBe(201);
    const blocked = await poll(url, { 'if-none-match': etag });
    expect(blocked.status).toBe(200);
    expect(blocked.headers.get('etag')).not.toBe(etag);
    expect(eventsOf(blocked.text)).toEqual([{ uid: expect.stringMatching(new RegExp(`^block-${block.body.data.id}@`)), summary: 'Not available', start: inDays(10), end: inDays(13) }]);
    expect(blocked.text).not.toContain('Owner visiting');
    // A change within the poll's second still moves the ETag: a poller that sent both is not told 304.
    expect((await poll(url, { 'if-none-match': etag, 'if-modified-since': blocked.headers.get('last-modified')! })).status).toBe(200);
    expect((await providerApi.post(`/properties/${s.home}/availability/${block.body.data.id}/release`, {})).status).toBe(200);
    expect(eventsOf((await poll(url)).text)).toEqual([]);

    const shown = await providerApi.get(`/properties/${s.home}/calendar-export`);
    expect(shown.body.data).toMatchObject({ property_id: s.home, url: null, issued_at: expect.any(String), last_modified: expect.any(String) });

    // Another provider's key does not reach the home, to read or to issue.
    const stranger = client((await createKey(await createOrg('provider'), 'sandbox')).key);
    expect((await stranger.get(`/properties/${s.home}/calendar-export`)).status).toBe(404);
    expect((await stranger.post(`/properties/${s.home}/calendar-export`, {})).status).toBe(404);

    const rotated = (await providerApi.post(`/properties/${s.home}/calendar-export`, {})).body.data.url!;
    expect(rotated).not.toBe(url);
    expect((await poll(url)).status).toBe(404);
    expect((await poll(rotated)).status).toBe(200);

    expect((await providerApi.delete(`/properties/${s.home}/calendar-export`)).body.data).toEqual({ property_id: s.home, revoked: true });
    expect((await poll(rotated)).status).toBe(404);
    expect((await providerApi.delete(`/properties/${s.home}/calendar-export`)).status).toBe(404);
    expect((await poll(url.replace(/cal_test_[0-9A-Za-z]{40}/, 'not-a-token'))).status).toBe(404);
  });
});

describe('the feed address in the OpenAPI document', () => {
  it('documents GET /calendar/{token}.ics: no key, the token\'s form, text/calendar with ETag and Last-Modified, 304 and 404', async () => {
    const document = (await route(new Request('http://localhost/functions/v1/docs/openapi.json'))).json() as Promise<any>;
    const feed = (await document).paths['/calendar/{token}.ics']?.get;
    expect(feed, 'the feed address is in the document').toBeDefined();
    expect(feed.security).toEqual([]);
    const token = feed.parameters.find((p: any) => p.in === 'path' && p.name === 'token');
    expect(token.schema.pattern).toBe('^cal_(test_)?[0-9A-Za-z]{40}$');
    // The token of a real address fits the documented form.
    expect(new RegExp(token.schema.pattern).test('cal_test_' + 'a'.repeat(40))).toBe(true);
    expect(feed.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['if-none-match', 'if-modified-since']));
    expect(Object.keys(feed.responses['200'].content)).toEqual(['text/calendar']);
    expect(Object.keys(feed.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Last-Modified']));
    expect(feed.responses['304']).toMatchObject({ headers: { ETag: expect.anything() } });
    expect(feed.responses['304'].content).toBeUndefined();
    expect(feed.responses['404'].content['application/json']).toBeDefined();
  });
});
