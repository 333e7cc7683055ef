import { z } from '@hono/zod-openapi';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, dataOf, defineRoute, jsonResponse } from '../../shared/http/routes.ts';
import { single } from '../../shared/http/envelope.ts';
import { withTenant } from '../../shared/db/tenant.ts';

const Day = z.object({
  day: z.string().openapi({ example: '2026-11-21' }),
  total: z.number().int(),
  '2xx': z.number().int(),
  '3xx': z.number().int(),
  '4xx': z.number().int(),
  '5xx': z.number().int(),
});

const Usage = z
  .object({
    since: z.string().describe('First day covered (UTC), 29 days before today.'),
    key: z.object({ id: z.string().uuid(), total: z.number().int(), days: z.array(Day) }),
    organisation: z.object({
      id: z.string().uuid(),
      environment: z.enum(['live', 'sandbox']),
      total: z.number().int(),
      days: z.array(Day),
    }),
  })
  .openapi('Usage');

const RevokedKey = z.object({ id: z.string().uuid(), revoked_at: z.string() }).openapi('RevokedKey');

interface DayRow {
  day: string;
  status_class: '2xx' | '3xx' | '4xx' | '5xx';
  count: number;
}

/** Rows of (day, status class, count) folded into one entry per day, newest first. */
function foldDays(rows: DayRow[]) {
  const days = new Map<string, z.infer<typeof Day>>();
  for (const row of rows) {
    const day = days.get(row.day) ?? { day: row.day, total: 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
    day[row.status_class] += row.count;
    day.total += row.count;
    days.set(row.day, day);
  }
  const list = [...days.values()].sort((a, b) => (a.day < b.day ? 1 : -1));
  return { total: list.reduce((sum, d) => sum + d.total, 0), days: list };
}

export const routes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      tags: ['Usage'],
      summary: "Request counts of the calling key and its organisation, per day and status class, for the last 30 days",
      description: "Counts cover the key's environment. Each request is counted once it has been authenticated.",
      scope: 'any-read',
      responses: { 200: jsonResponse(dataOf(Usage), 'Usage of the last 30 days (UTC days).') },
    }),
    async (c) => {
      const caller = c.get('caller');
      const { since, keyRows, orgRows } = await withTenant(caller, async (tx) => {
        const [{ since }] = await tx<{ since: string }[]>`select ((now() at time zone 'utc')::date - 29) as since`;
        const orgRows = await tx<(DayRow & { key_id: string })[]>`
          select day, status_class, key_id, count from app.usage_daily where day >= ${since}`;
        return { since, orgRows, keyRows: orgRows.filter((r) => r.key_id === caller.keyId) };
      });
      return c.json(
        single({
          since,
          key: { id: caller.keyId, ...foldDays(keyRows) },
          organisation: { id: caller.orgId, environment: caller.environment, ...foldDays(orgRows) },
        }),
        200,
      );
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/keys/self/revoke',
      tags: ['Usage'],
      summary: 'Revoke the calling key at once',
      description: 'The key stops working for every following request. Create a replacement first (rotation: create, deploy, revoke).',
      scope: 'none',
      responses: { 200: jsonResponse(dataOf(RevokedKey), 'The key is revoked.') },
    }),
    async (c) => {
      const caller = c.get('caller');
      const [row] = await withTenant(caller, (tx) => tx<{ id: string; revoked_at: Date }[]>`
        update app.api_keys set revoked_at = coalesce(revoked_at, now())
         where id = ${caller.keyId} returning id, revoked_at`);
      return c.json(single({ id: row.id, revoked_at: row.revoked_at.toISOString() }), 200);
    },
  );

export const app = createFunctionApp('usage', routes);
