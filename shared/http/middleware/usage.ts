import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.ts';
import { withTenant } from '../../db/tenant.ts';
import { log, errorFields } from '../../log.ts';

/** Counts every authenticated request per key, day and status class (read back by GET /usage). */
export const countUsage = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  const caller = c.get('caller');
  if (!caller) return;
  const statusClass = `${Math.floor(c.res.status / 100)}xx`;
  await withTenant(caller, (tx) => tx`
    insert into app.usage_daily as u (org_id, environment, key_id, day, status_class, count)
    values (${caller.orgId}, ${caller.environment}, ${caller.keyId}, (now() at time zone 'utc')::date, ${statusClass}, 1)
    on conflict (key_id, day, status_class) do update set count = u.count + 1`).catch((error) => {
    // Counting is bookkeeping: it never fails the request it counts.
    log.error('usage not counted', { request_id: c.get('requestId'), ...errorFields(error) });
  });
};
