import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import type { Day } from './schemas.ts';

// Usage counts and the calling key. Queries run inside withTenant: row-level security limits them
// to the caller's organisation and environment.

export interface DayRow {
  day: string;
  status_class: '2xx' | '3xx' | '4xx' | '5xx';
  key_id: string;
  count: number;
}

/** The first UTC day of the 30 covered, and the organisation's counts since then, in one statement. */
export async function usageSince(tx: Tx): Promise<{ since: string; rows: DayRow[] }> {
  const rows = await tx<(DayRow & { since: string })[]>`
    with covered as (select ((now() at time zone 'utc')::date - 29) as since)
    select covered.since, u.day, u.status_class, u.key_id, u.count
      from covered left join app.usage_daily u on u.day >= covered.since`;
  return { since: rows[0].since, rows: rows.filter((row) => row.day !== null) };
}

/** Rows of (day, status class, count) folded into one entry per day, newest first. */
export function foldDays(rows: DayRow[]) {
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

/** Revokes the key (at once; a second call keeps the first time). */
export async function revokeKey(tx: Tx, keyId: string): Promise<{ id: string; revoked_at: Date }> {
  const [row] = await tx<{ id: string; revoked_at: Date }[]>`
    update app.api_keys set revoked_at = coalesce(revoked_at, now())
     where id = ${keyId} returning id, revoked_at`;
  return row;
}
