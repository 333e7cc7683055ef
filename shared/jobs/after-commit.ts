import { boolSetting } from '../config.ts';
import { errorFields, log } from '../log.ts';
import { runDueJobs, type JobRegistry } from './runner.ts';

// Starting a job right after the operation that queued it commits, in the same process, without the
// caller waiting for it. The job row is already committed: this only saves the wait for the
// scheduler's next tick. If the process dies first, or this run fails, the scheduler (pg_cron on
// Supabase, the local ticker) runs the job as any other; if the scheduler claims it first, this run
// finds nothing to claim (the claim is FOR UPDATE SKIP LOCKED). Running it twice is safe either way.
//
// Runs are batched, as group commit batches flushes: while one run is going, the jobs that later
// commits start wait for it and then run together, in one claim (and one handler run for a kind
// that takes several at once, such as sourcing). A job alone starts at once; under load the work of
// a run is shared by every creation that committed meanwhile, instead of repeated per creation.

interface EdgeRuntimeGlobal {
  EdgeRuntime?: { waitUntil(promise: Promise<unknown>): void };
}

/** The jobs waiting for the next run of one registry, and the promise that settles when that run ends. */
interface Waiting {
  registry: JobRegistry;
  ids: string[];
  ended: Promise<void>;
  end: () => void;
}

/** One lane per registry (by its kinds): at most one run going and one batch waiting. */
interface Lane {
  running?: Promise<void>;
  waiting?: Waiting;
}

const lanes = new Map<string, Lane>();

/** Hands the jobs of runAfterCommit to a runner elsewhere (the local server: its background thread). */
export type AfterCommitHandOff = (kinds: string[], ids: readonly string[]) => void;
let handOff: AfterCommitHandOff | undefined;

/**
 * Where runAfterCommit's jobs run instead of this process's event loop: the local server hands them
 * to its background thread (scripts/lib/background.ts), which runs them as runAfterCommit does here.
 * Undefined runs them here again. Returns what was used before.
 */
export function runAfterCommitElsewhere(next: AfterCommitHandOff | undefined): AfterCommitHandOff | undefined {
  const previous = handOff;
  handOff = next;
  return previous;
}

function startNext(lane: Lane): void {
  const batch = lane.waiting;
  lane.waiting = undefined;
  if (!batch) return;
  lane.running = runDueJobs({ registry: batch.registry, ids: batch.ids })
    .then((report) => {
      if (report.failed > 0) log.warn('job started after commit failed; the scheduler retries it', { jobs: batch.ids, ...report });
    })
    .catch((error) => log.error('job not started after commit; the scheduler runs it', { jobs: batch.ids, ...errorFields(error) }))
    .finally(() => {
      lane.running = undefined;
      batch.end();
      startNext(lane);
    });
}

/**
 * Runs the given jobs now, in the background, or with the run after the one going. On the Supabase
 * Edge Runtime the run is handed to EdgeRuntime.waitUntil, which keeps the worker alive after the
 * response until it ends. JOBS_RUN_AFTER_COMMIT=false leaves every such job to the scheduler.
 */
export function runAfterCommit(registry: JobRegistry, ids: readonly string[]): void {
  if (ids.length === 0 || !boolSetting('JOBS_RUN_AFTER_COMMIT', true)) return;
  if (handOff) return handOff(Object.keys(registry), ids);
  const key = Object.keys(registry).sort().join(' ');
  const lane = lanes.get(key) ?? lanes.set(key, {}).get(key)!;
  if (!lane.waiting) {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    lane.waiting = { registry, ids: [], ended, end };
  }
  lane.waiting.ids.push(...ids);
  const ended = lane.waiting.ended;
  if (!lane.running) startNext(lane);
  (globalThis as EdgeRuntimeGlobal).EdgeRuntime?.waitUntil(ended);
}

/** Waits for the runs started after commit, and the batches waiting for them (before the pool closes on shutdown). */
export async function settleRunsAfterCommit(): Promise<void> {
  for (;;) {
    const going = [...lanes.values()].flatMap((lane) => [lane.running, lane.waiting?.ended].filter((p) => p !== undefined));
    if (going.length === 0) return;
    await Promise.all(going);
  }
}
