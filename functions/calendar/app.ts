import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../shared/http/context.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { errorFields, log } from '../../shared/log.ts';
import { feedByTokenHash } from '../../shared/properties/calendar-export-repository.ts';
import { feedTokenShape, renderFeed } from '../../shared/properties/ical-feed.ts';
import { publicBaseUrl } from '../../shared/http/public-url.ts';

// A home's calendar for the other channels it is listed on: GET /calendar/<token>.ics answers the
// iCalendar feed. Channels poll it without headers, so the token in the address is its only
// credential (issued, rotated and revoked through POST/DELETE /properties/{ref}/calendar-export).
// Pollers come back every few minutes: ETag and Last-Modified let them be answered 304 without the body.

/** Refusals speak the API's error envelope: the provider who pasted a wrong address reads why in the channel's error log. */
const refused = (c: Context<AppEnv>, error: ApiError) =>
  c.json(error.toBody(), error.status as 404 | 500, { 'Cache-Control': 'no-store' });

/** An HTTP date has whole seconds: the feed's change time is compared at that precision. */
const toSecond = (at: Date) => Math.floor(at.getTime() / 1000) * 1000;

function notModified(c: Context<AppEnv>, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = c.req.header('if-none-match');
  // If-None-Match wins over If-Modified-Since when both are sent (RFC 9110 13.2.2).
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag.replace(/^W\//, ''));
  }
  const since = Date.parse(c.req.header('if-modified-since') ?? '');
  return !Number.isNaN(since) && toSecond(lastModified) <= since;
}

export function createCalendarApp() {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());

  app.get('/calendar/:file', async (c) => {
    const token = c.req.param('file').replace(/\.ics$/, '');
    const feed = feedTokenShape.test(token) ? await feedByTokenHash(await sha256Hex(token)) : undefined;
    if (!feed) return refused(c, new ApiError('not_found', 'No calendar at this address: it was never issued, or it was replaced or revoked.'));
    const body = renderFeed(feed, new URL(publicBaseUrl()).hostname);
    const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`;
    const headers = {
      ETag: etag,
      'Last-Modified': new Date(toSecond(feed.changedAt)).toUTCString(),
      // Every poll asks again (a cancellation here must reach the channels on their next poll), cheaply with the validators.
      'Cache-Control': 'private, no-cache',
      'X-Robots-Tag': 'noindex',
      'Referrer-Policy': 'no-referrer',
    };
    if (notModified(c, etag, feed.changedAt)) return c.body(null, 304, headers);
    return c.body(body, 200, { ...headers, 'Content-Type': 'text/calendar; charset=utf-8' });
  });

  app.all('*', (c) => refused(c, new ApiError('not_found', 'No calendar at this address.')));
  app.onError((error, c) => {
    log.error('calendar feed failed', { request_id: c.get('requestId'), ...errorFields(error) });
    return refused(c, new ApiError('server_error', 'The calendar could not be read just now; try again shortly.'));
  });
  return app;
}

export const app = createCalendarApp();
