// Every secret a run of the service creates (API keys, webhook secrets, the household's and the
// payer's links, a calendar's feed address, the key in an imported feed's query) stays with its
// holder: a scenario that makes each of them, uses them as their holders do (some sent encoded or
// cut short), and lets a feed fail until the provider is told, then looks for every one of them, and
// every part of a link, in the events (the API's log and the table), the webhook deliveries (as
// received and as the API shows them) and every line the service logged.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, client, createKey, ownerSql } from '../helpers.ts';
import { drainJobs, inDays, placeWithDates, scene } from '../placements/fixtures.ts';
import { dispatchFor, makeDue, useReceiver } from '../webhooks/support.ts';

const receiver = useReceiver();
const lines: string[] = [];
let logLevel: string | undefined;
beforeAll(() => {
  logLevel = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'debug';
  for (const stream of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, stream).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  }
});
afterAll(() => {
  process.env.LOG_LEVEL = logLevel;
  vi.restoreAllMocks();
});

/** A link's token and the parts of it a log could hold (its signature, or all but the signature). */
function linkSecrets(token: string): string[] {
  const [header, payload, signature] = token.split('.');
  return [token, `${header}.${payload}`, payload, signature];
}

const pathOf = (url: string) => new URL(url).pathname.replace(/^\/functions\/v1/, '');
const emptyCalendar = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test channel//EN\r\nEND:VCALENDAR\r\n';

/** Every page of GET /events a key reads. */
async function eventLog(key: string): Promise<unknown[]> {
  const api = client(key);
  const pages: unknown[] = [];
  for (let path = '/events?limit=100'; path;) {
    const page = await api.get(path);
    expect(page.status, page.text).toBe(200);
    pages.push(page.body);
    const cursor = (page.body as { next_cursor?: string | null }).next_cursor;
    path = cursor ? `/events?limit=100&cursor=${encodeURIComponent(cursor)}` : '';
  }
  return pages;
}

describe('the secrets a run creates', () => {
  it('appear in no event, webhook delivery or log line, whether used whole, encoded or cut short', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const providerKey = (await createKey(s.providerOrg, 'sandbox')).key;
    const provider = client(providerKey);
    const secrets: string[] = [s.c.sandbox, s.c.live, providerKey];

    // Each side listens to everything it is sent.
    const hooks: string[] = [];
    for (const [api, name] of [[s.api, 'carrier'], [provider, 'provider']] as const) {
      const path = `/sweep-${name}-${crypto.randomUUID()}`;
      const created = await api.post('/webhooks', { url: receiver.url(path) });
      expect(created.status, created.text).toBe(201);
      secrets.push(created.body.data.secret as string);
      hooks.push(path);
    }

    // An imported feed whose address carries its key, failing until the provider is told; one failure
    // is a redirect to another keyed address.
    const feedKey = `TOPSECRET${crypto.randomUUID().replaceAll('-', '')}`;
    const feedPath = `/cal-${crypto.randomUUID()}.ics?s=${feedKey}`;
    const movedKey = `MOVED${crypto.randomUUID().replaceAll('-', '')}`;
    secrets.push(feedKey, movedKey);
    receiver.answer(feedPath, { status: 302, headers: { location: receiver.url(`/moved.ics?s=${movedKey}`) } });
    const feed = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(feedPath), name: 'Channel' });
    expect(feed.status, feed.text).toBe(201);
    await drainJobs(s.providerOrg);
    receiver.answer(feedPath, { status: 404, body: 'gone' });
    for (let run = 0; run < 2; run++) {
      expect((await provider.post(`/properties/${s.home}/calendar-feeds/${feed.body.data.id}/refresh`, {})).status).toBe(202);
      await drainJobs(s.providerOrg);
    }
    const [failing] = (await provider.get('/events?event=calendar.feed_failing')).body.data as { data: Record<string, unknown> }[];
    expect(failing?.data).toMatchObject({ url: `${receiver.url(feedPath.split('?')[0])}?…`, consecutive_failures: 3 });
    receiver.answer(feedPath, { body: emptyCalendar, headers: { 'content-type': 'text/calendar' } });

    // The household's link, opened with a dot sent encoded; its page answered through a form.
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true })).status).toBe(200);
    await drainJobs(s.c.orgId);
    const household = pathOf((await s.api.get(`/sandbox/claims/${s.ref}/homes/${s.home}/household-link`)).body.data.url);
    const householdToken = household.split('/').pop()!;
    secrets.push(...linkSecrets(householdToken));
    const encoded = household.replace('.', '%2E');
    expect((await call('GET', encoded)).status).toBe(200);
    const saved = await call('POST', encoded, { body: 'action=save', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(saved.status).toBe(303);

    // The payer's link: whole, encoded, and with its signature cut off.
    await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(130));
    const pay = pathOf((await s.api.get(`/claims/${s.ref}/placement`)).body.data.pay_in_app_url!);
    const payToken = pay.split('/').pop()!;
    secrets.push(...linkSecrets(payToken));
    expect((await call('GET', pay)).status).toBe(200);
    expect((await call('GET', pay.replaceAll('.', '%2E'))).status).toBe(200);
    expect((await call('GET', pay.slice(0, pay.lastIndexOf('.')))).status).toBe(403);

    // The home's own calendar address, polled with a letter sent encoded.
    const exported = await provider.post(`/properties/${s.home}/calendar-export`, {});
    expect(exported.status, exported.text).toBe(201);
    const calendar = pathOf(exported.body.data.url!);
    const calendarToken = calendar.split('/').pop()!.replace(/\.ics$/, '');
    secrets.push(calendarToken, calendarToken.slice('cal_test_'.length));
    const letter = calendarToken['cal_test_'.length];
    expect((await call('GET', calendar.replace(`cal_test_${letter}`, `cal_test_%${letter.charCodeAt(0).toString(16)}`))).status).toBe(200);

    // Whatever was queued is delivered.
    await makeDue([s.c.orgId, s.providerOrg]);
    await dispatchFor([s.c.orgId, s.providerOrg]);
    expect(hooks.every((path) => receiver.at(path).length > 0)).toBe(true);

    const haystacks: [string, string][] = [
      ['log lines', lines.join('\n')],
      ['GET /events', JSON.stringify([...await eventLog(s.c.sandbox), ...await eventLog(providerKey)])],
      ['app.events', JSON.stringify(await ownerSql()`select event, payload from app.events where org_id in (${s.c.orgId}, ${s.providerOrg})`)],
      ['webhooks received', JSON.stringify(receiver.received.filter((r) => hooks.includes(r.path)).map((r) => ({ headers: r.headers, body: r.body })))],
      ['GET /webhooks/deliveries', JSON.stringify([(await s.api.get('/webhooks/deliveries')).body, (await provider.get('/webhooks/deliveries')).body])],
      ['app.webhook_deliveries', JSON.stringify(await ownerSql()`select event, history from app.webhook_deliveries where org_id in (${s.c.orgId}, ${s.providerOrg})`)],
    ];
    const hits = haystacks.flatMap(([where, text]) => secrets.filter((secret) => text.includes(secret)).map((secret) => `${where}: ${secret.slice(0, 12)}…`));
    expect(hits).toEqual([]);
    // The sweep looked where the scenario wrote: a request line per call, events of both sides.
    expect(lines.some((line) => line.includes('"message":"request"') && line.includes('/household/[link]'))).toBe(true);
  });
});
