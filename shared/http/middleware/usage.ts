import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.ts';
import { db, onCloseDb } from '../../db/client.ts';
import { log, errorFields } from '../../log.ts';

/**
 * Usage counting (read back by GET /usage) off the request path: every authenticated request is
 * added up in memory per key, UTC day and status class, and the sums are written in one statement
 * about once a second (app.add_usage, committed asynchronously). A request never waits for a usage
 * write, and no two requests contend for a usage row. GET /usage writes this process's pending
 * counts before it reads, and the pool writes them before it closes; a process that dies loses at
 * most its last second of counts (other processes' last second shows up within a second).
 */
interface Count {
  org_id: string;
  environment: string;
  key_id: string;
  day: string;
  status_class: string;
  count: number;
}

const flushAfterMs = 1000;
let pending = new Map<string, Count>();
let timer: ReturnType<typeof setTimeout> | undefined;

function schedule() {
  if (timer) return;
  timer = setTimeout(() => {
    timer = undefined;
    void flushUsage();
  }, flushAfterMs);
  // A waiting flush does not keep a process alive: shutdown writes the counts through closeDb.
  (timer as { unref?: () => void }).unref?.();
}

/** Writes the counts held so far. Counting is bookkeeping: a batch that cannot be written is logged and dropped. */
export async function flushUsage(): Promise<void> {
  // Called early (GET /usage, shutdown), the write due later has nothing left to write.
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (pending.size === 0) return;
  const batch = [...pending.values()];
  pending = new Map();
  try {
    await db()`select app.add_usage(${db().json(batch as never)})`;
  } catch (error) {
    log.error('usage not written', { rows: batch.length, requests: batch.reduce((n, c) => n + c.count, 0), ...errorFields(error) });
  }
}


onCloseDb(flushUsage);

/** Counts every authenticated request per key, day and status class, once its status is known. */
export const countUsage = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  const caller = c.get('caller');
  if (!caller) return;
  const day = new Date().toISOString().slice(0, 10);
  const statusClass = `${Math.floor(c.res.status / 100)}xx`;
  const key = `${caller.keyId} ${day} ${statusClass}`;
  const held = pending.get(key);
  if (held) held.count += 1;
  else pending.set(key, { org_id: caller.orgId, environment: caller.environment, key_id: caller.keyId, day, status_class: statusClass, count: 1 });
  schedule();
};
