import { db, type Sql } from '../db/client.ts';

// Events are kept 90 days (specification, Limits); their deliveries go with them, and the hourly run
// also forgets Idempotency-Keys past 48 hours and unused rate windows. app.purge_expired_batch holds
// the rules and deletes one bounded batch of each kind; pg_cron calls app.purge_expired (batches,
// committed one by one) hourly on Supabase, the local server's timer calls this elsewhere.

/** What one batch deleted, by kind. */
export interface PurgedBatch {
  events: number;
  pings: number;
  idempotency_keys: number;
  rate_windows: number;
}

/** The default batch: about 1,000 events and their 2,500 deliveries, a few tens of milliseconds of locks. */
export const purgeBatch = 1000;

/**
 * Deletes what is past retention, one batch per call of app.purge_expired_batch until a batch finds
 * less than a batch of every kind. Each call is a statement on its own, so its own transaction: no lock or snapshot outlives
 * its batch, and writes never wait for the whole purge. Returns how many rows were deleted in all.
 */
export async function purgeExpiredEvents(sql: Sql = db(), batch = purgeBatch, onBatch?: (purged: PurgedBatch) => void): Promise<number> {
  let total = 0;
  for (;;) {
    const [purged] = await sql<PurgedBatch[]>`select events, pings, idempotency_keys, rate_windows from app.purge_expired_batch(${batch})`;
    onBatch?.(purged);
    const counts = [purged.events, purged.pings, purged.idempotency_keys, purged.rate_windows];
    total += counts.reduce((sum, count) => sum + count, 0);
    // A batch that found fewer than it may take of every kind has left nothing behind.
    if (counts.every((count) => count < batch)) return total;
  }
}
