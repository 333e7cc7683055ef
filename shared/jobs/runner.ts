import type { Sql } from '../db/client.ts';
import { db } from '../db/client.ts';
import { config, intSetting, setting } from '../config.ts';
import { errorFields, log } from '../log.ts';
import type { CpuClock } from '../cpu-clock.ts';
import { claimJobs, completeJobs, failJob, type JobRow } from './queue.ts';
import type { JobKind, JobPayloads } from './kinds.ts';

// The job runner: a registry of job kinds, each with its handler, drained by the same scheduler that
// delivers webhooks (the webhook-dispatcher function called by pg_cron on Supabase, the local
// server's ticker). Handlers run as the database owner (across tenants, like the dispatcher) and
// must be safe to run twice: a job whose runner dies after the work but before recording it runs
// again when its lease runs out.

export interface JobContext {
  sql: Sql;
  job: JobRow;
  /** For abandoned: why the last attempt failed (what staff.abandoned_jobs shows as last_error). */
  error?: string;
}

export interface JobDefinition<P = Record<string, unknown>, K extends string = string> {
  kind: K;
  /** Does the work; throws to retry with backoff. Returns what is kept with the job (result). */
  run(payload: P, context: JobContext): Promise<unknown>;
  /**
   * Does the work of several claimed jobs of this kind at once, set-based (a kind whose jobs come
   * in bursts: sourcing, one job per creation); resolves to each job's result, in order. A throw
   * fails them all, and each retries on its own. Without it, claimed jobs run one by one.
   */
  runMany?(jobs: (JobRow & { payload: P })[], sql: Sql): Promise<unknown[]>;
  /**
   * Tells the people the work was for that it will not be done: runs once the job's last attempt
   * failed and its abandonment is recorded (a refund never issued: the carrier and the landlord are
   * told), in its own unit of work. At most once: a runner stopped in between leaves the job to
   * staff alone. Every abandoned job is listed for staff (staff.abandoned_jobs, the console's
   * `job list`), with or without this.
   */
  abandoned?(payload: P, context: JobContext): Promise<void>;
}

/**
 * The handlers a runner knows, by kind. Any definition fits (a handler's payload type is its own
 * business); the service's registry is also checked against the typed map (registry.ts).
 */
export type JobRegistry = Readonly<Record<string, JobDefinition<never>>>;

/** The definition of one of the service's job kinds (kinds.ts), its payload typed by the map. */
export type ServiceJob<K extends JobKind> = JobDefinition<JobPayloads[K], K>;

/** The service's registry: exactly one handler per kind of the map, filed under its own kind. */
export type ServiceJobRegistry = { readonly [K in JobKind]: ServiceJob<K> };

export interface RunOptions {
  sql?: Sql;
  registry: JobRegistry;
  /**
   * Jobs running at once (default JOB_CONCURRENCY; with `ids`, all of them in one claim). Each
   * running job holds a connection of the pool, so it stays below DB_POOL_SIZE: requests and the
   * webhook dispatcher share that pool, and must find a connection while a backlog drains.
   * `room` lowers it while it runs: asked before each claim, it says how many of those may run now
   * (the local server gives way to requests waiting to be answered; see scripts/lib/background.ts).
   */
  concurrency?: number;
  room?: (concurrency: number) => number;
  /** Stop claiming after this long. Default: until nothing is due. */
  budgetMs?: number;
  signal?: AbortSignal;
  /** Stop claiming once `cpu` has counted `cpuBudgetMs` of CPU time (see DispatchOptions.cpu). */
  cpu?: CpuClock;
  cpuBudgetMs?: number;
  /** Claim at most this many jobs in this run. Default: no cap. */
  maxClaimed?: number;
  /** Only jobs of these organisations (tests share one database). */
  organisations?: string[];
  /** Only these jobs (the ones an operation just queued and starts itself). */
  ids?: string[];
}

export interface RunReport {
  claimed: number;
  succeeded: number;
  failed: number;
}

/** A job's lease: how long a handler may take before another runner may take the job over. */
const leaseMs = () => intSetting('JOB_LEASE_MS', 60_000);

/**
 * Jobs one runner runs at once (see RunOptions.concurrency): by default one connection fewer than
 * the pool, which is left for the runner's own claims and the dispatcher's deliveries. Measured
 * under the surge (scripts/surge) when requests shared the pool of 10: 4 at once left contracts
 * waiting 3.1 s at p50; 8 brought that to 0.8 s; 16, more than the pool, made reads wait behind
 * jobs for a connection. The background work now has a thread and a pool of its own: the default
 * pool of 3 runs 2 at once, more than one so that a job waiting on a slow third party does not hold
 * up every other.
 */
const jobConcurrency = () => intSetting('JOB_CONCURRENCY', Math.max(1, config.dbPoolSize() - 1));

/** Seconds to wait after failed attempts 1, 2, ...; the last step repeats until max_attempts. */
export function jobRetrySchedule(): number[] {
  const steps = setting('JOB_RETRY_SCHEDULE', '10,60,300,1800,7200,21600').split(',').map((s) => Number(s.trim()));
  if (steps.some((s) => !Number.isFinite(s) || s < 0)) throw new Error('Setting JOB_RETRY_SCHEDULE must be a comma-separated list of seconds');
  return steps;
}

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/**
 * A job that ran out of attempts: one error line (what a log drain alerts on) naming the job and
 * the console command that retries it, then its definition's word to the people concerned. A
 * failure to tell them is logged too; the job stays listed for staff either way.
 */
async function abandoned(definition: JobDefinition<unknown>, job: JobRow, error: unknown, sql: Sql): Promise<void> {
  log.error('job abandoned', {
    job_id: job.id, kind: job.kind, org_id: job.org_id, environment: job.environment, attempts: job.attempts,
    retry: `admin job retry --id ${job.id}`, ...errorFields(error), error: describe(error),
  });
  await definition.abandoned?.(job.payload, { sql, job, error: describe(error) })
    .catch((e) => log.error('abandoned job not announced', { job_id: job.id, kind: job.kind, ...errorFields(e) }));
}

/**
 * Claims due jobs of the registry's kinds and runs them, until nothing is due or the budget is spent.
 * Up to `concurrency` jobs run at once (fewer while `room` says so), and more are claimed as soon as half of that room is free:
 * a slow job holds its own slot, never the jobs claimed with it (a backlog drains at the pace of
 * the work, not of the slowest job of each claim).
 */
export async function runDueJobs(options: RunOptions): Promise<RunReport> {
  const sql = options.sql ?? db();
  // A claimed job's payload is what enqueue's types allowed for its kind; the runner hands it on as read.
  const handlers = new Map<string, JobDefinition<unknown>>(Object.values(options.registry).map((definition) => [definition.kind, definition]));
  if (options.ids?.length === 0) return { claimed: 0, succeeded: 0, failed: 0 };
  // At least one at a time, whatever a setting says (none at all would never claim, and never end).
  const concurrency = options.ids ? options.ids.length : Math.max(1, Math.floor(options.concurrency ?? jobConcurrency()));
  const schedule = jobRetrySchedule();
  const deadline = options.budgetMs === undefined ? Infinity : Date.now() + options.budgetMs;
  const maxClaimed = options.maxClaimed ?? Infinity;
  const cpuBudgetMs = options.cpu && options.cpuBudgetMs !== undefined ? options.cpuBudgetMs : Infinity;
  const report: RunReport = { claimed: 0, succeeded: 0, failed: 0 };
  const mayClaim = () =>
    Date.now() < deadline && !options.signal?.aborted && report.claimed < maxClaimed && (cpuBudgetMs === Infinity || options.cpu!.usedMs() < cpuBudgetMs);
  const failed = async (job: JobRow, error: unknown) => {
    log.warn('job failed', { job_id: job.id, kind: job.kind, attempt: job.attempts, ...errorFields(error) });
    const status = await failJob(sql, job, describe(error), schedule).catch((e) => log.error('job failure not recorded', errorFields(e)));
    report.failed++;
    if (status === 'abandoned') await abandoned(handlers.get(job.kind)!, job, error, sql);
  };
  /** Runs claimed jobs of one kind: together when the kind takes several, else one alone. */
  const run = async (kind: string, claimed: JobRow[]) => {
    const handler = handlers.get(kind)!;
    if (handler.runMany && claimed.length > 1) {
      try {
        const results = await handler.runMany(claimed, sql);
        await completeJobs(sql, claimed.map((job, i) => ({ job, result: results[i] })));
        report.succeeded += claimed.length;
      } catch (error) {
        await Promise.all(claimed.map((job) => failed(job, error)));
      }
      return;
    }
    const [job] = claimed;
    try {
      const result = await handler.run(job.payload, { sql, job });
      await completeJobs(sql, [{ job, result }]);
      report.succeeded++;
    } catch (error) {
      await failed(job, error);
    }
  };

  const running = new Set<Promise<void>>();
  const runningIds = new Set<string>();
  let jobsRunning = 0;
  // The last claim found less than it asked for (or took the given jobs): no claim until a job ends.
  let drained = false;
  const start = (kind: string, claimed: JobRow[]) => {
    jobsRunning += claimed.length;
    for (const job of claimed) runningIds.add(job.id);
    const going: Promise<void> = run(kind, claimed).finally(() => {
      jobsRunning -= claimed.length;
      for (const job of claimed) runningIds.delete(job.id);
      running.delete(going);
    });
    running.add(going);
  };
  try {
    for (;;) {
      // Given way (room): fewer at once, claiming again once half of what is allowed is free.
      const allowed = options.room && !options.ids ? Math.max(1, Math.min(concurrency, options.room(concurrency))) : concurrency;
      const room = allowed - jobsRunning;
      if (!drained && mayClaim() && room >= Math.max(1, Math.floor(allowed / 2))) {
        const jobs = await claimJobs(sql, [...handlers.keys()], Math.min(room, maxClaimed - report.claimed), leaseMs(), { organisations: options.organisations, ids: options.ids, running: [...runningIds] });
        report.claimed += jobs.length;
        drained = jobs.length < room || options.ids !== undefined;
        const byKind = new Map<string, JobRow[]>();
        for (const job of jobs) byKind.set(job.kind, [...(byKind.get(job.kind) ?? []), job]);
        for (const [kind, claimed] of byKind) {
          if (handlers.get(kind)!.runMany) start(kind, claimed);
          else for (const job of claimed) start(kind, [job]);
        }
        // Nothing due and nothing running: the run is over.
        if (jobs.length === 0 && running.size === 0) break;
      }
      if (running.size === 0) {
        if (drained || !mayClaim()) break;
        continue;
      }
      await Promise.race(running);
      // A job ended: what fell due while it ran (a backlog still arriving) is claimed in this run,
      // not a ticker's interval later.
      if (!options.ids) drained = false;
    }
  } finally {
    // Whatever failed, jobs already started finish and are recorded.
    await Promise.allSettled(running);
  }
  return report;
}
