import { config, intSetting } from '../config.ts';
import { withTenant } from '../db/tenant.ts';
import { analyzeAfterBulkLoad } from '../db/statistics.ts';
import { enqueue } from '../jobs/queue.ts';
import type { ServiceJob } from '../jobs/runner.ts';
import type { Tx } from '../db/client.ts';
import { DestinationRefused, refusedDestination, systemResolver, type HostResolver } from '../webhooks/destination.ts';
import type { WebhookTransport } from '../webhooks/dispatcher.ts';
import { importedRanges, NotICalendar, type ImportedRange, type ImportWindow } from './ical-import.ts';
import { emit, emitMany } from '../events/outbox.ts';
import { shownUrl } from './feed-address.ts';
import { ownEventUids, readHomeRef, readImport, reconcileConflicts, recordFailure, recordSuccess } from './calendar-import-repository.ts';

// The durable fetch of an imported calendar, run by the job runner that the webhook scheduler drives
// (pg_cron on Supabase). Each run reads the feed once and queues the next run; the refresh route
// queues one now. A feed is read under the rules of webhook destinations (https, public addresses
// only, checked at registration and again just before each fetch), within a time and size limit.

/** How often an imported calendar is fetched. */
export const importIntervalSeconds = () => intSetting('CALENDAR_IMPORT_INTERVAL_SECONDS', 1800);
const timeoutMs = () => intSetting('CALENDAR_IMPORT_TIMEOUT_MS', 10_000);
const maxBytes = () => intSetting('CALENDAR_IMPORT_MAX_BYTES', 1_000_000);
/** Calendars one home may import: each is fetched every interval, and every fetch replaces its blocks. */
export const maxFeedsPerHome = () => intSetting('CALENDAR_IMPORT_MAX_FEEDS_PER_HOME', 10);
/** Failed fetches in a row after which the provider is told (calendar.feed_failing), once per run of failures. */
const failingAfter = () => intSetting('CALENDAR_IMPORT_FAILING_AFTER', 3);
/** How far ahead nights are read: a rule repeating for ever stops here. */
const horizonDays = 730;

/**
 * How a feed's host is resolved for the check and how the feed is then fetched. fetch would resolve
 * the host again to connect, and a name that changes its answer in between (DNS rebinding) would
 * reach an address the check refused (the reason webhook delivery has a pinned transport, see
 * WebhookTransport). So each runtime's entry passes that same transport here; fetch remains for
 * tests that need neither.
 */
let network: { resolve: HostResolver; transport: WebhookTransport } = { resolve: systemResolver, transport: (url, init) => fetch(url, init) };

/** Replaces how feeds are resolved and fetched (a runtime's entry; tests); returns what was used before. */
export function useCalendarFeedNetwork(next: Partial<typeof network>): typeof network {
  const previous = network;
  network = { ...network, ...next };
  return previous;
}

/**
 * How a feed's text becomes its ranges. By default in this process, bounded by the reading's own
 * budget of steps (shared/properties/ical-import.ts): what the Edge Runtime does, where a function
 * cannot start a worker. The local server passes a worker (scripts/lib/calendar-reader.ts) that is
 * also held to a time and memory limit and stopped past them, so that a feed never holds the
 * event loop that answers requests. Either throws with the reason the provider is shown.
 */
export type CalendarFeedReader = (text: string, window: ImportWindow) => Promise<ImportedRange[]>;

let feedReader: CalendarFeedReader = async (text, window) => importedRanges(text, window);

/** Replaces how feeds are read (a runtime's entry; tests); returns what was used before. */
export function useCalendarFeedReader(next: CalendarFeedReader): CalendarFeedReader {
  const previous = feedReader;
  feedReader = next;
  return previous;
}

/** The most a transport reads of an answer: the feed's limit and room for the head, so a larger feed is seen as such. */
export const calendarFeedAnswerBytes = () => maxBytes() + 64 * 1024;

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Where a redirect pointed, as an address is shown (a channel may redirect to a keyed address). */
function shownLocation(location: string | null, base: URL): string {
  if (location === null) return '(no location)';
  try {
    return shownUrl(new URL(location, base).toString());
  } catch {
    return '(an unreadable location)';
  }
}

/** The feed's text, or throws with the reason the provider is shown. */
async function fetchFeed(raw: string): Promise<string> {
  const url = new URL(raw);
  const deadline = AbortSignal.timeout(timeoutMs());
  if (!config.webhookAllowPrivateNetworks()) {
    const refused = await refusedDestination(url, network.resolve, new Map());
    if (refused) throw new Error(refused);
  }
  let response: Response;
  try {
    response = await network.transport(url, { method: 'GET', redirect: 'manual', signal: deadline, headers: { Accept: 'text/calendar', 'User-Agent': 'HousingPlacementService-Calendar/1' } });
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) throw new Error(`no answer within ${timeoutMs()} ms`);
    // The transport's own check refused the address it was about to connect to.
    if (error instanceof DestinationRefused) throw new Error(error.message);
    throw new Error('the address could not be reached');
  }
  if (response.status >= 300 && response.status < 400) throw new Error(`redirect to ${shownLocation(response.headers.get('location'), url)} not followed`);
  if (response.status !== 200) throw new Error(`answered HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes()) throw new Error(`the calendar is larger than ${maxBytes()} bytes`);
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes()) {
        await reader.cancel().catch(() => {});
        throw new Error(`the calendar is larger than ${maxBytes()} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) throw new Error(`no answer within ${timeoutMs()} ms`);
    throw error;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Queues the next scheduled fetch: one per interval slot, so a refresh does not add a second schedule. */
export async function scheduleNextFetch(tx: Tx, importId: string, now = Date.now()) {
  const interval = importIntervalSeconds() * 1000;
  const slot = Math.floor(now / interval) + 1;
  await enqueue(tx, 'fetch_calendar_import', { import_id: importId }, { runAt: new Date(slot * interval), dedupeKey: `${importId}:${slot}` });
}

export const fetchCalendarImport: ServiceJob<'fetch_calendar_import'> = {
  kind: 'fetch_calendar_import',
  async run(payload, { job }) {
    const tenant = { orgId: job.org_id, environment: job.environment };
    const row = await withTenant(tenant, (tx) => readImport(tx, payload.import_id));
    // Removed since it was queued: nothing to fetch, and no next run.
    if (!row) return { skipped: 'removed' };
    const now = Date.now();
    let outcome: { ok: true; nights: number } | { ok: false; error: string };
    try {
      const text = await fetchFeed(row.url);
      const read = await feedReader(text, { from: day(now), to: day(now + horizonDays * 86_400_000) });
      let ranges = read;
      await withTenant(tenant, async (tx) => {
        // This home's own stays and blocks, handed back by a channel that re-exports its feed, are not another channel's nights.
        const own = await ownEventUids(tx, row.property_id, [...new Set(read.map((range) => range.uid))]);
        ranges = read.filter((range) => !own.has(range.uid));
        await recordSuccess(tx, row, ranges, `Imported from ${row.name ?? new URL(row.url).hostname}`);
        // The booking here stands whatever the other channel says: an overlap is a conflict for a person.
        const conflicts = await reconcileConflicts(tx, row.id);
        await emitMany(tx, 'calendar.conflict', conflicts.map(({ property_name, detected_at, ...c }) => ({
          ...c,
          property: { name: property_name, api_external_id: c.external_id },
          detected_at: detected_at.toISOString(),
        })));
        await scheduleNextFetch(tx, row.id, now);
      });
      outcome = { ok: true, nights: ranges.length };
      // A feed replaces its home's blocks in bulk: matching's plans follow a table it grew (see analyzeGrown).
      if (ranges.length) await analyzeAfterBulkLoad(['availability_blocks']);
    } catch (error) {
      const message = error instanceof NotICalendar ? 'the address did not answer an iCalendar feed' : error instanceof Error ? error.message : String(error);
      await withTenant(tenant, async (tx) => {
        const failures = await recordFailure(tx, row.id, message);
        // Said once per run of failures: the count only passes the threshold again after a success reset it.
        if (failures === failingAfter()) {
          const home = await readHomeRef(tx, row.property_id);
          await emit(tx, 'calendar.feed_failing', {
            feed_id: row.id,
            feed_name: row.name,
            property_id: row.property_id,
            external_id: home.api_external_id,
            property: home,
            url: shownUrl(row.url),
            consecutive_failures: failures,
            last_error: message,
            last_success_at: row.last_success_at?.toISOString() ?? null,
          });
        }
        await scheduleNextFetch(tx, row.id, now);
      });
      outcome = { ok: false, error: message };
    }
    return outcome;
  },
  // A run that kept failing past the read (the database, say) never queued the next one: the feed
  // would silently stop being fetched. Its failure is shown on the feed and the schedule goes on.
  async abandoned(payload, { job }) {
    await withTenant({ orgId: job.org_id, environment: job.environment }, async (tx) => {
      if (!(await readImport(tx, payload.import_id))) return;
      await recordFailure(tx, payload.import_id, `the fetch could not be recorded after ${job.attempts} attempts; the next one is scheduled`);
      await scheduleNextFetch(tx, payload.import_id);
    });
  },
};
