import { db, type Sql } from '../db/client.ts';
import { pause } from '../pause.ts';

// Events are kept 90 days (specification, Limits); their deliveries go with them, and the hourly run
// also forgets Idempotency-Keys past 48 hours and unused rate windows. app.purge_expired_batch holds
// the rules and deletes one bounded batch of each kind; pg_cron calls app.purge_expired (batches,
// committed one by one, each followed by a pause) hourly on Supabase, the local server's timer calls
// this elsewhere, with the same batch and the same pause.

/** What one batch deleted, by kind. */
export interface PurgedBatch {
  events: number;
  pings: number;
  idempotency_keys: number;
  rate_windows: number;
}

/** The default batch: about 250 events and their 600 deliveries, some 15 ms of work. */
export const purgeBatch = 250;

/**
 * After each batch the purge waits this many times as long as the batch took, so that it takes at
 * most a quarter of one core: on two cores a purge that ran back to back slowed every write made
 * during it by half (docs/performance.md, The purge gives way). pg_cron's procedure has the same default.
 */
export const purgeGivesWay = 3;

export interface PurgeOptions {
  /** At most this many rows of each kind a batch. */
  batch?: number;
  /** The pause after a batch, in multiples of the batch's own time (0: none). */
  giveWay?: number;
  /** Called after each batch with what it deleted and how long it took. */
  onBatch?: (purged: PurgedBatch, ms: number) => void;
  /** Stops the purge after the batch in progress (the server stopping); the rest is left for the next run. */
  signal?: AbortSignal;
}

/**
 * Deletes what is past retention, one batch per call of app.purge_expired_batch until a batch finds
 * less than a batch of every kind, or `signal` aborts. Each call is a statement on its own, so its own transaction: no lock or snapshot outlives
 * its batch, and writes never wait for the whole purge. Between batches it gives way (purgeGivesWay).
 * Returns how many rows were deleted in all.
 */
export async function purgeExpiredEvents(sql: Sql = db(), options: PurgeOptions = {}): Promise<number> {
  const { batch = purgeBatch, giveWay = purgeGivesWay, onBatch, signal } = options;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const [purged] = await sql<PurgedBatch[]>`select events, pings, idempotency_keys, rate_windows from app.purge_expired_batch(${batch})`;
    const ms = performance.now() - started;
    onBatch?.(purged, ms);
    const counts = [purged.events, purged.pings, purged.idempotency_keys, purged.rate_windows];
    total += counts.reduce((sum, count) => sum + count, 0);
    // A batch that found fewer than it may take of every kind has left nothing behind.
    if (counts.every((count) => count < batch) || signal?.aborted) return total;
    if (giveWay > 0) await pause(giveWay * ms, signal);
    // Most of a purge is its pauses: a stop usually arrives during one, and ends the purge there.
    if (signal?.aborted) return total;
  }
}
