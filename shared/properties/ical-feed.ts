import type { Environment } from '../db/tenant.ts';
import { randomString } from '../keys.ts';
import type { Feed, FeedEventKind } from './calendar-export-repository.ts';

// The iCalendar (RFC 5545) export of a home's calendar, and the tokens in its address.

/** Tokens of sandbox feeds say so, as sandbox API keys do: a test calendar is never mistaken for a live one. */
const tokenPrefix: Record<Environment, string> = { live: 'cal_', sandbox: 'cal_test_' };

export function generateFeedToken(environment: Environment): string {
  return tokenPrefix[environment] + randomString(40);
}

/** A token has this shape; anything else is not looked up at all. */
export const feedTokenShape = /^cal_(test_)?[0-9A-Za-z]{40}$/;

/** What a channel shows for each range: that the nights are taken, never who takes them or why. */
const summaries: Record<FeedEventKind, string> = { booked: 'Booked', held: 'Reserved', blocked: 'Not available' };

const day = (iso: string) => iso.replaceAll('-', '');
const nextDay = (iso: string) => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const stamp = (at: Date) => `${at.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;

/**
 * The feed as text/calendar: one all-day event per range, DTEND the day after the last night taken
 * (RFC 5545's end is exclusive, so a range ending on a move-out morning frees that night). The UID
 * is the stay's or the block's own and does not change with its dates, so a channel moves the event
 * it has instead of adding one. Lines end in CRLF; none is long enough to need folding.
 */
export function renderFeed(feed: Feed, domain: string): string {
  const dtstamp = stamp(feed.changedAt);
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Housing Placement Service//Calendar export//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    ...feed.events.flatMap((event) => [
      'BEGIN:VEVENT',
      `UID:${event.uid}@${domain}`,
      `DTSTAMP:${dtstamp}`,
      `DTSTART;VALUE=DATE:${day(event.start_date)}`,
      `DTEND;VALUE=DATE:${day(nextDay(event.end_date))}`,
      `SUMMARY:${summaries[event.kind]}`,
      'TRANSP:OPAQUE',
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  ];
  return `${lines.join('\r\n')}\r\n`;
}
