// `npm run surge`: a catastrophe's first hours, compressed, on the embedded database (see README.md here).
//
// Providers with homes around five metro areas; carriers, each with its own keys and an HTTPS webhook
// endpoint on a local receiver, open their requests within one minute (batches and single creations,
// within each key's limit); every request is sourced by the job queue, and some are driven through a
// whole placement to a booking with the sandbox helpers (split payers on some, an extension on some, a
// shortening after move-in on a few). Run on one server process, then on two against one database (as
// two Edge workers would), each on a fresh database; prints one table with both runs side by side.
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, setPriority } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';
import { runCommand } from '../console/commands.ts';
import { pgTypes } from '../../shared/db/client.ts';
import { child, stopped, waitFor } from '../lib/processes.ts';
import { freePort, median, startScratchDatabase } from '../lib/scratch.ts';
import { startReceiver, tls } from './receiver.ts';
import { coldMatching, type ColdMatching } from './cold-matching.ts';

/** The reader's times, each with the machine's other threads runnable as the call began (-1: unknown). */
interface Reads {
  times: number[];
  runnable: number[];
}

/**
 * The reader (reader.mjs) on a thread of its own; `done` resolves with its times, and its answers
 * are added to the run's count by status.
 */
function readerOn(statuses: Map<number, number>) {
  return (reading: { bases: string[]; path: string; key: string; warmUp: number; calls: number; pauseMs: number }) => {
    const worker = new Worker(new URL('./reader.mjs', import.meta.url), { workerData: reading });
    const done = new Promise<Reads>((resolve, reject) => {
      worker.once('message', (result: Reads & { statuses: Record<string, number> }) => {
        for (const [status, n] of Object.entries(result.statuses)) statuses.set(Number(status), (statuses.get(Number(status)) ?? 0) + n);
        resolve({ times: result.times, runnable: result.runnable });
      });
      worker.once('error', reject);
    }).finally(() => worker.terminate());
    return { done, stop: () => (worker.postMessage('stop'), done) };
  };
}

// A run that fails outright (an exception nothing awaits) leaves no server or database behind.
const children = new Set<ChildProcess>();
let postmasterOf: (() => number) | undefined;
const running = (server: ChildProcess) => (children.add(server), server.once('exit', () => children.delete(server)), server);
process.on('exit', () => {
  for (const server of children) server.kill('SIGKILL');
  try {
    if (postmasterOf) process.kill(postmasterOf(), 'SIGINT');
  } catch {
    // stopped already
  }
});

const size = {
  homes: Number(process.env.SURGE_HOMES ?? 20_000),
  providers: Number(process.env.SURGE_PROVIDERS ?? 10),
  carriers: Number(process.env.SURGE_CARRIERS ?? 50),
  requests: Number(process.env.SURGE_REQUESTS ?? 2_000),
  placements: Number(process.env.SURGE_PLACEMENTS ?? 500),
  createSeconds: Number(process.env.SURGE_CREATE_SECONDS ?? 60),
};
const processCounts = (process.env.SURGE_PROCESSES ?? '1,2').split(',').map(Number);
/**
 * A nice value for the servers' request threads (each process's event loop), or none: set, it tells a
 * read's wait for a core from its wait behind other calls on its thread (a negative value needs root
 * or CAP_SYS_NICE). On Linux a thread's priority is its own: the servers' other threads keep theirs.
 */
const requestThreadNice = process.env.SURGE_REQUEST_THREAD_NICE ? Number(process.env.SURGE_REQUEST_THREAD_NICE) : undefined;
if (requestThreadNice !== undefined && !(Number.isInteger(requestThreadNice) && requestThreadNice >= -20 && requestThreadNice <= 19)) {
  throw new Error(`SURGE_REQUEST_THREAD_NICE must be a whole number from -20 to 19, not ${process.env.SURGE_REQUEST_THREAD_NICE}`);
}
/** Sets a server's request thread's nice value: its main thread, whose id is the process's, so that setpriority moves that thread alone. */
function setRequestThreadNice(pid: number, nice: number) {
  try {
    setPriority(pid, nice);
  } catch (error) {
    throw new Error(`SURGE_REQUEST_THREAD_NICE=${nice}: ${(error as Error).message} (a negative value needs root or CAP_SYS_NICE)`);
  }
}
/** The key that checks the limit across processes sends this many requests in its minute; its limit is the live default. */
const limiterRequests = 700;
const limiterLimit = 600;

const started = performance.now();
const step = (message: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const percentile = (values: number[], p: number) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
};

const metros = [
  { name: 'Houston', state: 'TX', zip: '77002', lat: 29.76, lng: -95.37 },
  { name: 'New Orleans', state: 'LA', zip: '70112', lat: 29.95, lng: -90.07 },
  { name: 'Tampa', state: 'FL', zip: '33602', lat: 27.95, lng: -82.46 },
  { name: 'Miami', state: 'FL', zip: '33130', lat: 25.76, lng: -80.19 },
  { name: 'Charleston', state: 'SC', zip: '29401', lat: 32.78, lng: -79.93 },
];

function claimBody(metro: number, i: number, split: boolean) {
  const m = metros[metro];
  return {
    loss_address: `${i} Storm Rd`, loss_city: m.name, loss_state: m.state, loss_zip: m.zip,
    loss_lat: m.lat + ((i % 17) - 8) * 0.005, loss_lng: m.lng + ((i % 13) - 6) * 0.005,
    target_move_in: inDays(30), est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, property_type: 'apartment',
    furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: split ? 'tpa' : 'carrier', max_budget: 2500,
    external_id: `SURGE-${i}`, household_email: 'family@example.com', adjuster_email: 'adjuster@example.com',
  };
}

/** CPU seconds a process (and its reaped children) used, from /proc. */
function cpuSeconds(pid: number, withChildren = true): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime, stime, cutime, cstime are fields 14-17 of the line: 12-15 after the name.
    const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / 100;
  } catch {
    return 0;
  }
}

/** The embedded database's postmaster, from its pid file. */
const postmasterPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** The database's processes: its postmaster, then its live backends; none when it cannot be read. */
function databaseProcesses(dataDir: string): { postmaster: number; backends: number[] } | undefined {
  try {
    const postmaster = postmasterPid(dataDir);
    const backends = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return { postmaster, backends };
  } catch {
    return undefined;
  }
}

type DatabaseKind = 'connections' | 'autovacuum' | 'background' | 'ended';

/** The kind of a database process, from the title PostgreSQL gives it (`postgres: walwriter`, `postgres: user db host(port) idle`). */
function kindOf(pid: number): DatabaseKind {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (title.includes('autovacuum worker')) return 'autovacuum';
    // A parallel worker does a connection's statement.
    return /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]|parallel worker/.test(title) ? 'connections' : 'background';
  } catch {
    return 'ended';
  }
}

/**
 * The database's CPU by kind of process: client connections, autovacuum workers, the other
 * background processes (the postmaster, WAL writer, checkpointer, ...), and processes that ended
 * (reaped by the postmaster: autovacuum workers that finished, connections that closed), keyed
 * `kind/pid` so that two samples subtract process by process.
 */
function databaseCpu(dataDir: string): Map<string, number> {
  const cpu = new Map<string, number>();
  const database = databaseProcesses(dataDir);
  if (!database) return cpu;
  cpu.set('ended/reaped', cpuSeconds(database.postmaster) - cpuSeconds(database.postmaster, false));
  cpu.set(`background/${database.postmaster}`, cpuSeconds(database.postmaster, false));
  for (const pid of database.backends) cpu.set(`${kindOf(pid)}/${pid}`, cpuSeconds(pid, false));
  return cpu;
}

/**
 * Per kind, the database CPU between two samples of databaseCpu (a process's kind as the later sample
 * saw it). A process that ended in between reaches the postmaster's count of reaped children with
 * its whole life's CPU: what it had used by the first sample is taken off `ended` again.
 */
function databaseCpuByKind(before: Map<string, number>, after: Map<string, number>): Record<DatabaseKind, number> {
  const kinds: Record<DatabaseKind, number> = { connections: 0, autovacuum: 0, background: 0, ended: 0 };
  const pidOf = (key: string) => key.slice(key.indexOf('/') + 1);
  const earlier = new Map([...before].map(([key, seconds]) => [pidOf(key), seconds]));
  const later = new Set([...after.keys()].map(pidOf));
  for (const [key, seconds] of after) kinds[key.slice(0, key.indexOf('/')) as DatabaseKind] += seconds - (earlier.get(pidOf(key)) ?? 0);
  for (const [pid, seconds] of earlier) if (!later.has(pid)) kinds.ended -= seconds;
  return kinds;
}

/** Seconds a thread has run and has waited, runnable, for a core (Linux schedstat); zeros once it is gone. */
function schedSeconds(pid: number, tid: number): { ran: number; waited: number } {
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    return { ran: ran / 1e9, waited: waited / 1e9 };
  } catch {
    return { ran: 0, waited: 0 };
  }
}

const threadsOf = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
};

/**
 * Where the machine's cores were short, by thread, keyed `group/tid`: each thread's time run and
 * time waited runnable for a core. The groups: the database (the postmaster and its live backends),
 * the servers' request threads (each process's main thread, its event loop), the servers' other
 * threads (the background thread, libuv's and V8's), and this driver (its reader threads included).
 * A thread that ended between two samples is missing from their difference (a backend that closed).
 */
function coreTimes(servers: ChildProcess[], dataDir: string): Map<string, { ran: number; waited: number }> {
  const times = new Map<string, { ran: number; waited: number }>();
  const add = (group: string, pid: number, tid: number) => times.set(`${group}/${tid}`, schedSeconds(pid, tid));
  const database = databaseProcesses(dataDir);
  for (const pid of database ? [database.postmaster, ...database.backends] : []) add('database', pid, pid);
  for (const server of servers) {
    for (const tid of threadsOf(server.pid!)) add(tid === server.pid ? 'requests' : 'server others', server.pid!, tid);
  }
  for (const tid of threadsOf(process.pid)) add('driver', process.pid, tid);
  return times;
}

type CoreGroup = 'database' | 'requests' | 'server others' | 'driver';

/** Per group, the time its threads ran and waited for a core between two samples of coreTimes. */
function coreWaits(before: Map<string, { ran: number; waited: number }>, after: Map<string, { ran: number; waited: number }>) {
  const groups = Object.fromEntries(['database', 'requests', 'server others', 'driver'].map((g) => [g, { ran: 0, waited: 0 }])) as Record<CoreGroup, { ran: number; waited: number }>;
  for (const [key, now] of after) {
    const was = before.get(key) ?? { ran: 0, waited: 0 };
    const group = groups[key.slice(0, key.lastIndexOf('/')) as CoreGroup];
    group.ran += now.ran - was.ran;
    group.waited += now.waited - was.waited;
  }
  return groups;
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

interface Figures {
  processes: number;
  created: number;
  sourced: number;
  sourcedMs: number[];
  steps: Record<string, number[]>;
  readIdle: number[];
  readSurge: number[];
  /** For each read of the surge, the machine's other threads runnable as it began. */
  readSurgeRunnable: number[];
  deliveryMs: number[];
  deepestQueue: number;
  drainSeconds: number;
  deliveriesPerSecond: number;
  statuses: Map<number, number>;
  serverErrors: string[];
  lost: { requests: number; events: number; journeys: number; eventsTotal: number };
  duplicates: number;
  limiter: { sent: number; through: number; windows: number };
  memory: string;
  surgeSeconds: number;
  answers: number;
  journeys: number;
  journeysWanted: number;
  cpu: { database: Record<DatabaseKind, number>; servers: number; driver: number };
  /** Per group of threads, seconds run and seconds waited for a core during the surge (coreTimes). */
  cores: ReturnType<typeof coreWaits>;
  cold?: ColdMatching;
  httpOneAtATime?: { match: number; read: number };
  /** Why placements did not reach a booking. */
  failures: string[];
  /** The tables read whole most during the surge: scans and rows read. */
  seqScans: { table: string; scans: number; rows: number; pages: number }[];
  /** The statements the database spent most time on during the surge (pg_stat_statements). */
  statements: Statement[];
  /** All the client's statements' time during the surge, ms. */
  statementsMs: number;
}

interface Statement {
  /** A statement run by the client (false: run inside a function, counted in its caller's time too). */
  toplevel: boolean;
  ms: number;
  calls: number;
  rows: number;
  /** Shared buffers read or found in memory. */
  buffers: number;
  /** Times the statement was planned (a prepared statement reusing its generic plan is not), and the planning's ms. */
  plans: number;
  planMs: number;
  query: string;
}

/**
 * SURGE_STATEMENTS (a file name): every statement of the surge, not only the ten by time, with its
 * calls, rows and shared buffers, as tab-separated lines (one file per run: `.1`, `.2` appended for
 * the process count). Calls and buffers do not depend on the machine's load, so two runs' files can
 * be compared statement by statement where their times cannot.
 */
async function writeAllStatements(statements: Statement[], processes: number): Promise<void> {
  const file = process.env.SURGE_STATEMENTS;
  if (!file) return;
  const lines = statements.map((r) => [r.toplevel ? 'top' : 'nested', r.ms.toFixed(1), r.calls, r.rows, r.buffers, r.plans, r.planMs.toFixed(1), r.query].join('\t'));
  await writeFile(`${file}.${processes}`, `${['level', 'ms', 'calls', 'rows', 'buffers', 'plans', 'plan ms', 'query'].join('\t')}\n${lines.join('\n')}\n`);
}

async function surge(processes: number): Promise<Figures> {
  // pg_stat_statements (loaded at start) counts each statement's time, calls and rows: where the
  // database's share of the surge goes. `track = all` counts the statements of functions too.
  // SURGE_EXPLAIN (a file): every statement's plan is written there too (auto_explain, nested
  // statements included), to find which statement reads a table whole; slow, for small runs.
  const explainFile = process.env.SURGE_EXPLAIN;
  const explained = explainFile ? createWriteStream(explainFile) : undefined;
  const database = await startScratchDatabase('hps-surge-', {
    settings: {
      shared_preload_libraries: explained ? 'pg_stat_statements,auto_explain' : 'pg_stat_statements',
      'pg_stat_statements.track': 'all',
      // Planning counted only for SURGE_STATEMENTS, so that a default run stays comparable with runs before it was counted.
      ...(process.env.SURGE_STATEMENTS ? { 'pg_stat_statements.track_planning': 'on' } : {}),
      ...(explained ? { 'auto_explain.log_min_duration': '0', 'auto_explain.log_nested_statements': 'on' } : {}),
    },
    onLog: explained && ((line) => explained.write(`${line}\n`)),
  });
  postmasterOf = () => postmasterPid(database.dataDir);
  const receiver = await startReceiver();
  const servers: ChildProcess[] = [];
  const bases: string[] = [];
  const sql = postgres(database.url, { max: 4, onnotice: () => {}, types: pgTypes });
  let stopping = false;
  try {
    for (let i = 0; i < processes; i++) {
      const port = await freePort();
      const server = running(child('scripts/server.ts', {
        DATABASE_URL: database.url, DATA_DIR: join(database.dataDir, `server-${i}`), PORT: String(port), MIGRATE: 'false',
        NODE_EXTRA_CA_CERTS: join(tls, 'ca.pem'), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      }));
      // The servers log at warn and above; their errors are shown (a crash's cause), the rest is not.
      server.stdout!.on('data', (chunk: Buffer) => {
        for (const line of String(chunk).split('\n')) if (line.includes('"level":"error"')) process.stderr.write(`server ${i}: ${line.slice(0, 500)}\n`);
      });
      server.once('exit', (code, signal) => {
        if (!stopping) process.stderr.write(`server ${i} exited (${signal ?? code}) during the run\n`);
      });
      servers.push(server);
      bases.push(`http://127.0.0.1:${port}/functions/v1`);
    }
    for (const base of bases) await waitFor(`${base}/health`, 120_000);
    if (requestThreadNice !== undefined) for (const server of servers) setRequestThreadNice(server.pid!, requestThreadNice);
    step(`${processes} server process${processes > 1 ? 'es' : ''} on one fresh database; seeding`);

    const statuses = new Map<number, number>();
    const serverErrors: string[] = [];
    let turn = 0;
    /** One call, to the servers in turn (as a load balancer spreads them); every answer counted by status. */
    const api = async (key: string, method: string, path: string, body?: unknown) => {
      const base = bases[turn++ % bases.length];
      const send = () => fetch(`${base}${path}`, {
        method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      // A kept-alive connection the server closed as it was reused (ECONNRESET, no answer): a read is
      // sent again once; anything else fails the run.
      const response = await send().catch((error) => {
        if (method !== 'GET') throw error;
        return sleep(50).then(send);
      });
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500) serverErrors.push(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = text; // not JSON (a proxy's page): the status says what happened
      }
      return { status: response.status, headers: response.headers, body: json };
    };
    const startReader = readerOn(statuses);
    const must = async (key: string, method: string, path: string, body?: unknown) => {
      const answer = await api(key, method, path, body);
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      return answer.body;
    };

    const consoleData = async <T>(...argv: string[]) => ((await runCommand(sql, argv)) as { data: T }).data;
    const newKey = async (orgId: string, environment: string, perMinute?: number) => {
      const key = await consoleData<{ id: string; key: string }>('key', 'create', '--org', orgId, '--env', environment);
      if (perMinute) await consoleData('key', 'limit', '--id', key.id, '--per-minute', String(perMinute));
      return key.key;
    };
    const providers: string[] = [];
    for (let p = 0; p < size.providers; p++) providers.push((await consoleData<{ id: string }>('org', 'create', '--name', `Surge provider ${p}`, '--side', 'provider')).id);
    const carriers: { id: string; create: string; journey: string }[] = [];
    for (let c = 0; c < size.carriers; c++) {
      const id = (await consoleData<{ id: string }>('org', 'create', '--name', `Surge carrier ${c}`, '--side', 'carrier')).id;
      // Creations on a key at the sandbox default limit; the journeys' many calls on a key raised for them.
      carriers.push({ id, create: await newKey(id, 'sandbox'), journey: await newKey(id, 'sandbox', 100_000) });
    }
    const readerKey = await newKey(carriers[0].id, 'sandbox', 100_000);
    const limiterKey = await newKey(carriers[0].id, 'live');
    await sql`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      select unnest(${providers}::uuid[]), 'sandbox', true, true, true, 'complete'`;
    // Homes around the metro areas, the providers' in turn; within 0.2 degrees of a centre (the requests' radius is 25 miles).
    await sql`
      insert into app.properties (
        org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
        bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
        application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status)
      select (${providers}::uuid[])[1 + i % ${size.providers}], 'live', 'Surge ' || i, i || ' Shelter St',
             (${metros.map((m) => m.name)}::text[])[1 + i % 5], (${metros.map((m) => m.state)}::text[])[1 + i % 5],
             (${metros.map((m) => m.zip)}::text[])[1 + i % 5],
             (${metros.map((m) => m.lat)}::float8[])[1 + i % 5] + (random() * 2 - 1) * 0.2,
             (${metros.map((m) => m.lng)}::float8[])[1 + i % 5] + (random() * 2 - 1) * 0.2,
             150000 + (random() * 100000)::int, 1 + (i % 4), 1 + (i % 2), 600 + (i % 10) * 100, 'furnished', current_date,
             100000, 0, 0, 0, array['https://img.example.com/a.jpg'], 'A home after the storm.', array['wifi'], 'Cats and dogs welcome', 'available'
        from generate_series(0, ${size.homes - 1}) i`;
    // Each placement gets a home of its own in its metro area, so the journeys race for nothing.
    const homesByMetro = metros.map(() => [] as string[]);
    for (const home of await sql<{ id: string; i: number }[]>`
      select id, (regexp_replace(name, '\\D', '', 'g'))::int as i from app.properties where name like 'Surge %' order by 2`) homesByMetro[home.i % 5].push(home.id);
    for (const carrier of carriers) await must(carrier.journey, 'POST', '/webhooks', { url: receiver.url });
    const readRef = (await must(readerKey, 'POST', '/claims', claimBody(0, 999_999, false))).data.claim_ref as string;
    // Statistics for what the seeding loaded, as autovacuum would have them. Only those: a table
    // never analysed is planned as one that will grow (PostgreSQL assumes ten pages at least), as in
    // a database in use, where requests, options and bookings are never empty. Analysed empty, each
    // connection planned its foreign-key checks on them as reads of the whole table, and kept those
    // plans while the surge filled them.
    await sql`analyze app.organisations, app.api_keys, app.payout_accounts, app.properties, app.webhook_endpoints`;

    // A read alone, before the surge: its idle figure (on the reader's own thread, as during the surge).
    const readIdle = (await startReader({ bases, path: `/claims/${readRef}`, key: readerKey, warmUp: 20, calls: 100, pauseMs: 0 }).done).times;

    let httpOneAtATime: Figures['httpOneAtATime'];
    let cold: ColdMatching | undefined;
    if (processes === 1) {
      // Matches against a read of the same request, one call at a time on an idle machine, warm pool.
      const matchPath = `/claims/${readRef}/matches`;
      for (let i = 0; i < 10; i++) await must(readerKey, 'GET', matchPath);
      const match: number[] = [];
      const read: number[] = [];
      for (let i = 0; i < 40; i++) {
        let at = performance.now();
        await must(readerKey, 'GET', matchPath);
        match.push(performance.now() - at);
        at = performance.now();
        await must(readerKey, 'GET', `/claims/${readRef}`);
        read.push(performance.now() - at);
      }
      httpOneAtATime = { match: median(match), read: median(read) };
      cold = await coldMatching(database.url, { orgId: carriers[0].id, environment: 'sandbox' }, readRef);
    }

    // ------------------------------------------------------------------------------------------
    step(`surge: ${size.requests} requests by ${size.carriers} carriers within ${size.createSeconds} s, ${size.placements} placements`);
    const surgeStarted = performance.now();
    const cpuAt = () => ({
      database: databaseCpu(database.dataDir), servers: servers.reduce((sum, s) => sum + cpuSeconds(s.pid!), 0), driver: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    });
    // Tables read whole during the surge (an index missing shows here), from the statistics' counters.
    const scans = () => sql<{ table: string; scans: number; rows: number; pages: number }[]>`
      select relname as table, seq_scan::float8 as scans, seq_tup_read::float8 as rows,
             pg_relation_size(relid)::float8 / current_setting('block_size')::float8 as pages
        from pg_stat_user_tables where schemaname = 'app'`;
    await sql`create extension if not exists pg_stat_statements`;
    const scansBefore = await scans();
    await sql`select pg_stat_statements_reset()`;
    const cpuBefore = cpuAt();
    const coresBefore = coreTimes(servers, database.dataDir);
    const rssBefore = servers.map((s) => rssMb(s.pid!));
    // The queue's deepest point, and how long after it the queue was first empty again.
    let deepestQueue = 0;
    let deepestAt = surgeStarted;
    let emptyAgainAt: number | undefined;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        // A run that failed ends the pool under the sampler: stop sampling, so the failure itself is what is shown.
        const [{ due }] = await sql<{ due: number }[]>`select count(*)::int as due from app.jobs where status = 'pending' and run_at <= now()`
          .catch(() => ((sampling = false), [{ due: 0 }]));
        if (due > deepestQueue) [deepestQueue, deepestAt, emptyAgainAt] = [due, performance.now(), undefined];
        else if (due === 0 && emptyAgainAt === undefined) emptyAgainAt = performance.now();
        await sleep(250);
      }
    })();
    // The same read every 50 ms through the surge.
    const reader = startReader({ bases, path: `/claims/${readRef}`, key: readerKey, warmUp: 0, calls: 0, pauseMs: 50 });

    const steps: Record<string, number[]> = {};
    const timedStep = async <T>(name: string, work: () => Promise<T>) => {
      const at = performance.now();
      const result = await work();
      (steps[name] ??= []).push(performance.now() - at);
      return result;
    };
    const created: string[] = [];
    let journeysDone = 0;
    const journeyFailures: string[] = [];

    /**
     * Waits, as a carrier's integration does, for the `nth` lease.sent about the request (the lease,
     * then an addendum). After two minutes without it, one read says whether it went out and only
     * its event is late (which the accounting at the end counts), or whether it never went.
     */
    const heard = async (ref: string, nth: number, what: string, sentByRead: () => Promise<boolean>) => {
      if (await receiver.arrived('lease.sent', ref, nth, 120_000)) return;
      if (!(await sentByRead())) throw new Error(`${ref}: the ${what} was not sent within two minutes`);
    };

    /** A request driven from its creation to a booking, and on some further: split payers, an extension. */
    const journey = async (carrier: (typeof carriers)[number], ref: string, home: string, j: number) => {
      const key = carrier.journey;
      await timedStep('matches', () => must(key, 'GET', `/claims/${ref}/matches`));
      await timedStep('place', () => must(key, 'POST', `/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: true }));
      await timedStep('dates', () => must(key, 'POST', `/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(130) }));
      // The contract goes out from the job queue: the time until the carrier hears it went (lease.sent).
      await timedStep('contract sent, heard by webhook', () => heard(ref, 1, 'contract', async () =>
        (await must(key, 'GET', `/claims/${ref}/placement`)).data.homes?.[0]?.lease?.status === 'sent_for_signature'));
      await timedStep('household signs', () => must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/household`, { action: 'sign' }));
      await timedStep('landlord signs', () => must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'sign' }));
      if (j % 3 === 1) {
        await timedStep('payment (a share)', () => must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded', payer: 'carrier' }));
        await timedStep('payment (a share)', () => must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded', payer: 'tpa' }));
      } else {
        await timedStep('payment', () => must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded' }));
      }
      if (j % 5 === 2) {
        await timedStep('extension asked', () => must(key, 'POST', `/claims/${ref}/extensions`, { property_id: home, move_out: inDays(160) }));
        await timedStep('addendum sent, heard by webhook', () => heard(ref, 2, 'addendum', async () =>
          (await must(key, 'GET', `/claims/${ref}/extensions?property_id=${home}`)).data[0]?.addendum?.status === 'sent_for_signature'));
        await must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/household`, { action: 'sign' });
        await must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'sign' });
        await timedStep('extension paid', () => must(key, 'POST', `/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded' }));
        const [extension] = (await must(key, 'GET', `/claims/${ref}/extensions?property_id=${home}`)).data;
        if (extension.status !== 'in_effect') throw new Error(`${ref}: the paid extension is ${extension.status}`);
      }
    };

    /**
     * A shortening needs a stay moved into: the carrier's sandbox clock (set once its own journeys are
     * done, so no other of its requests reads it) goes to move-in day, the move-in is confirmed, and a
     * few days on the stay is shortened.
     */
    const shortening = async (carrier: (typeof carriers)[number], ref: string, home: string) => {
      const key = carrier.journey;
      await must(key, 'POST', '/sandbox/clock', { frozen_time: `${inDays(40)}T12:00:00Z` });
      await timedStep('move-in confirmed', () => must(key, 'POST', `/claims/${ref}/confirm-move-in`, { property_id: home }));
      await must(key, 'POST', '/sandbox/clock/advance', { frozen_time: `${inDays(45)}T12:00:00Z` });
      await timedStep('shortening', () => must(key, 'POST', `/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(100) }));
      await must(key, 'DELETE', '/sandbox/clock');
    };

    const perCarrier = Math.floor(size.requests / size.carriers);
    const journeysPerCarrier = Math.ceil(size.placements / size.carriers);
    const shortenings = Math.max(1, Math.round(size.carriers / 10));
    let journeyIndex = 0;
    const usedHomes = metros.map(() => 0);
    const carrierWork = carriers.map(async (carrier, c) => {
      const journeys = Math.min(journeysPerCarrier, size.placements - c * journeysPerCarrier, perCarrier);
      // Half a carrier's requests come in batches (at most 50 each), the rest one at a time; the journeys take single creations.
      const singles = Math.max(journeys, perCarrier - Math.floor(perCarrier / 2));
      const batched = perCarrier - singles;
      const calls: { at: number; count: number; journey: boolean }[] = [];
      for (let left = batched; left > 0; left -= 50) calls.push({ at: Math.random() * size.createSeconds * 1000, count: Math.min(50, left), journey: false });
      for (let s = 0; s < singles; s++) calls.push({ at: Math.random() * size.createSeconds * 1000, count: 1, journey: s < journeys });
      const booked: { ref: string; home: string; j: number }[] = [];
      await Promise.all(calls.map(async (call) => {
        await sleep(call.at);
        const metro = (c + Math.floor(call.at)) % 5;
        const first = journeyIndex;
        journeyIndex += call.count;
        const split = call.journey && first % 3 === 1;
        if (call.count === 1) {
          const ref = (await must(carrier.create, 'POST', '/claims', claimBody(metro, first, split))).data.claim_ref as string;
          created.push(ref);
          if (!call.journey) return;
          const home = homesByMetro[metro][usedHomes[metro]++];
          try {
            await journey(carrier, ref, home, first);
            journeysDone += 1;
            booked.push({ ref, home, j: first });
          } catch (error) {
            journeyFailures.push((error as Error).message);
          }
        } else {
          const answer = await must(carrier.create, 'POST', '/claims/batch', {
            requests: Array.from({ length: call.count }, (_, k) => claimBody(metro, first + k, false)),
          });
          for (const result of answer.results ?? answer.data ?? []) if (result.data?.claim_ref ?? result.claim_ref) created.push(result.data?.claim_ref ?? result.claim_ref);
        }
      }));
      const plain = booked.find((b) => b.j % 5 !== 2);
      if (c < shortenings && plain) {
        try {
          await shortening(carrier, plain.ref, plain.home);
        } catch (error) {
          journeyFailures.push((error as Error).message);
        }
      }
    });

    // The limit across processes: one live key sends 700 requests, spread over the servers, at
    // concurrency 50, from the start of a rate window (calendar minutes), so that all fall in one.
    const limiterRun = (async () => {
      await sleep(5_000 + 60_000 - ((Date.now() + 5_000) % 60_000) + 200);
      let through = 0;
      const windows = new Set<string>();
      let next = 0;
      await Promise.all(Array.from({ length: 50 }, async () => {
        while (next++ < limiterRequests) {
          const answer = await api(limiterKey, 'GET', '/claims?limit=1');
          windows.add(answer.headers.get('x-ratelimit-reset') ?? '');
          if (answer.status === 200) through += 1;
          else if (answer.status !== 429) throw new Error(`limiter key: ${answer.status}`);
        }
      }));
      return { sent: limiterRequests, through, windows: windows.size };
    })();

    await Promise.all(carrierWork);
    // The surge's span is the carriers' work; the limit's check may end after it (it waits for a window's start).
    const surgeSeconds = (performance.now() - surgeStarted) / 1000;
    const answers = [...statuses.values()].reduce((a, b) => a + b, 0);
    const limiter = await limiterRun;
    const { times: readSurge, runnable: readSurgeRunnable } = await reader.stop();
    step(`surge done in ${surgeSeconds.toFixed(0)} s: ${created.length} requests, ${journeysDone} placements booked; waiting for the queue and the webhooks`);

    // Drained: every job done and every event of the carriers at the receiver (at most two minutes).
    const carrierIds = carriers.map((c) => c.id);
    const eventIds = async () => (await sql<{ id: string }[]>`select id from app.events where org_id = any(${carrierIds})`).map((e) => e.id);
    let undelivered: string[] = [];
    for (const until = Date.now() + 120_000; Date.now() < until; await sleep(500)) {
      const [{ due }] = await sql<{ due: number }[]>`select count(*)::int as due from app.jobs where status = 'pending' and run_at <= now()`;
      undelivered = (await eventIds()).filter((id) => !receiver.arrivals.has(id));
      if (due === 0 && undelivered.length === 0) break;
    }
    sampling = false;
    await sampler;
    const cpuAfter = cpuAt();
    const coresAfter = coreTimes(servers, database.dataDir);
    // The counters reach the statistics within a second of each statement's transaction.
    await sleep(1_000);
    const seqScans = (await scans())
      .map((t) => {
        const before = scansBefore.find((b) => b.table === t.table);
        return { table: t.table, scans: t.scans - (before?.scans ?? 0), rows: t.rows - (before?.rows ?? 0), pages: t.pages };
      })
      .filter((t) => t.rows > 0)
      .sort((a, b) => b.rows - a.rows)
      .slice(0, 8);
    const rssAfter = servers.map((s) => rssMb(s.pid!));
    // Read before the accounting's own statements below add to them.
    // Every statement once: the ten of each level by time for the table, their sum, and the whole
    // list for SURGE_STATEMENTS.
    const allStatements = await sql<Statement[]>`
      select toplevel, total_exec_time::float8 as ms, calls::float8 as calls, rows::float8 as rows,
             (shared_blks_hit + shared_blks_read)::float8 as buffers, plans::float8 as plans, total_plan_time::float8 as "planMs",
             regexp_replace(query, '\\s+', ' ', 'g') as query
        from pg_stat_statements order by total_exec_time desc`;
    await writeAllStatements(allStatements, processes);
    const statements = [true, false].flatMap((toplevel) => allStatements.filter((st) => st.toplevel === toplevel).slice(0, 10));
    const statementsMs = allStatements.filter((st) => st.toplevel).reduce((sum, st) => sum + st.ms, 0);

    const sourcedRows = await sql<{ ms: number }[]>`
      select extract(epoch from r.created_at - c.created_at) * 1000 as ms
        from app.claims c join app.sourcing_rounds r on r.claim_id = c.id and r.trigger = 'opened'
       where c.org_id = any(${carrierIds}) and c.claim_ref = any(${created})`;
    const [{ present }] = await sql<{ present: number }[]>`select count(*)::int as present from app.claims where claim_ref = any(${created})`;
    const [span] = await sql<{ n: number; seconds: number }[]>`
      select count(*)::int as n, extract(epoch from max(completed_at) - min(completed_at))::float8 as seconds
        from app.webhook_deliveries where status = 'succeeded' and event_id is not null`;
    const eventsTotal = (await eventIds()).length;
    // Waiting on the queue, per kind: from when a job was queued to when it was done, for the jobs
    // due as they were queued (not those of a sandbox clock or scheduled for later). run_at cannot
    // serve: a claim moves it a lease ahead.
    const jobWaits = await sql<{ kind: string; ms: number[] }[]>`
      select kind, array_agg(extract(epoch from completed_at - created_at) * 1000)::float8[] as ms
        from app.jobs
       where status = 'succeeded' and clock_run_at is null and kind <> 'fetch_calendar_import'
       group by kind order by kind`;
    return {
      processes,
      created: created.length,
      sourced: sourcedRows.length,
      sourcedMs: sourcedRows.map((r) => Number(r.ms)),
      steps: { ...steps, ...Object.fromEntries(jobWaits.map((j) => [`job ${j.kind}, queued to done`, j.ms])) },
      readIdle,
      readSurge,
      readSurgeRunnable,
      deliveryMs: receiver.delays,
      deepestQueue,
      drainSeconds: ((emptyAgainAt ?? performance.now()) - deepestAt) / 1000,
      deliveriesPerSecond: span.seconds > 0 ? span.n / span.seconds : 0,
      statuses,
      serverErrors,
      lost: { requests: created.length - present, events: undelivered.length, journeys: size.placements - journeysDone, eventsTotal },
      duplicates: [...receiver.arrivals.values()].reduce((sum, n) => sum + n - 1, 0),
      limiter,
      memory: servers.map((_, i) => `${rssBefore[i]}->${rssAfter[i]}`).join(', '),
      surgeSeconds,
      answers,
      journeys: journeysDone,
      journeysWanted: size.placements,
      cpu: {
        database: databaseCpuByKind(cpuBefore.database, cpuAfter.database), servers: cpuAfter.servers - cpuBefore.servers, driver: cpuAfter.driver - cpuBefore.driver,
      },
      cores: coreWaits(coresBefore, coresAfter),
      cold,
      httpOneAtATime,
      failures: journeyFailures,
      seqScans,
      statements,
      statementsMs,
    };
  } finally {
    stopping = true;
    await sql.end({ timeout: 2 });
    for (const server of servers) await stopped(server);
    await receiver.close();
    await database.stop();
  }
}

/** Seconds waited for a core per second run; '-' where schedstat said nothing (no /proc). */
const perSecondRun = (group: { ran: number; waited: number }) => (group.ran > 0 ? (group.waited / group.ran).toFixed(2) : '-');
/** The database's CPU through the surge, every kind of its processes. */
const databaseTotal = (f: Figures) => Object.values(f.cpu.database).reduce((sum, seconds) => sum + seconds, 0);

/** The machine's cores, which the waiting threads are counted beyond. */
const cores = availableParallelism();

/** The surge's reads split by how many threads were waiting for a core as each began. */
const readsByWaiting: [string, number, number][] = [
  ['no thread waiting for a core', -Infinity, 0], ['1 to 3 waiting', 1, 3], ['4 or more waiting', 4, Infinity],
];

function print(runs: Figures[]) {
  const ms = (v: number) => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(1) : v.toFixed(0));
  const p = (values: number[]) => `${ms(percentile(values, 0.5))} / ${ms(percentile(values, 0.99))}`;
  type Line = [string, (f: Figures) => string, string, ((f: Figures) => boolean) | null];
  const rows: Line[] = [
    ['requests acknowledged / sourced', (f) => `${f.created} / ${f.sourced}`, 'all sourced', (f) => f.sourced === f.created],
    ['creation to sourced, ms p50 / p99', (f) => p(f.sourcedMs), 'p99 <= 5000', (f) => percentile(f.sourcedMs, 0.99) <= 5000],
    ...[...new Set(runs.flatMap((f) => Object.keys(f.steps)))].map((name) =>
      [`${name}, ms p50 / p99 (n)`, (f: Figures) => `${p(f.steps[name] ?? [])} (${f.steps[name]?.length ?? 0})`, 'reported', null] as Line),
    ['read p99 during the surge / idle (p50s)', (f) => `${(percentile(f.readSurge, 0.99) / percentile(f.readIdle, 0.99)).toFixed(2)}x (${ms(percentile(f.readSurge, 0.99))} / ${ms(percentile(f.readIdle, 0.99))} ms; ${ms(percentile(f.readSurge, 0.5))} / ${ms(percentile(f.readIdle, 0.5))})`, '<= 3x', (f) => percentile(f.readSurge, 0.99) <= 3 * percentile(f.readIdle, 0.99)],
    ...readsByWaiting.map(([label, from, to]) => [
      `read during the surge, ${label}: ms p50 / p99 (n)`,
      (f: Figures) => {
        // Threads waiting for a core as the read began: the others runnable, less the cores the reader's own thread leaves them.
        const waiting = (i: number) => f.readSurgeRunnable[i] - (cores - 1);
        const reads = f.readSurge.filter((_, i) => f.readSurgeRunnable[i] >= 0 && waiting(i) >= from && waiting(i) <= to);
        return `${p(reads)} (${reads.length})`;
      },
      'where the wait goes', null] as Line),
    ['event to delivery, ms p50 / p99', (f) => p(f.deliveryMs), 'p99 <= 5000', (f) => percentile(f.deliveryMs, 0.99) <= 5000],
    ['job queue: deepest (due jobs) / empty again after, s', (f) => `${f.deepestQueue} / ${f.drainSeconds.toFixed(1)}`, 'reported', null],
    ['deliveries per second (first to last)', (f) => f.deliveriesPerSecond.toFixed(0), 'reported', null],
    ['answers by status', (f) => [...f.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', '), '0 5xx', (f) => f.serverErrors.length === 0],
    ['lost: requests / events / journeys', (f) => `${f.lost.requests} / ${f.lost.events} of ${f.lost.eventsTotal} / ${f.lost.journeys} of ${f.journeysWanted}`, '0 / 0 / 0', (f) => !f.lost.requests && !f.lost.events && !f.lost.journeys],
    ['events delivered twice', (f) => String(f.duplicates), '0', (f) => f.duplicates === 0],
    [`one key, ${limiterRequests} calls in its minute: through`, (f) => `${f.limiter.through} of ${f.limiter.sent}${f.limiter.windows > 1 ? ' (window rolled over)' : ''}`, `exactly ${limiterLimit}`, (f) => f.limiter.windows === 1 && f.limiter.through === limiterLimit],
    ['server RSS MB, start -> end', (f) => f.memory, 'reported', null],
    ['surge: answers / s, placements / s', (f) => `${(f.answers / f.surgeSeconds).toFixed(0)} / ${(f.journeys / f.surgeSeconds).toFixed(1)} (${f.surgeSeconds.toFixed(0)} s)`, 'reported', null],
    ['CPU s: database / servers / this driver', (f) => `${databaseTotal(f).toFixed(0)} / ${f.cpu.servers.toFixed(0)} / ${f.cpu.driver.toFixed(0)}`, 'where the time goes', null],
    ['database CPU s: connections / autovacuum / background / ended', (f) => `${f.cpu.database.connections.toFixed(1)} / ${f.cpu.database.autovacuum.toFixed(1)} / ${f.cpu.database.background.toFixed(1)} / ${f.cpu.database.ended.toFixed(1)}`, 'where the time goes', null],
    ['waited for a core, s: database / request threads / servers\' others / driver', (f) => `${f.cores.database.waited.toFixed(0)} / ${f.cores.requests.waited.toFixed(0)} / ${f.cores['server others'].waited.toFixed(0)} / ${f.cores.driver.waited.toFixed(0)}`, 'where the wait goes', null],
    ['request threads: waited for a core per second run', (f) => perSecondRun(f.cores.requests), 'where the wait goes', null],
    ['database: waited for a core per second run', (f) => perSecondRun(f.cores.database), 'where the wait goes', null],
  ];
  const header = ['figure', ...runs.map((f) => `${f.processes} process${f.processes > 1 ? 'es' : ''}`), 'target', ''];
  const table = rows.map(([name, value, target, met]) => [
    name, ...runs.map(value), target, met === null ? '' : runs.every(met) ? 'met' : `MISSED (${runs.filter((f) => !met(f)).map((f) => f.processes).join(', ')})`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((value, i) => value.padEnd(widths[i])).join('  ').trimEnd();
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${table.map(line).join('\n')}`);
  if (runs.length === 2) {
    const [one, two] = runs;
    console.log(`\nthroughput, two processes over one: ${((two.answers / two.surgeSeconds) / (one.answers / one.surgeSeconds)).toFixed(2)}x answers/s`);
  }
  const cold = runs.find((f) => f.cold);
  if (cold?.cold && cold.httpOneAtATime) {
    const http = cold.httpOneAtATime;
    console.log(`\nmatches one call at a time (${size.homes.toLocaleString('en-US')} homes, idle), target <= 3x a read:`);
    console.log(`  over HTTP, warm pool: matches p50 ${ms(http.match)} ms, read ${ms(http.read)} ms: ${(http.match / http.read).toFixed(2)}x`);
    for (const [name, run] of [['as the service runs them', cold.cold.asIs], ['every statement generic, the outer ones too (plan_cache_mode on the connection)', cold.cold.generic]] as const) {
      console.log(`  the statements, ${name}:`);
      console.log(`    a fresh connection each call: match ${ms(run.fresh.match)} ms, read ${ms(run.fresh.read)} ms: ${(run.fresh.match / run.fresh.read).toFixed(2)}x`);
      console.log(`    one warm connection: match ${ms(run.warm.match)} ms, read ${ms(run.warm.read)} ms: ${(run.warm.match / run.warm.read).toFixed(2)}x`);
      console.log(`    a new connection's first five matches: ${run.firstFive.map(ms).join(', ')} ms`);
    }
  }
  for (const f of runs) {
    console.log(`\n${f.processes} process(es), tables read whole during the surge (rows read, scans, pages at the end): ${f.seqScans.map((t) => `${t.table} ${t.rows} (${t.scans}, ${t.pages})`).join(', ') || 'none'}`);
  }
  for (const f of runs) {
    // The client's statements by total time; then the ones inside functions (their time is also their caller's).
    const shown = (toplevel: boolean, n: number) => f.statements.filter((s) => s.toplevel === toplevel).slice(0, n);
    for (const [title, list] of [['the ten statements by total time', shown(true, 10)], ['inside functions, the five by total time', shown(false, 5)]] as const) {
      console.log(`\n${f.processes} process(es), ${title} during the surge (pg_stat_statements):`);
      console.log(`  ${'total ms'.padStart(9)}  ${'calls'.padStart(7)}  ${'ms/call'.padStart(7)}  ${'rows'.padStart(8)}  statement`);
      for (const s of list) {
        console.log(`  ${s.ms.toFixed(0).padStart(9)}  ${String(s.calls).padStart(7)}  ${(s.ms / s.calls).toFixed(2).padStart(7)}  ${String(s.rows).padStart(8)}  ${s.query.slice(0, 150)}`);
      }
    }
    console.log(`  (all the client's statements: ${(f.statementsMs / 1000).toFixed(1)} s)`);
  }
  for (const f of runs) {
    for (const failure of [...f.failures, ...f.serverErrors].slice(0, 5)) console.log(`  ${f.processes} process(es): ${failure}`);
  }
  console.log(`\n${size.homes} homes, ${size.providers} providers, ${size.carriers} carriers, ${size.requests} requests in ${size.createSeconds} s, ${size.placements} placements; load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}${requestThreadNice === undefined ? '' : `; the servers' request threads at nice ${requestThreadNice}`}`);
}

const runs: Figures[] = [];
for (const processes of processCounts) {
  runs.push(await surge(processes));
  // Each run's table as soon as it is done (a later run that fails does not take it along).
  if (processCounts.length > 1 && runs.length < processCounts.length) print(runs);
}
print(runs);
step('done');
process.exit(0);
