import { db, type Sql } from '../db/client.ts';

// Events are kept 90 days (specification, Limits); their deliveries go with them.
// app.purge_expired_events holds the rule; pg_cron runs it hourly on Supabase, the local
// server's timer does elsewhere.

/** Deletes events past retention; returns how many were deleted. */
export async function purgeExpiredEvents(sql: Sql = db()): Promise<number> {
  const [row] = await sql<{ deleted: number }[]>`select app.purge_expired_events() as deleted`;
  return row.deleted;
}
