// `npm run test:cron` (not part of `npm test`: `npm ci` cannot install a PostgreSQL extension).
// Webhook delivery driven by a REAL pg_cron, as on Supabase: a throw-away cluster of the system's
// PostgreSQL with pg_cron preloaded gets every migration, pg_net and Vault are played by stand-ins
// (no Debian package has them), and the server runs with its own timer off. pg_net's stand-in queues
// each request in a table, which this test forwards to the dispatcher function after the cron run
// has committed (asynchronously, as pg_net's worker does) and answers in net._http_response.
//
// It proves, against pg_cron itself: the migrations enable pg_cron where pg_net is missing; every
// delivery attempt (a 500, then its retry) is made inside a request that a recorded
// cron.job_run_details run queued; and a run whose call cannot be made for want of the Vault secrets
// is recorded as failed, naming them.
import { spawn, type ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgCronBin, startCronCluster, type CronCluster } from './cluster.ts';
import { Receiver } from '../webhooks/support.ts';
import { testAuthority } from '../fixtures/tls/trust.ts';
import { migrate } from '../../scripts/lib/migrate.ts';
import { runCommand } from '../../scripts/console/commands.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { waitFor } from '../../scripts/lib/processes.ts';
import { pgTypes } from '../../shared/db/client.ts';

const bin = pgCronBin();
const dispatcherSecret = 'cron-test-dispatcher-secret';
const root = new URL('../../', import.meta.url).pathname;

let cluster: CronCluster | undefined;
let sql: postgres.Sql;
let server: ChildProcess | undefined;
const serverLog: string[] = [];
const notices: string[] = [];
const receiver = new Receiver();
/** A POST of the carrier's live key to the server, and its endpoint (set by the delivery test). */
let api: (path: string, body: unknown) => Promise<{ status: number; json: any }>;
let endpointId: string;

/** A request the pg_net stand-in queued and this test forwarded: when, and in which cron run's backend. */
interface Forwarded {
  id: number;
  jobPid: number;
  queuedAt: Date;
  sentAt: number;
  answeredAt: number;
  status: number;
}
const forwarded: Forwarded[] = [];
let forwarding = true;
let forwarder: Promise<void> = Promise.resolve();

/** pg_net's worker, played: takes what committed transactions queued, POSTs it, records the answer. */
async function forwardQueuedRequests() {
  while (forwarding) {
    const queued = await sql<{ id: string; url: string; headers: Record<string, string>; body: unknown; job_pid: number; created: Date }[]>`
      delete from net.http_request_queue returning id, url, headers, body, job_pid, created`;
    for (const request of queued) {
      const sentAt = Date.now();
      const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) });
      const content = await response.text();
      forwarded.push({ id: Number(request.id), jobPid: request.job_pid, queuedAt: request.created, sentAt, answeredAt: Date.now(), status: response.status });
      await sql`insert into net._http_response (id, status_code, content) values (${request.id}, ${response.status}, ${content})`;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits for `condition`, checking every second, up to `timeoutMs` (pg_cron before 1.5 runs once a minute). */
async function eventually(what: string, condition: () => Promise<boolean> | boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

interface Run {
  runid: string;
  job_pid: number;
  status: string;
  return_message: string;
  start_time: Date;
  end_time: Date;
}
const dispatchRuns = () => sql<Run[]>`
  select d.runid, d.job_pid, d.status, d.return_message, d.start_time, d.end_time
    from cron.job_run_details d join cron.job j using (jobid)
   where j.jobname = 'webhook-dispatch' order by d.start_time`;

beforeAll(async () => {
  if (!bin) {
    throw new Error('pg_cron is not installed: apt-get install postgresql-15-cron (Debian and Ubuntu; postgresql-<major>-cron for another PostgreSQL), then run npm run test:cron again');
  }
  cluster = await startCronCluster(bin);
  sql = postgres(cluster.url, { max: 2, types: pgTypes, onnotice: (notice) => notices.push(notice.message) });
  // Vault, played: the table the migrations read the dispatcher's address and secret from.
  await sql`create schema vault`;
  await sql`create table vault.decrypted_secrets (name text primary key, decrypted_secret text)`;
}, 60_000);

afterAll(async () => {
  forwarding = false;
  await forwarder.catch(() => {});
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await receiver.close();
  await sql?.end({ timeout: 5 });
  await cluster?.stop();
}, 60_000);

describe('webhook delivery driven by a real pg_cron', () => {
  it('the migrations enable pg_cron where pg_net is missing, and the status names pg_net and its fix', async () => {
    await migrate(sql);
    const [{ cron }] = await sql<{ cron: string | null }[]>`select (select extversion from pg_extension where extname = 'pg_cron') as cron`;
    expect(cron).not.toBeNull();
    const [status] = await sql`select scheduled, reason, fix from app.webhook_scheduling_status()`;
    expect(status).toEqual({
      scheduled: false,
      reason: 'pg_net is not installed on this database server',
      fix: expect.stringMatching(/^install pg_net on the database server .*then run select app\.schedule_webhook_jobs\(\)$/),
    });
    expect(notices).toContainEqual(expect.stringMatching(/^webhook scheduling not set up: pg_net is not installed on this database server \(fix: /));
  }, 120_000);

  it('delivers through pg_cron runs only, with the server\'s timer off: a 500, then the retry on a later run', async () => {
    // pg_net, played: http_post queues the request and answers its id at once, as pg_net does; the
    // run's backend is kept to tie each request to its run in cron.job_run_details.
    await sql`create schema net`;
    await sql`create table net.http_request_queue (id bigserial primary key, url text, headers jsonb, body jsonb,
                job_pid integer not null default pg_backend_pid(), created timestamptz not null default clock_timestamp())`;
    await sql`create table net._http_response (id bigint primary key, status_code integer, content text, created timestamptz not null default now())`;
    await sql`
      create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
                                    headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
      language sql as $$ insert into net.http_request_queue (url, headers, body) values (url, headers, body) returning id $$`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/functions/v1`;
    await sql`insert into vault.decrypted_secrets values ('webhook_dispatcher_url', ${`${base}/webhook-dispatcher`}), ('webhook_dispatcher_secret', ${dispatcherSecret})`;
    const [{ scheduled }] = await sql<{ scheduled: boolean }[]>`select app.schedule_webhook_jobs() as scheduled`;
    expect(scheduled).toBe(true);
    const [{ schedule }] = await sql<{ schedule: string }[]>`select schedule from cron.job where jobname = 'webhook-dispatch'`;

    server = spawn(process.execPath, ['--import', 'tsx', `${root}scripts/server.ts`], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, DATABASE_URL: cluster!.url, PORT: String(port), LOG_LEVEL: 'info',
        WEBHOOK_DISPATCH_INTERVAL_MS: 'off', WEBHOOK_DISPATCHER_SECRET: dispatcherSecret,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', NODE_EXTRA_CA_CERTS: testAuthority,
      },
    });
    for (const stream of [server.stdout!, server.stderr!]) stream.on('data', (chunk) => serverLog.push(...String(chunk).split('\n').filter(Boolean)));
    await waitFor(`${base}/health`, 60_000);
    const lines = serverLog.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', message: 'webhook delivery', driven_by: 'pg_cron', pg_cron: schedule, timer: 'off' }));
    expect(lines.filter((line) => line.level === 'warn' && /not set up|not delivered/.test(line.message))).toEqual([]);

    const consoleData = async <T>(...argv: string[]) => ((await runCommand(sql, argv)) as { data: T }).data;
    const org = await consoleData<{ id: string }>('org', 'create', '--name', 'Cron Mutual', '--side', 'carrier');
    const { key } = await consoleData<{ key: string }>('key', 'create', '--org', org.id, '--env', 'live');
    api = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, json: (await response.json()) as any };
    };

    // The receiver fails the first attempt and accepts the retry, noting when each arrived.
    const arrivals: number[] = [];
    receiver.answer('/hook', () => {
      arrivals.push(Date.now());
      return { status: arrivals.length === 1 ? 500 : 200 };
    });
    await receiver.start();
    const endpoint = await api('/webhooks', { url: receiver.url('/hook'), events: ['option.saved'] });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.json.data.id;
    forwarder = forwardQueuedRequests();
    const ping = await api(`/webhooks/${endpointId}/test`, {});
    expect(ping.status).toBe(202);
    const deliveryId = ping.json.data.delivery_id as string;

    const delivery = async () => (await sql<{ status: string; attempts: number; history: { outcome: string; http_status: number }[] }[]>`
      select status, attempts, history from app.webhook_deliveries where id = ${deliveryId}`)[0];
    await eventually('the ping delivered on its retry', async () => (await delivery()).status === 'succeeded', 200_000);

    expect(receiver.at('/hook').map((received) => received.headers['x-service-delivery'])).toEqual([deliveryId, deliveryId]);
    const { attempts, history } = await delivery();
    expect(attempts).toBe(2);
    expect(history.map(({ outcome, http_status }) => ({ outcome, http_status }))).toEqual([
      { outcome: 'failed', http_status: 500 },
      { outcome: 'succeeded', http_status: 200 },
    ]);

    // Every attempt arrived while a forwarded request was being answered, and every such request was
    // queued by a recorded webhook-dispatch run (its backend, inside its start and end): the two
    // attempts came from two successive runs, and nothing else delivered (the timer is off).
    const runs = await dispatchRuns();
    const runOf = (request: Forwarded) => runs.find((run) =>
      run.job_pid === request.jobPid && run.start_time <= request.queuedAt && request.queuedAt <= run.end_time);
    for (const request of forwarded) {
      expect(runOf(request), `request ${request.id} queued by a cron run`).toEqual(expect.objectContaining({ status: 'succeeded' }));
      expect(request.status).toBe(200);
    }
    const attemptRuns = arrivals.map((at) => {
      const request = forwarded.find((candidate) => candidate.sentAt <= at && at <= candidate.answeredAt);
      expect(request, `attempt at ${new Date(at).toISOString()} made inside a forwarded dispatcher call`).toBeDefined();
      return runOf(request!)!;
    });
    expect(attemptRuns).toHaveLength(2);
    expect(attemptRuns[1].start_time.getTime()).toBeGreaterThan(attemptRuns[0].end_time.getTime());
    console.log(`pg_cron ${schedule}: attempt 1 (500) in run ${attemptRuns[0].runid} at ${attemptRuns[0].start_time.toISOString()}, ` +
      `attempt 2 (200) in run ${attemptRuns[1].runid} at ${attemptRuns[1].start_time.toISOString()}; ${forwarded.length} dispatcher calls, ${runs.length} runs`);
  }, 300_000);

  it('records a run whose dispatcher call lacks the Vault secrets as failed, naming them', async () => {
    await sql`delete from vault.decrypted_secrets`;
    const before = (await dispatchRuns()).length;
    const received = receiver.received.length;
    // A due delivery makes the next run call the dispatcher.
    const ping = await api(`/webhooks/${endpointId}/test`, {});
    expect(ping.status).toBe(202);
    let failed: Run | undefined;
    await eventually('a failed webhook-dispatch run', async () => {
      failed = (await dispatchRuns()).slice(before).find((run) => run.status === 'failed');
      return failed !== undefined;
    }, 130_000);
    expect(failed!.return_message).toMatch(/^ERROR: +webhook dispatch not called: Vault lacks webhook_dispatcher_secret and webhook_dispatcher_url; store them in Vault \(see docs\/webhooks\.md\)/);
    expect(receiver.received.length).toBe(received);
    const [{ status }] = await sql<{ status: string }[]>`select status from app.webhook_deliveries where id = ${ping.json.data.delivery_id}`;
    expect(status).toBe('pending');
  }, 150_000);

  it('analyzes a table grown from empty on its own runs, as the local server\'s thread does where there is no server', async () => {
    const [job] = await sql<{ schedule: string; command: string }[]>`select schedule, command from cron.job where jobname = 'grown-statistics'`;
    // Every 10 seconds from pg_cron 1.5, every minute before it.
    expect(job).toEqual({ schedule: expect.stringMatching(/^(10 seconds|\* \* \* \* \*)$/), command: 'select app.refresh_grown_statistics()' });
    await sql`create table app.grown_probe (id integer)`;
    await sql`insert into app.grown_probe select generate_series(1, 1000)`;
    // An explicit ANALYZE (the job's) sets last_analyze; autovacuum's would set last_autoanalyze.
    await eventually('the grown table analyzed by a grown-statistics run', async () =>
      (await sql`select 1 from pg_stat_user_tables where relname = 'grown_probe' and last_analyze is not null`).length === 1, 130_000);
    const runs = await sql`select d.status from cron.job_run_details d join cron.job j using (jobid) where j.jobname = 'grown-statistics'`;
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((run) => run.status === 'succeeded')).toBe(true);
    await sql`drop table app.grown_probe`;
  }, 150_000);
});
