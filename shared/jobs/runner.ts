import type { Sql } from '../db/client.ts';
import { db } from '../db/client.ts';
import { intSetting, setting } from '../config.ts';
import { errorFields, log } from '../log.ts';
import { claimJobs, completeJob, failJob, type JobRow } from './queue.ts';

// The job runner: a registry of job kinds, each with its handler, drained by the same scheduler that
// delivers webhooks (the webhook-dispatcher function called by pg_cron on Supabase, the local
// server's ticker). Handlers run as the database owner (across tenants, like the dispatcher) and
// must be safe to run twice: a job whose runner dies after the work but before recording it runs
// again when its lease runs out.

export interface JobContext {
  sql: Sql;
  job: JobRow;
}

export interface JobDefinition<P = Record<string, unknown>> {
  kind: string;
  /** Does the work; throws to retry with backoff. Returns what is kept with the job (result). */
  run(payload: P, context: JobContext): Promise<unknown>;
}

export type JobRegistry = readonly JobDefinition<never>[];

export interface RunOptions {
  sql?: Sql;
  registry: JobRegistry;
  /** Jobs per claim. */
  batch?: number;
  /** Stop claiming after this long. Default: until nothing is due. */
  budgetMs?: number;
  signal?: AbortSignal;
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

/** Seconds to wait after failed attempts 1, 2, ...; the last step repeats until max_attempts. */
export function jobRetrySchedule(): number[] {
  const steps = setting('JOB_RETRY_SCHEDULE', '10,60,300,1800,7200,21600').split(',').map((s) => Number(s.trim()));
  if (steps.some((s) => !Number.isFinite(s) || s < 0)) throw new Error('Setting JOB_RETRY_SCHEDULE must be a comma-separated list of seconds');
  return steps;
}

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/** Claims due jobs of the registry's kinds and runs them, until nothing is due or the budget is spent. */
export async function runDueJobs(options: RunOptions): Promise<RunReport> {
  const sql = options.sql ?? db();
  const handlers = new Map(options.registry.map((definition) => [definition.kind, definition as JobDefinition<unknown>]));
  const batch = options.batch ?? 20;
  const schedule = jobRetrySchedule();
  const deadline = options.budgetMs === undefined ? Infinity : Date.now() + options.budgetMs;
  const report: RunReport = { claimed: 0, succeeded: 0, failed: 0 };
  while (Date.now() < deadline && !options.signal?.aborted) {
    const jobs = await claimJobs(sql, [...handlers.keys()], batch, leaseMs(), { organisations: options.organisations, ids: options.ids });
    report.claimed += jobs.length;
    await Promise.all(jobs.map(async (job) => {
      try {
        const result = await handlers.get(job.kind)!.run(job.payload, { sql, job });
        await completeJob(sql, job, result);
        report.succeeded++;
      } catch (error) {
        log.warn('job failed', { job_id: job.id, kind: job.kind, attempt: job.attempts, ...errorFields(error) });
        await failJob(sql, job, describe(error), schedule).catch((e) => log.error('job failure not recorded', errorFields(e)));
        report.failed++;
      }
    }));
    if (jobs.length < batch) break;
  }
  return report;
}
