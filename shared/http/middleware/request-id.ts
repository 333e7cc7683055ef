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

/**
 * A path as it is logged: a signed link in it (the pay page, the household's page, a payout-setup
 * link) is its holder's only credential, so it is never written to a log.
 */
export const loggablePath = (pathname: string) =>
  pathname.replace(/\/[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?=\/|$)/g, '/[link]')
    // A calendar feed's address is its only credential too.
    .replace(/\/cal_(test_)?[0-9A-Za-z]{40}/g, '/[feed]');

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
