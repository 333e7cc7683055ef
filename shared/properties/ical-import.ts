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
 * daily rule that started years ago steps through every day since: 5,000 reach back about 11 years
 * before a two-year window). A rule that needs more is refused, not cut: the nights after the cut
 * would look free and be placed twice.
 */
const maxSteps = 5_000;
/**
 * Steps one feed's reading takes at most: each candidate date ical.js's rule iterators try (the
 * time zones' rules included) and each occurrence read. Counted inside the iterator, not only per
 * occurrence, because a rule whose parts never match (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) yields
 * nothing and would otherwise turn for ever inside one step. A step costs ical.js 5 to 30
 * microseconds. On the Edge Runtime a reading runs in the dispatcher function's invocation, whose
 * CPU time is capped at 2 s, and nothing else stops it: at 60,000 steps the costliest feed accepted
 * took 1.6 to 1.9 s; at 15,000 it takes well under half of the cap (npm run bench:calendar,
 * tests/operations/edge-limits.test.ts).
 */
const maxFeedSteps = 15_000;
/** Events one feed may hold, moved instances included: each is read, whatever the window keeps of it. */
const maxEvents = 5_000;
/** Moved or cancelled instances (RECURRENCE-ID) one feed may hold. */
const maxMovedInstances = 1_000;
/** Nights ranges one feed may take in the window, single events and occurrences alike, before ranges are joined; beyond, the feed is refused. */
const maxFeedOccurrences = 5_000;

/** The limits above, for the feeds the tests and the bench build at them. */
export const feedLimits = { maxSteps, maxFeedSteps, maxEvents, maxMovedInstances, maxFeedOccurrences } as const;

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

/** The dates nights are read between (inclusive). */
export interface ImportWindow {
  from: string;
  to: string;
}

/**
 * Steps left in the feed being read (see maxFeedSteps); unlimited between reads. ical.js's rule
 * iterators take one for each candidate they try, so a read stops at the budget wherever ical.js is
 * stepping: an event's rule or, from inside a time conversion, a time zone's.
 */
let stepsLeft = Number.POSITIVE_INFINITY;
/** The window's end of the feed being read, for the refusal's message. */
let readingTo = '';
function step() {
  if (--stepsLeft < 0) throw new Error(`the calendar's rules need more than ${maxFeedSteps} steps to be read up to ${readingTo}`);
}
const checkRule = ICAL.RecurIterator.prototype.check_contracting_rules;
ICAL.RecurIterator.prototype.check_contracting_rules = function (this: ICAL.RecurIterator) {
  step();
  return checkRule.call(this);
};

/**
 * The night ranges of a feed that touch [from, to] (inclusive dates), clipped to it: past stays and
 * a rule repeating forever do not fill the calendar. Cancelled and transparent (free) events take no
 * night. Throws NotICalendar when the text is not an iCalendar object, and an Error saying why when
 * the feed is beyond what is read (the limits above): a feed is read whole or not at all.
 */
export function importedRanges(text: string, window: ImportWindow): ImportedRange[] {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as never);
  } catch (error) {
    throw new NotICalendar(`not iCalendar: ${(error as Error).message}`);
  }
  if (root.name !== 'vcalendar') throw new NotICalendar(`not iCalendar: the top component is ${root.name || 'missing'}`);
  const vtimezones = root.getAllSubcomponents('vtimezone');
  refuseRestlessZones(vtimezones);
  // The feed's own time zone definitions, so that a TZID resolves to the zone it names. ical.js
  // resolves TZIDs through one registry for the whole process: a zone left there would redefine
  // that name for every later feed (another tenant's) and the registry would grow with each new
  // name. So they are there only while this feed is read (synchronously: no other parse runs in
  // between) and what was there before is put back.
  const zones = vtimezones.map((zone) => new ICAL.Timezone(zone)).filter((zone) => zone.tzid && !fixedZones.has(zone.tzid));
  const before = new Map(zones.map((zone) => [zone.tzid, ICAL.TimezoneService.has(zone.tzid) ? ICAL.TimezoneService.get(zone.tzid) : undefined]));
  for (const zone of zones) ICAL.TimezoneService.register(zone);
  stepsLeft = maxFeedSteps;
  readingTo = window.to;
  try {
    return rangesOf(root, window);
  } finally {
    stepsLeft = Number.POSITIVE_INFINITY;
    for (const [tzid, zone] of before) {
      if (zone) ICAL.TimezoneService.register(zone, tzid);
      else ICAL.TimezoneService.remove(tzid);
    }
  }
}

/** Names ical.js defines itself (UTC): a feed does not redefine them. */
const fixedZones = new Set(['UTC', 'Z', 'GMT']);

/**
 * A zone's offset changes at most a few times a year (summer time), so its rules repeat yearly. One
 * repeating hourly from 1601 is no zone: ical.js would expand every change up to each time
 * converted (millions of them, gigabytes). Refused, not cut: no time in such a zone can be trusted.
 */
function refuseRestlessZones(vtimezones: ICAL.Component[]) {
  for (const vtimezone of vtimezones) {
    for (const observance of vtimezone.getAllSubcomponents()) {
      for (const rule of observance.getAllProperties('rrule')) {
        const freq = (rule.getFirstValue() as ICAL.Recur).freq;
        if (freq !== 'YEARLY') throw new Error(`the time zone ${String(vtimezone.getFirstPropertyValue('tzid') ?? '')} changes ${freq.toLowerCase()}, not yearly: not read`);
      }
    }
  }
}

function rangesOf(root: ICAL.Component, window: ImportWindow): ImportedRange[] {
  const vevents = root.getAllSubcomponents('vevent');
  if (vevents.length > maxEvents) throw new Error(`the calendar has ${vevents.length} events, more than the ${maxEvents} read`);
  // Instances moved or cancelled one by one (RECURRENCE-ID) belong to their recurring event.
  const moved = new Map<string, ICAL.Component[]>();
  let movedCount = 0;
  for (const vevent of vevents) {
    if (!vevent.hasProperty('recurrence-id')) continue;
    if (++movedCount > maxMovedInstances) throw new Error(`the calendar has more than ${maxMovedInstances} moved or cancelled instances`);
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    const list = moved.get(uid);
    if (list) list.push(vevent);
    else moved.set(uid, [vevent]);
  }
  // Each UID's moved instances are related once, and every recurring event of that UID looks them
  // up there: ical.js would otherwise relate them all again for each event sharing the UID.
  const relatedByUid = new Map<string, ICAL.Event>();
  const relatedOf = (uid: string) => {
    let related = relatedByUid.get(uid);
    if (!related) relatedByUid.set(uid, (related = new ICAL.Event(new ICAL.Component('vevent'), { exceptions: moved.get(uid) ?? [] })));
    return related;
  };

  const cancelled = (c: ICAL.Component) =>
    String(c.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED' ||
    String(c.getFirstPropertyValue('transp') ?? '').toUpperCase() === 'TRANSPARENT';
  const inWindow = (range: { start_date: string; end_date: string }) => range.end_date >= window.from && range.start_date <= window.to;
  const ranges: ImportedRange[] = [];
  let occurrences = 0;
  const take = (uid: string, range: { start_date: string; end_date: string }) => {
    if (++occurrences > maxFeedOccurrences) throw new Error(`the calendar takes nights more than ${maxFeedOccurrences} times before ${window.to}`);
    ranges.push({
      uid,
      start_date: range.start_date < window.from ? window.from : range.start_date,
      end_date: range.end_date > window.to ? window.to : range.end_date,
    });
  };

  for (const vevent of vevents) {
    if (vevent.hasProperty('recurrence-id') || !vevent.hasProperty('dtstart')) continue;
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    // Exceptions given (none): ical.js would otherwise scan the whole feed for them, for each event.
    const event = new ICAL.Event(vevent, { exceptions: [] });
    if (!event.isRecurring()) {
      const range = cancelled(vevent) ? undefined : nights(event.startDate, event.endDate);
      if (range && inWindow(range)) take(uid, range);
      continue;
    }
    // A stay is counted in nights: a rule repeating by the second or minute is no booking, and reading it would take for ever.
    const freq = vevent.getAllProperties('rrule').map((rule) => (rule.getFirstValue() as ICAL.Recur).freq).find((f) => f === 'SECONDLY' || f === 'MINUTELY');
    if (freq) throw new Error(`the recurring event ${uid} repeats every ${freq === 'SECONDLY' ? 'second' : 'minute'}: not read`);
    const related = relatedOf(uid);
    event.exceptions = related.exceptions;
    event.rangeExceptions = related.rangeExceptions;
    const iterator = event.iterator();
    for (let steps = 0, next = iterator.next(); next; next = iterator.next()) {
      if (++steps > maxSteps) throw new Error(`the recurring event ${uid} repeats too often to be read (more than ${maxSteps} occurrences before ${window.to})`);
      step();
      const occurrence = event.getOccurrenceDetails(next);
      if (cancelled(occurrence.item.component)) continue;
      const range = nights(occurrence.startDate, occurrence.endDate);
      if (!range) continue;
      if (range.start_date > window.to) break;
      if (inWindow(range)) take(uid, range);
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
