import ICAL from 'ical.js';

// Reading another channel's iCalendar export (Airbnb, Vrbo, Booking.com, Google Calendar, channel
// managers) into the nights it takes. The feeds differ: Airbnb and Vrbo send all-day DATE events
// whose DTEND is the check-out day; Google sends timed events with a TZID and its VTIMEZONE,
// recurring rules with exceptions, and keeps cancelled instances as STATUS:CANCELLED. The parsing
// is Mozilla's ical.js; what is decided here is which nights an event takes.

export interface ImportedRange {
  /** The event's UID in the other channel's feed (a recurring event's occurrences share it). */
  uid: string;
  start_date: string;
  /** Last night taken (inclusive), as availability blocks count. */
  end_date: string;
}

/** The feed is not iCalendar at all (an HTML login page, JSON, a truncated file). */
export class NotICalendar extends Error {}

/**
 * Occurrences of one recurring event stepped through at most, those before the window included (a
 * daily rule that started years ago steps through every day since). A rule that needs more is
 * refused, not cut: the nights after the cut would look free and be placed twice.
 */
const maxSteps = 20_000;
/** Occurrences one feed's rules step through at most, together: reading a feed stays within seconds. */
const maxFeedSteps = 100_000;
/** Occurrences in the window one feed may take at most (a daily rule takes one a day); beyond, the feed is refused. */
const maxFeedOccurrences = 5_000;

const isoOf = (t: ICAL.Time) => `${String(t.year).padStart(4, '0')}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
const dayBefore = (iso: string) => new Date(Date.parse(`${iso}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/**
 * The nights an occurrence takes: from its start's date to the night before its end's date (a
 * check-out morning frees that night), in the event's own time zone; an event within one day (or
 * without an end) takes that day's night. Undefined when it ends before it starts.
 */
function nights(start: ICAL.Time, end: ICAL.Time | null): { start_date: string; end_date: string } | undefined {
  const first = isoOf(start);
  const endDay = end ? isoOf(end) : first;
  if (endDay < first) return undefined;
  return { start_date: first, end_date: endDay > first ? dayBefore(endDay) : first };
}

/**
 * The night ranges of a feed that touch [from, to] (inclusive dates), clipped to it: past stays and
 * a rule repeating forever do not fill the calendar. Cancelled and transparent (free) events take no
 * night. Throws NotICalendar when the text is not an iCalendar object.
 */
export function importedRanges(text: string, window: { from: string; to: string }): ImportedRange[] {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as never);
  } catch (error) {
    throw new NotICalendar(`not iCalendar: ${(error as Error).message}`);
  }
  if (root.name !== 'vcalendar') throw new NotICalendar(`not iCalendar: the top component is ${root.name || 'missing'}`);
  // The feed's own time zone definitions, so that a TZID resolves to the zone it names. ical.js
  // resolves TZIDs through one registry for the whole process: a zone left there would redefine
  // that name for every later feed (another tenant's) and the registry would grow with each new
  // name. So they are there only while this feed is read (synchronously: no other parse runs in
  // between) and what was there before is put back.
  const zones = root.getAllSubcomponents('vtimezone').map((zone) => new ICAL.Timezone(zone)).filter((zone) => zone.tzid && !fixedZones.has(zone.tzid));
  const before = new Map(zones.map((zone) => [zone.tzid, ICAL.TimezoneService.has(zone.tzid) ? ICAL.TimezoneService.get(zone.tzid) : undefined]));
  for (const zone of zones) ICAL.TimezoneService.register(zone);
  try {
    return rangesOf(root, window);
  } finally {
    for (const [tzid, zone] of before) {
      if (zone) ICAL.TimezoneService.register(zone, tzid);
      else ICAL.TimezoneService.remove(tzid);
    }
  }
}

/** Names ical.js defines itself (UTC): a feed does not redefine them. */
const fixedZones = new Set(['UTC', 'Z', 'GMT']);

function rangesOf(root: ICAL.Component, window: { from: string; to: string }): ImportedRange[] {
  const vevents = root.getAllSubcomponents('vevent');
  // Instances moved or cancelled one by one (RECURRENCE-ID) belong to their recurring event.
  const exceptions = new Map<string, ICAL.Component[]>();
  for (const vevent of vevents) {
    if (!vevent.hasProperty('recurrence-id')) continue;
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    exceptions.set(uid, [...(exceptions.get(uid) ?? []), vevent]);
  }

  const cancelled = (c: ICAL.Component) =>
    String(c.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED' ||
    String(c.getFirstPropertyValue('transp') ?? '').toUpperCase() === 'TRANSPARENT';
  const inWindow = (range: { start_date: string; end_date: string }) => range.end_date >= window.from && range.start_date <= window.to;
  const clip = (uid: string, range: { start_date: string; end_date: string }): ImportedRange => ({
    uid,
    start_date: range.start_date < window.from ? window.from : range.start_date,
    end_date: range.end_date > window.to ? window.to : range.end_date,
  });

  const ranges: ImportedRange[] = [];
  let occurrences = 0;
  let feedSteps = 0;
  for (const vevent of vevents) {
    if (vevent.hasProperty('recurrence-id') || !vevent.hasProperty('dtstart')) continue;
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    const event = new ICAL.Event(vevent, { exceptions: exceptions.get(uid) ?? [] });
    if (!event.isRecurring()) {
      const range = cancelled(vevent) ? undefined : nights(event.startDate, event.endDate);
      if (range && inWindow(range)) ranges.push(clip(uid, range));
      continue;
    }
    // A stay is counted in nights: a rule repeating by the second or minute is no booking, and reading it would take for ever.
    const freq = vevent.getAllProperties('rrule').map((rule) => (rule.getFirstValue() as ICAL.Recur).freq).find((f) => f === 'SECONDLY' || f === 'MINUTELY');
    if (freq) throw new Error(`the recurring event ${uid} repeats every ${freq === 'SECONDLY' ? 'second' : 'minute'}: not read`);
    const iterator = event.iterator();
    for (let steps = 0, next = iterator.next(); next; next = iterator.next()) {
      if (++steps > maxSteps) throw new Error(`the recurring event ${uid} repeats too often to be read (more than ${maxSteps} occurrences before ${window.to})`);
      if (++feedSteps > maxFeedSteps) throw new Error(`the calendar's recurring events repeat too often to be read (more than ${maxFeedSteps} occurrences before ${window.to})`);
      const occurrence = event.getOccurrenceDetails(next);
      if (cancelled(occurrence.item.component)) continue;
      const range = nights(occurrence.startDate, occurrence.endDate);
      if (!range) continue;
      if (range.start_date > window.to) break;
      if (!inWindow(range)) continue;
      if (++occurrences > maxFeedOccurrences) throw new Error(`the calendar has more than ${maxFeedOccurrences} occurrences before ${window.to}`);
      ranges.push(clip(uid, range));
    }
  }
  return joined(ranges);
}

const dayAfter = (iso: string) => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Ranges of one event that touch or overlap are one range: a daily rule becomes one block, not hundreds. */
function joined(ranges: ImportedRange[]): ImportedRange[] {
  const sorted = [...ranges].sort((a, b) => a.uid.localeCompare(b.uid) || a.start_date.localeCompare(b.start_date));
  const out: ImportedRange[] = [];
  for (const range of sorted) {
    const last = out.at(-1);
    if (last && last.uid === range.uid && range.start_date <= dayAfter(last.end_date)) {
      if (range.end_date > last.end_date) last.end_date = range.end_date;
    } else {
      out.push({ ...range });
    }
  }
  return out.sort((a, b) => a.start_date.localeCompare(b.start_date) || a.uid.localeCompare(b.uid));
}
