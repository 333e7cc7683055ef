import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.ts';
import { log, logs } from '../../log.ts';
import { setResponseHeaders } from '../headers.ts';

const acceptable = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * Headers every answer of the service carries, set with the request id in one place: no browser
 * guesses a content type (nosniff), and a browser that reached the service over HTTPS keeps to it.
 */
const everyAnswer = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
};

/** The functions whose next segment is a link's token: the pages (`/pay/setup/<token>` too) and the calendar feed. */
const tokenPages: Record<string, string> = { pay: '[link]', household: '[link]', calendar: '[feed]' };

/** A signed link's token, whole or in part (its header and its claims each start `eyJ`), and a calendar feed's token. */
const linkToken = /eyJ[A-Za-z0-9_-]{6,}|[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;
const feedToken = /cal_(test_)?[0-9A-Za-z]{8,}/;

/**
 * A segment as the router reads it: percent-decoded, again while it still decodes (a token sent
 * encoded twice is still a token to whoever reads the log); one that does not decode stays as sent.
 */
function decoded(segment: string): string {
  let text = segment;
  for (let round = 0; round < 4 && text.includes('%'); round++) {
    try {
      text = decodeURIComponent(text);
    } catch {
      break;
    }
  }
  return text;
}

/**
 * A path as it is logged: a signed link in it (the pay page, the household's page, a payout-setup
 * link) and a calendar feed's address are their holder's only credential, so they are never written
 * to a log. A page's token segment is hidden whatever it holds; any other segment that reads, once
 * decoded, as a token or a part of one is hidden too. A segment is judged decoded (the router decodes
 * `%2E` to `.`) and written as sent.
 */
export function loggablePath(pathname: string): string {
  const segments = pathname.split('/');
  const readable = segments.map(decoded);
  // On the local server the function's path starts after /functions/v1; on Supabase it starts there.
  const page = readable[1] === 'functions' && readable[2] === 'v1' ? 3 : 1;
  const hidden = tokenPages[readable[page]];
  const tokenAt = hidden === undefined ? -1 : readable[page] === 'pay' && readable[page + 1] === 'setup' ? page + 2 : page + 1;
  return segments.map((segment, i) => {
    if (i === tokenAt && segment !== '') return hidden;
    if (feedToken.test(readable[i])) return '[feed]';
    if (linkToken.test(readable[i])) return '[link]';
    return segment;
  }).join('/');
}

/**
 * Takes the caller's X-Request-Id (or makes one), echoes it with the headers every answer carries,
 * and logs one line per request.
 */
export const requestId = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const given = c.req.header('x-request-id');
  const id = given && acceptable.test(given) ? given : `req_${crypto.randomUUID().replaceAll('-', '')}`;
  c.set('requestId', id);
  const started = performance.now();
  await next();
  setResponseHeaders(c, { 'X-Request-Id': id, ...everyAnswer });
  if (!logs('info')) return;
  const caller = c.get('caller');
  log.info('request', {
    request_id: id,
    method: c.req.method,
    path: loggablePath(new URL(c.req.url).pathname),
    status: c.res.status,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    ...(caller ? { org_id: caller.orgId, key_id: caller.keyId, environment: caller.environment } : {}),
  });
};
