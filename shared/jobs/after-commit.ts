import { boolSetting } from '../config.ts';
import { errorFields, log } from '../log.ts';
import { runDueJobs, type JobRegistry } from './runner.ts';

// Starting a job right after the operation that queued it commits, in the same process, without the
// caller waiting for it. The job row is already committed: this only saves the wait for the
// scheduler's next tick. If the process dies first, or this run fails, the scheduler (pg_cron on
// Supabase, the local ticker) runs the job as any other; if the scheduler claims it first, this run
// finds nothing to claim (the claim is FOR UPDATE SKIP LOCKED). Running it twice is safe either way.

interface EdgeRuntimeGlobal {
  EdgeRuntime?: { waitUntil(promise: Promise<unknown>): void };
}

const running = new Set<Promise<void>>();

/**
 * Runs the given jobs now, in the background. On the Supabase Edge Runtime the run is handed to
 * EdgeRuntime.waitUntil, which keeps the worker alive after the response until it ends.
 * JOBS_RUN_AFTER_COMMIT=false leaves every such job to the scheduler.
 */
export function runAfterCommit(registry: JobRegistry, ids: readonly string[]): void {
  if (ids.length === 0 || !boolSetting('JOBS_RUN_AFTER_COMMIT', true)) return;
  const run = runDueJobs({ registry, ids: [...ids] })
    .then((report) => {
      if (report.failed > 0) log.warn('job started after commit failed; the scheduler retries it', { jobs: ids, ...report });
    })
    .catch((error) => log.error('job not started after commit; the scheduler runs it', { jobs: ids, ...errorFields(error) }))
    .finally(() => running.delete(run));
  running.add(run);
  (globalThis as EdgeRuntimeGlobal).EdgeRuntime?.waitUntil(run);
}

/** Waits for the runs started after commit that are still going (before the pool closes on shutdown). */
export async function settleRunsAfterCommit(): Promise<void> {
  await Promise.all([...running]);
}
