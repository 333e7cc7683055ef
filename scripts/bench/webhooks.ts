// Webhook delivery scenario of `npm run bench`: one dispatcher against a local HTTPS receiver that
// answers at once.
//   1. throughput: deliveries per second through one dispatcher, and its peak memory;
//   2. with BENCH_WEBHOOK_BACKLOG=true, also a backlog: 100,000 due deliveries drained, with the
//      claim statement timed from first to last batch (it must not slow down as the queue drains:
//      the partial index on due time). It takes a few minutes, so the standard run leaves it out.
// Runs in a child process so that Node trusts the test authority of the receiver's certificate
// (NODE_EXTRA_CA_CERTS is read at start-up), on its own embedded database in a temporary folder.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import postgres from 'postgres';

const tls = new URL('../../tests/fixtures/tls/', import.meta.url).pathname;
const throughputEvents = 20_000;
const backlogEvents = 100_000;
const sliceMs = 2_000;

export interface WebhookResult {
  deliveriesPerSecond: number;
  delivered: number;
  failed: number;
  peakRssMb: number;
}

/** Runs the scenario in its child process; its report lines go to stderr, its result comes back. */
export async function webhooksBench(): Promise<WebhookResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: join(tls, 'ca.pem'), WEBHOOKS_BENCH_RUN: '1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`webhooks benchmark failed (exit ${code})`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as WebhookResult;
}

const report = (line: string) => process.stderr.write(`  ${line}\n`);

/** The receiver runs in its own process so that its work does not count against the dispatcher. */
async function startReceiver() {
  const script = `
    const https = require('node:https');
    const fs = require('node:fs');
    const server = https.createServer({ cert: fs.readFileSync(process.env.CERT), key: fs.readFileSync(process.env.KEY), keepAliveTimeout: 60000 },
      (req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); }); });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const receiver = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, CERT: join(tls, 'receiver.pem'), KEY: join(tls, 'receiver-key.pem') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) => receiver.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
  return { url: `https://127.0.0.1:${port}/bench`, stop: () => receiver.kill() };
}

function memorySampler() {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  };
  const timer = setInterval(sample, 50);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { peakRssMb: Math.round(peakRss / 1048576), peakHeapMb: Math.round(peakHeap / 1048576) };
    },
  };
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

async function run() {
  const { median, startScratchDatabase } = await import('../lib/scratch.ts');
  const database = await startScratchDatabase('hps-bench-webhooks-');
  process.env.DATABASE_URL = database.url;
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  const receiver = await startReceiver();
  try {
    const { dispatchDue } = await import('../../shared/webhooks/dispatcher.ts');
    const { closeDb } = await import('../../shared/db/client.ts');
    const { definitionOf } = await import('../../shared/events/registry.ts');
    const payload = definitionOf('lease.sent', 'carrier')!.sample;

    const [{ id: orgId }] = await sql<{ id: string }[]>`
      insert into app.organisations (name, side) values ('Bench Mutual', 'carrier') returning id`;
    await sql`
      insert into app.webhook_endpoints (org_id, environment, url, secret)
      values (${orgId}, 'live', ${receiver.url}, 'whsec_benchbenchbenchbenchbenchbench01')`;

    /** Records `count` events in one statement; the fan-out trigger queues one delivery each. */
    const record = async (count: number) => {
      const started = performance.now();
      await sql`
        insert into app.events (org_id, environment, event, payload)
        select ${orgId}, 'live', 'lease.sent', ${sql.json(payload as never)} from generate_series(1, ${count})`;
      return performance.now() - started;
    };
    const pending = async () =>
      (await sql<{ n: number }[]>`select count(*)::int as n from app.webhook_deliveries where status = 'pending'`)[0].n;

    // 1. Throughput.
    const fanOutMs = await record(throughputEvents);
    const memory = memorySampler();
    const throughput = await dispatchDue();
    const { peakRssMb, peakHeapMb } = memory.stop();
    const rate = (throughput.succeeded / throughput.duration_ms) * 1000;
    report(`recording + fan-out: ${throughputEvents} events in ${Math.round(fanOutMs)} ms (${Math.round((throughputEvents / fanOutMs) * 1000)} events/s, same transaction)`);
    report(`throughput: ${throughput.succeeded}/${throughputEvents} delivered in ${throughput.duration_ms} ms = ${Math.round(rate)} deliveries/s, ${throughput.failed} failed (target at least 500/s: ${rate >= 500 && throughput.failed === 0 ? 'meets' : 'MISSES'})`);
    report(`memory while dispatching ${throughputEvents}: peak RSS ${peakRssMb} MB, peak heap ${peakHeapMb} MB (at most 100 deliveries in flight)`);

    const result: WebhookResult = { deliveriesPerSecond: Math.round(rate), delivered: throughput.succeeded, failed: throughput.failed, peakRssMb };
    if (process.env.BENCH_WEBHOOK_BACKLOG !== 'true') {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      await closeDb();
      return;
    }

    // 2. Backlog of 100,000 due deliveries, drained in slices; claim time per slice.
    await record(backlogEvents);
    const plan = await sql<{ 'QUERY PLAN': string }[]>`
      explain select id from app.webhook_deliveries
       where status = 'pending' and next_attempt_at <= now() order by next_attempt_at limit 100 for update skip locked`;
    const scan = plan.map((row) => row['QUERY PLAN'].trim()).find((line) => /Scan/.test(line));
    report(`claim plan at ${await pending()} due: ${scan}`);
    const slices: Array<{ backlog: number; claimMs: number; maxMs: number; rate: number }> = [];
    const backlogMemory = memorySampler();
    const drainStarted = performance.now();
    for (;;) {
      const backlog = await pending();
      if (backlog === 0) break;
      const slice = await dispatchDue({ budgetMs: sliceMs });
      slices.push({
        backlog,
        claimMs: slice.claim_ms_total / Math.max(1, slice.claims),
        maxMs: slice.claim_ms_max,
        rate: (slice.succeeded / slice.duration_ms) * 1000,
      });
    }
    const drainMs = performance.now() - drainStarted;
    const backlogPeak = backlogMemory.stop();
    // The first and last five slices, by median: single slices on a shared machine are noisy.
    const first = slices.slice(0, 5);
    const last = slices.slice(-5);
    const firstClaim = median(first.map((s) => s.claimMs));
    const lastClaim = median(last.map((s) => s.claimMs));
    const ratio = lastClaim / firstClaim;
    report(`backlog: ${backlogEvents} deliveries drained in ${round(drainMs / 1000, 1)} s (${Math.round((backlogEvents / drainMs) * 1000)} deliveries/s); peak RSS ${backlogPeak.peakRssMb} MB, heap ${backlogPeak.peakHeapMb} MB: memory does not grow with the queue`);
    report(`claim (up to 100 rows): median ${round(firstClaim)} ms with ${first[0].backlog} due, ${round(lastClaim)} ms with ${last[0].backlog} or fewer due; ratio last/first ${round(ratio)} (target: no slowdown as the backlog drains: ${ratio <= 1.5 ? 'meets' : 'MISSES'}); slowest single claim ${round(Math.max(...slices.map((s) => s.maxMs)))} ms`);
    report(`rate per ${sliceMs / 1000} s slice: first ${Math.round(median(first.map((s) => s.rate)))}/s, last ${Math.round(median(last.map((s) => s.rate)))}/s`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    await closeDb();
  } finally {
    receiver.stop();
    await sql.end();
    await database.stop();
  }
}

if (process.env.WEBHOOKS_BENCH_RUN) {
  await run();
  process.exit(0);
}
