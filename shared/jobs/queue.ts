import type { Sql, Tx } from '../db/client.ts';
import type { JobKind, JobPayloads } from './kinds.ts';

// The durable job queue (app.jobs, see the placements migration): work that waits on a third party
// is written as a row in the transaction of the operation that needs it, and run later by
// shared/jobs/runner.ts. These are the queue's statements; each is one set-based statement, safe
// for any number of runners at once.

export interface JobRow {
  id: string;
  kind: string;
  org_id: string;
  environment: 'live' | 'sandbox';
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  lease_token: string;
}

export interface EnqueueOptions {
  /** A job of one kind with one key is queued once; queuing it again changes nothing. */
  dedupeKey?: string;
  /** When the job is first due (default: now). */
  runAt?: Date;
  maxAttempts?: number;
}

/**
 * Queues a job of a kind of the typed map (kinds.ts) for the transaction's tenant, in the caller's transaction: it commits with the
 * operation or not at all, so no operation is committed without its work and none is sent twice.
 * The statement is sent at once, not when the result is awaited, so a caller can pipeline it ahead
 * of its next statements (create.ts sends it with the creation's event, ahead of the event's
 * savepoint). Resolves to the new job's id (undefined when the dedupe key was queued already), for
 * an operation that starts its job itself after commit (shared/jobs/after-commit.ts).
 */
export function enqueue<K extends JobKind>(tx: Tx, kind: K, payload: JobPayloads[K], options: EnqueueOptions = {}): Promise<string | undefined> {
  return jobInsert(tx, kind, payload, options).execute().then(([job]) => job?.id);
}

/** The statement queuing a job, built and not yet run (for inOneWrite); its row is the new job's id, none when the dedupe key was queued already. */
export function jobInsert<K extends JobKind>(tx: Tx, kind: K, payload: JobPayloads[K], options: EnqueueOptions = {}) {
  return options.runAt ? scheduled(tx, kind, payload, options, options.runAt) : tx<{ id: string }[]>`
    insert into app.jobs (kind, org_id, environment, payload, dedupe_key, max_attempts)
    values (${kind}, app.current_org(), app.current_env(), ${tx.json(payload as never)}, ${options.dedupeKey ?? null}, ${options.maxAttempts ?? 8})
    on conflict (kind, dedupe_key) where dedupe_key is not null do nothing
    returning id`;
}

/**
 * A job due at a given time. For an organisation on a sandbox clock (shared/clock/) a time after
 * the clock's waits for the clock (run_at infinity until advancing it reaches clock_run_at); a
 * time the clock has passed is due now.
 */
const scheduled = (tx: Tx, kind: JobKind, payload: unknown, options: EnqueueOptions, runAt: Date) => tx<{ id: string }[]>`
  insert into app.jobs (kind, org_id, environment, payload, dedupe_key, max_attempts, run_at, clock_run_at)
  select ${kind}, app.current_org(), app.current_env(), ${tx.json(payload as never)}, ${options.dedupeKey ?? null}, ${options.maxAttempts ?? 8},
         case when c.frozen_time is null then ${runAt}::timestamptz when c.frozen_time >= ${runAt}::timestamptz then now() else 'infinity' end,
         case when c.frozen_time < ${runAt}::timestamptz then ${runAt}::timestamptz end
    from (select 1) one
    left join app.sandbox_clocks c on c.org_id = app.current_org() and c.environment = app.current_env()
  on conflict (kind, dedupe_key) where dedupe_key is not null do nothing
  returning id`;

/**
 * The tenant's jobs of a kind whose payload holds `match`, due now and not taken by a runner (one
 * that is running has its run_at moved past now by its lease): what a caller that needs the work
 * done now may run itself (runDueJobs with `ids`).
 */
export async function dueJobsOf<K extends JobKind>(tx: Tx, kind: K, match: Partial<JobPayloads[K]>): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    select id from app.jobs
     where kind = ${kind} and status = 'pending' and run_at <= now() and payload @> ${tx.json(match as never)}`;
  return rows.map((row) => row.id);
}

/** Which due jobs a runner claims: of some organisations only (tests share one database), or only the given jobs. */
export interface JobFilter {
  organisations?: string[];
  ids?: string[];
  /** Jobs this runner is still running: a job whose lease ran out while it runs is not claimed by the same runner again. */
  running?: string[];
}

/**
 * Claims up to `limit` due jobs of the given kinds, oldest due first. SKIP LOCKED lets concurrent
 * runners pass each other; the claim leases each row (run_at and locked_until move `leaseMs` ahead),
 * so a runner that dies mid-job loses nothing: the job falls due again when its lease runs out.
 */
export async function claimJobs(sql: Sql, kinds: string[], limit: number, leaseMs: number, filter: JobFilter = {}): Promise<JobRow[]> {
  const ofOrganisations = filter.organisations ? sql`and org_id = any (${filter.organisations}::uuid[])` : sql``;
  const onlyThese = filter.ids ? sql`and id = any (${filter.ids}::uuid[])` : sql``;
  const notRunning = filter.running?.length ? sql`and id <> all (${filter.running}::uuid[])` : sql``;
  return sql<JobRow[]>`
    with due as (
      select id from app.jobs
       where status = 'pending' and run_at <= now() and kind = any (${kinds}::text[]) ${ofOrganisations} ${onlyThese} ${notRunning}
       order by run_at
       limit ${limit}
       for update skip locked
    )
    update app.jobs j
       set attempts = j.attempts + 1,
           lease_token = gen_random_uuid(),
           locked_until = now() + ${leaseMs} * interval '1 millisecond',
           run_at = now() + ${leaseMs} * interval '1 millisecond'
      from due
     where j.id = due.id
    returning j.id, j.kind, j.org_id, j.environment, j.payload, j.attempts, j.max_attempts, j.lease_token`;
}

/**
 * Records successes, in one statement: each job is done, with what its handler returned. Only the
 * claim's holder records (the lease token). The jobs are found by key: a join to the input rows
 * instead would be planned for a guessed hundred of them, as a scan of the whole queue.
 */
export async function completeJobs(sql: Sql, done: { job: JobRow; result: unknown }[]): Promise<void> {
  if (done.length === 0) return;
  const byId = (value: (d: { job: JobRow; result: unknown }) => unknown) => Object.fromEntries(done.map((d) => [d.job.id, value(d)]));
  await sql`
    update app.jobs j
       set status = 'succeeded', result = ${sql.json(byId((d) => d.result ?? null) as never)}::jsonb -> j.id::text,
           last_error = null, completed_at = now(), lease_token = null, locked_until = null
     where j.id = any(${done.map((d) => d.job.id)}::uuid[])
       and j.lease_token = (${sql.json(byId((d) => d.job.lease_token) as never)}::jsonb ->> j.id::text)::uuid`;
}

/**
 * Records a failure: the job waits the step of `schedule` (seconds) that follows its attempt (the
 * last step repeats), and is abandoned after max_attempts. Resolves to the job's status now, or
 * undefined when the claim was no longer this runner's (nothing recorded).
 */
export async function failJob(sql: Sql, job: JobRow, error: string, schedule: number[]): Promise<'pending' | 'abandoned' | undefined> {
  const wait = schedule[Math.min(job.attempts, schedule.length) - 1] ?? 0;
  const [row] = await sql<{ status: 'pending' | 'abandoned' }[]>`
    update app.jobs
       set last_error = ${error.slice(0, 2000)}, lease_token = null, locked_until = null,
           status = case when attempts >= max_attempts then 'abandoned' else 'pending' end,
           completed_at = case when attempts >= max_attempts then now() end,
           run_at = now() + make_interval(secs => ${wait})
     where id = ${job.id} and lease_token = ${job.lease_token}
    returning status`;
  return row?.status;
}

export interface RetriedJob {
  id: string;
  kind: string;
  org_id: string;
  environment: 'live' | 'sandbox';
  status: 'pending' | 'succeeded' | 'abandoned';
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  run_at: Date;
  /** Whether this call queued it again (false: it was not abandoned). */
  retried: boolean;
}

/**
 * Queues an abandoned job again for `attempts` more attempts, due now (the operator console's
 * `job retry`). Its attempts so far and last error stay as they were. Undefined when no job has
 * the id; the row unchanged when the job is not abandoned.
 */
export async function retryAbandonedJob(sql: Sql, id: string, attempts: number): Promise<RetriedJob | undefined> {
  const [row] = await sql<RetriedJob[]>`
    with retried as (
      update app.jobs set status = 'pending', max_attempts = attempts + ${attempts}, run_at = now(), completed_at = null
       where id = ${id} and status = 'abandoned'
      returning id, kind, org_id, environment, status, attempts, max_attempts, last_error, run_at
    )
    select *, true as retried from retried
    union all
    select id, kind, org_id, environment, status, attempts, max_attempts, last_error, run_at, false
      from app.jobs where id = ${id} and not exists (select 1 from retried)`;
  return row;
}
