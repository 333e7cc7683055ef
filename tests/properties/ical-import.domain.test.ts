// Other channels' iCalendar exports as they really come (Airbnb's, Vrbo's, Google Calendar's) read
// into the nights they take.
import { readFileSync } from 'node:fs';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { feedLimits, importedRanges, NotICalendar } from '../../shared/properties/ical-import.ts';
import { movedInstancesSharingOneUid, singleNights } from '../fixtures/ical/generated.ts';

const feed = (name: string) => readFileSync(new URL(`../fixtures/ical/${name}.ics`, import.meta.url), 'utf8');
const window = { from: '2026-11-26', to: '2027-09-03' };
const onDay = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
const inline = (lines: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');

describe('reading another channel\'s calendar', () => {
  it("Airbnb's export: all-day DATE events whose DTEND is the check-out day; stays already over are left out", () => {
    expect(importedRanges(feed('airbnb'), window)).toEqual([
      { uid: '1418fb94e984-8ba6f3ad3c9d4e5b2a1c0f9e8d7c6b5a@airbnb.com', start_date: '2027-01-05', end_date: '2027-01-09' },
      { uid: '7f3d2e1c0b9a-0a1b2c3d4e5f60718293a4b5c6d7e8f9@airbnb.com', start_date: '2027-02-15', end_date: '2027-02-28' },
    ]);
  });

  it("Vrbo's export: a cancelled reservation takes no night; a block without DTEND takes its one day", () => {
    expect(importedRanges(feed('vrbo'), window)).toEqual([
      { uid: 'd1e2f3a4-b5c6-4789-8abc-def012345678@vrbo.com', start_date: '2027-04-01', end_date: '2027-04-07' },
      { uid: 'owner-hold-1@vrbo.com', start_date: '2027-05-01', end_date: '2027-05-01' },
    ]);
  });

  it("Google Calendar's export: timed events in their TZID, a weekly rule with an EXDATE and a cancelled instance, a free event, a rule without end", () => {
    expect(importedRanges(feed('google'), window)).toEqual([
      // 15:00 on the 10th to 11:00 on the 12th, Chicago time: the nights of the 10th and 11th.
      { uid: '5k2j3h4g5f6d7s8a9@google.com', start_date: '2027-05-10', end_date: '2027-05-11' },
      // 23:00 to 01:00 the next day, local: the night it starts on (in UTC it would be the 2nd).
      { uid: 'late-night@google.com', start_date: '2027-06-01', end_date: '2027-06-01' },
      // Saturdays 3, 10 (EXDATE), 17, 24 (cancelled by its RECURRENCE-ID instance).
      { uid: 'cleaning@google.com', start_date: '2027-07-03', end_date: '2027-07-03' },
      { uid: 'cleaning@google.com', start_date: '2027-07-17', end_date: '2027-07-17' },
      // Daily for ever from 1 September: one range, cut at the window's end.
      { uid: 'forever@google.com', start_date: '2027-09-01', end_date: '2027-09-03' },
    ]);
  });

  it('refuses what is not iCalendar: an HTML page, JSON, a truncated feed, a vCard', () => {
    const truncated = feed('airbnb').slice(0, 200);
    for (const text of ['<!doctype html><title>Log in</title>', '{"events": []}', truncated, 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\n', '']) {
      expect(() => importedRanges(text, window), JSON.stringify(text.slice(0, 30))).toThrow(NotICalendar);
    }
  });

  it('a rule that started years before the window still takes its nights in it (its past occurrences are not counted toward the cap)', () => {
    const text = inline(['BEGIN:VEVENT', 'UID:owner-daily@channel.example', 'DTSTART;VALUE=DATE:20200101', 'DTEND;VALUE=DATE:20200102', 'RRULE:FREQ=DAILY', 'SUMMARY:Owner use', 'END:VEVENT']);
    expect(importedRanges(text, window)).toEqual([{ uid: 'owner-daily@channel.example', start_date: window.from, end_date: window.to }]);
  });

  it('refuses a rule it cannot read to its end in the window rather than leaving the later nights free', () => {
    const text = inline(['BEGIN:VEVENT', 'UID:hourly@channel.example', 'DTSTART:19700101T000000Z', 'DTEND:19700101T010000Z', 'RRULE:FREQ=HOURLY', 'END:VEVENT']);
    expect(() => importedRanges(text, window)).toThrow(/repeats too often to be read/);
  });

  it("one feed's time zone definitions do not change how another feed is read, and are not kept", () => {
    // Feed B names America/New_York without defining it; its Saturday 23:00 instance is cancelled by
    // a RECURRENCE-ID in UTC that only a zone seven hours behind UTC would match.
    const b = inline([
      'BEGIN:VEVENT', 'UID:weekly@b.example', 'DTSTART;TZID=America/New_York:20270703T230000', 'DTEND;TZID=America/New_York:20270703T233000', 'RRULE:FREQ=WEEKLY;COUNT=3', 'END:VEVENT',
      'BEGIN:VEVENT', 'UID:weekly@b.example', 'RECURRENCE-ID:20270704T060000Z', 'DTSTART;TZID=America/New_York:20270703T230000', 'STATUS:CANCELLED', 'END:VEVENT',
    ]);
    // Feed A, another tenant's, redefines America/New_York as that zone.
    const a = inline([
      'BEGIN:VTIMEZONE', 'TZID:America/New_York', 'BEGIN:STANDARD', 'DTSTART:19700101T000000', 'TZOFFSETFROM:-0700', 'TZOFFSETTO:-0700', 'END:STANDARD', 'END:VTIMEZONE',
      'BEGIN:VEVENT', 'UID:a@a.example', 'DTSTART;TZID=America/New_York:20270101T120000', 'DTEND;TZID=America/New_York:20270101T130000', 'END:VEVENT',
    ]);
    const before = importedRanges(b, window);
    expect(before.map((r) => r.start_date)).toEqual(['2027-07-03', '2027-07-10', '2027-07-17']);
    expect(importedRanges(a, window)).toHaveLength(1);
    expect(ICAL.TimezoneService.has('America/New_York')).toBe(false);
    expect(importedRanges(b, window)).toEqual(before);
  });

  it('refuses rules repeating every second or minute', () => {
    for (const freq of ['SECONDLY', 'MINUTELY']) {
      const text = inline(['BEGIN:VEVENT', `UID:${freq}@channel.example`, 'DTSTART:20270101T000000Z', 'DTEND:20270101T000001Z', `RRULE:FREQ=${freq};COUNT=2`, 'END:VEVENT']);
      expect(() => importedRanges(text, window), freq).toThrow(/repeats every (second|minute)/);
    }
  });

  // Feeds built to be costly: each is refused as it is read, in well under the time a fetch may take,
  // in this process as on the Edge Runtime (where nothing stops a reading from outside).
  const timed = (text: string) => {
    const started = performance.now();
    try {
      importedRanges(text, window);
      return { ms: performance.now() - started, refused: undefined };
    } catch (error) {
      return { ms: performance.now() - started, refused: (error as Error).message };
    }
  };

  it('refuses a time zone whose offset changes more often than yearly (hourly or minutely since 1601), before expanding it', () => {
    for (const [name, every] of [['timezone-hourly', 'hourly'], ['timezone-minutely', 'minutely']]) {
      const { ms, refused } = timed(feed(name));
      expect(refused, name).toBe(`the time zone Europe/Restless changes ${every}, not yearly: not read`);
      expect(ms, name).toBeLessThan(500);
    }
  });

  it('stops a rule whose parts never match (the 30th of February) at the feed\'s steps, where ical.js would turn for ever', () => {
    const { ms, refused } = timed(feed('rule-never-matches'));
    expect(refused).toBe(`the calendar's rules need more than ${feedLimits.maxFeedSteps} steps to be read up to ${window.to}`);
    expect(ms).toBeLessThan(5_000);
  });

  it('counts events and moved instances as read, and nights taken by single events as by rules', () => {
    expect(timed(singleNights(15_000)).refused).toBe(`the calendar has 15000 events, more than the ${feedLimits.maxEvents} read`);
    expect(timed(movedInstancesSharingOneUid()).refused).toBe(`the calendar has 15400 events, more than the ${feedLimits.maxEvents} read`);
    expect(timed(movedInstancesSharingOneUid(100, 1_001)).refused).toBe(`the calendar has more than ${feedLimits.maxMovedInstances} moved or cancelled instances`);
    // 4,900 one-night stays in the window and a daily rule over it: fewer events than the cap, more nights taken.
    const stays = Array.from({ length: 4_900 }, (_, i) => ['BEGIN:VEVENT', `UID:s${i}`, `DTSTART;VALUE=DATE:${onDay(window.from, i % 200)}`, 'END:VEVENT']);
    const nights = inline([...stays.flat(), 'BEGIN:VEVENT', 'UID:daily', 'DTSTART;VALUE=DATE:20200101', 'RRULE:FREQ=DAILY', 'END:VEVENT']);
    expect(timed(nights).refused).toBe(`the calendar takes nights more than ${feedLimits.maxFeedOccurrences} times before ${window.to}`);
  });

  it('relates the moved instances of a UID once, however many events share it', () => {
    // 3,999 events (each a rule of one occurrence) on consecutive days under one UID, and the most
    // moved instances a feed may have, of that UID: every other day cancelled.
    const first = '2026-06-01';
    const lines: string[] = [];
    for (let i = 0; i < 3_999; i++) lines.push('BEGIN:VEVENT', 'UID:one', `DTSTART;VALUE=DATE:${onDay(first, i)}`, 'RRULE:FREQ=DAILY;COUNT=1', 'END:VEVENT');
    for (let i = 0; i < feedLimits.maxMovedInstances; i++) {
      lines.push('BEGIN:VEVENT', 'UID:one', `RECURRENCE-ID;VALUE=DATE:${onDay(first, 2 * i)}`, `DTSTART;VALUE=DATE:${onDay(first, 2 * i)}`, 'STATUS:CANCELLED', 'END:VEVENT');
    }
    const started = performance.now();
    const ranges = importedRanges(inline(lines), window);
    expect(performance.now() - started).toBeLessThan(3_000);
    const iso = (compact: string) => compact.replace(/(\d{4})(\d{2})(\d{2})/, '$1-$2-$3');
    const kept = Array.from({ length: 2 * feedLimits.maxMovedInstances }, (_, day) => iso(onDay(first, day)))
      .filter((date, day) => day % 2 === 1 && date >= window.from && date <= window.to);
    expect(ranges).toEqual(kept.map((date) => ({ uid: 'one', start_date: date, end_date: date })));
  });
});

