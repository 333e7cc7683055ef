// npm run chaos: does an acknowledged write survive the server being killed at any moment?
//
// Starts the server (npm start's script) on the embedded PostgreSQL in a fresh DATA_DIR, with a
// local HTTPS receiver for its webhooks (a certificate made for 127.0.0.1 by openssl, trusted by the
// server through NODE_EXTRA_CA_CERTS; the receiver fails one delivery in ten, so retries happen too).
// Workers drive placements through the API: a request, place, dates, both signatures, the payment,
// and simulated events, each call retried with its Idempotency-Key until answered, as an integrator
// would. Meanwhile the server is killed with SIGKILL at random moments (and once the database
// process too) and restarted on the same data directory; the time from the kill to a healthy
// server is recorded. Then it waits for every webhook to arrive and checks, from the database and
// the receiver:
//   - every acknowledged write is there (each request the API answered, each payment it answered);
//   - no request was created twice (one per external_id), no part of a period was paid twice,
//     no placement has two bookings;
//   - every event of the two organisations reached the receiver.
// It prints the figures and exits 1 on any failure. Not part of npm test (it takes a minute or two).
//
// Settings: CHAOS_KILLS (default 6, one of which also kills the database), CHAOS_PLACEMENTS
// (default 60), CHAOS_WORKERS (default 4), CHAOS_SEED (default fixed: the kill moments).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { runCommand } from '../console/commands.ts';
import { openDatabase } from '../lib/database.ts';
import { child, waitFor } from '../lib/processes.ts';
import { freePort } from '../lib/scratch.ts';

const kills = Number(process.env.CHAOS_KILLS ?? 6);
const placements = Number(process.env.CHAOS_PLACEMENTS ?? 60);
const workers = Number(process.env.CHAOS_WORKERS ?? 4);
let seed = Number(process.env.CHAOS_SEED ?? 20261125);
/** A small seeded generator (mulberry32), so a run's kill moments can be repeated. */
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = performance.now();
const step = (message: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${message}`);
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A certificate and key for 127.0.0.1, made with openssl (Debian's, present on the project's machines). */
function certificateIn(dir: string) {
  const [key, cert] = [join(dir, 'receiver-key.pem'), join(dir, 'receiver-cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { key, cert };
}

/** The webhook receiver: every event id that arrived (a delivery answered 200), one failure in ten answered 500. */
async function startReceiver(tls: { key: string; cert: string }) {
  const received = new Set<string>();
  let attempts = 0;
  const server = createHttpsServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      attempts += 1;
      if (random() < 0.1) return void res.writeHead(500).end('try again');
      try {
        received.add((JSON.parse(body) as { id: string }).id);
      } catch {
        // not an envelope: counts for nothing
      }
      res.writeHead(200).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${port}/hooks`, received, attempts: () => attempts, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The postmaster of the embedded database and its children (the backends), from its pid file and /proc. */
function databaseProcesses(dataDir: string): number[] {
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster;
    } catch {
      return false;
    }
  }).map(Number);
  return [...children, postmaster];
}

/** Whether a process still runs (exists and is not a zombie). */
function isLive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
  } catch {
    return false;
  }
}

function signal(pids: number[], name: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone already
    }
  }
}

interface Ack {
  claims: Map<string, string>;
  payments: Set<string>;
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'hps-chaos-'));
  const tls = certificateIn(dataDir);
  const receiver = await startReceiver(tls);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/functions/v1`;
  const env = {
    DATA_DIR: dataDir, PORT: String(port), DB_PORT: String(await freePort()), DATABASE_URL: undefined, MIGRATE: 'true',
    NODE_EXTRA_CA_CERTS: tls.cert, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,2,3,5,8,13',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200', PAY_LINK_SECRET: 'chaos-run-link-secret-of-at-least-32-characters',
  };
  let server: ChildProcess = child('scripts/server.ts', env);
  server.stdout!.resume();
  step(`starting the server in ${dataDir}`);
  await waitFor(`${base}/health`, 120_000);
  const sql = postgres((await openDatabase({ dataDir })).url, { max: 2, onnotice: () => {} });
  const failures: string[] = [];
  const recoveries: { kind: string; ms: number }[] = [];
  try {
    // Keys from the console, with limits no workload here reaches.
    const consoleData = async <T>(...argv: string[]) => ((await runCommand(sql, argv)) as { data: T }).data;
    const newKey = async (orgId: string) => {
      const key = await consoleData<{ id: string; key: string }>('key', 'create', '--org', orgId, '--env', 'sandbox');
      await consoleData('key', 'limit', '--id', key.id, '--per-minute', '100000');
      return key.key;
    };
    const carrier = (await consoleData<{ id: string }>('org', 'create', '--name', 'Chaos carrier', '--side', 'carrier')).id;
    const provider = (await consoleData<{ id: string }>('org', 'create', '--name', 'Chaos provider', '--side', 'provider')).id;
    const keys = { carrier: await newKey(carrier), provider: await newKey(provider) };
    await sql`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      values (${provider}, 'sandbox', true, true, true, 'complete')`;
    const homes = (await sql<{ id: string }[]>`
      insert into app.properties (
        org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
        bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
        application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status)
      select ${provider}, 'live', 'Chaos ' || i, i || ' Chaos St', 'Austin', 'TX', '78701', 30.27 + i * 0.001, -97.74,
             200000, 2, 1, 900, 'furnished', current_date, 100000, 0, 0, 0, array['https://img.example.com/a.jpg'],
             'A home.', array['wifi'], 'Cats and dogs welcome', 'available'
        from generate_series(1, ${placements}) i
      returning id`).map((h) => h.id);

    /**
     * One call as an integrator makes it: retried with the same Idempotency-Key while the server is
     * down, answers 5xx or says the key's first call is still in progress; the first definite answer
     * is returned (2xx, or a 4xx it means).
     */
    const call = async (key: string, method: string, path: string, body?: unknown, idempotencyKey?: string) => {
      const until = Date.now() + 120_000;
      for (;;) {
        try {
          const response = await fetch(`${base}${path}`, {
            method,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(15_000),
          });
          const json = (await response.json().catch(() => ({}))) as any;
          // The key's first call is still running, or died with a killed server (its claim lapses within 30 s): again, as the answer says.
          const inProgress = response.status === 409 && json?.error?.code === 'request_in_progress';
          if (response.status < 500 && !inProgress) return { status: response.status, body: json };
        } catch {
          // the server is down (killed), or the answer was lost with it: the same call again
        }
        if (Date.now() > until) throw new Error(`${method} ${path}: no answer within 120 s`);
        await sleep(250);
      }
    };
    /** The change was made, its answer lost with a killed server: done, as the API says. */
    const answerLost = (res: { status: number; body: any }) => res.status === 409 && res.body?.error?.code === 'idempotent_answer_lost';
    let answersLost = 0;
    const must = async (...args: Parameters<typeof call>) => {
      const res = await call(...args);
      if (answerLost(res)) answersLost += 1;
      else if (res.status >= 300) throw new Error(`${args[1]} ${args[2]}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.body;
    };

    step('webhook endpoints for both organisations, to the HTTPS receiver');
    await must(keys.carrier, 'POST', '/webhooks', { url: receiver.url }, 'chaos-endpoint-carrier');
    await must(keys.provider, 'POST', '/webhooks', { url: receiver.url }, 'chaos-endpoint-provider');

    const ack: Ack = { claims: new Map(), payments: new Set() };
    /** One placement's journey, every write with its own Idempotency-Key; what the API acknowledged is recorded. */
    const journey = async (i: number) => {
      const externalId = `CHAOS-${i}`;
      const created = await call(keys.carrier, 'POST', '/claims', {
        loss_address: '12 Harbor Lane', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701', loss_lat: 30.27, loss_lng: -97.74,
        target_move_in: inDays(30), est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, property_type: 'apartment',
        furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'carrier', max_budget: 2500, external_id: externalId,
        household_email: 'family@example.com', adjuster_email: 'adjuster@example.com',
      }, `chaos-claim-${i}`);
      let ref: string;
      if (answerLost(created)) {
        answersLost += 1;
        ref = (await must(keys.carrier, 'GET', `/claims?external_id=${externalId}`)).data[0].claim_ref;
      } else if (created.status === 201) {
        ref = created.body.data.claim_ref;
      } else {
        throw new Error(`claim ${i}: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
      }
      ack.claims.set(externalId, ref);
      await must(keys.carrier, 'POST', `/claims/${ref}/options`, { property_id: homes[i], action: 'place', approve_budget: true }, `chaos-place-${i}`);
      await must(keys.carrier, 'POST', `/claims/${ref}/dates`, { property_id: homes[i], move_in: inDays(40), move_out: inDays(130) }, `chaos-dates-${i}`);
      for (let tries = 0; ; tries++) {
        const placement = await must(keys.carrier, 'GET', `/claims/${ref}/placement`);
        if (placement.data.homes[0]?.lease?.status === 'sent_for_signature') break;
        if (tries > 600) throw new Error(`claim ${i}: the contract was never sent`);
        await sleep(200);
      }
      await must(keys.carrier, 'POST', `/sandbox/claims/${ref}/homes/${homes[i]}/household`, { action: 'sign' }, `chaos-household-${i}`);
      await must(keys.carrier, 'POST', `/sandbox/claims/${ref}/homes/${homes[i]}/landlord`, { action: 'sign' }, `chaos-landlord-${i}`);
      await must(keys.carrier, 'POST', '/events/simulate', { event: 'lease.sent' }, `chaos-simulate-${i}`);
      const paid = await call(keys.carrier, 'POST', `/sandbox/claims/${ref}/homes/${homes[i]}/payment`, { outcome: 'succeeded' }, `chaos-pay-${i}`);
      if (answerLost(paid)) answersLost += 1;
      else if (paid.status !== 200) throw new Error(`payment ${i}: ${paid.status} ${JSON.stringify(paid.body).slice(0, 200)}`);
      ack.payments.add(ref);
    };

    step(`workload: ${placements} placements by ${workers} workers; ${kills} kills at random moments (one also of the database)`);
    let next = 0;
    const work = Promise.all(Array.from({ length: workers }, async () => {
      while (next < placements) await journey(next++);
    }));
    work.catch(() => {}); // awaited below; a failure there is reported, after the kills
    const databaseKill = Math.floor(random() * kills);
    for (let k = 0; k < kills; k++) {
      await sleep(500 + random() * 1500);
      const withDatabase = k === databaseKill;
      const killedAt = performance.now();
      signal([server.pid!], 'SIGKILL');
      if (withDatabase) {
        const database = databaseProcesses(dataDir);
        signal(database, 'SIGKILL');
        // As a supervisor would: restart once the killed processes are gone (a postmaster nobody reaps stays a zombie).
        for (const until = Date.now() + 10_000; Date.now() < until && database.some(isLive); ) await sleep(50);
      }
      await new Promise<void>((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve() : server.once('exit', () => resolve())));
      // A killed postmaster leaves its pid file; the next start finds it stale and recovers.
      server = child('scripts/server.ts', env);
      server.stdout!.resume();
      await waitFor(`${base}/health`, 120_000);
      const ms = Math.round(performance.now() - killedAt);
      recoveries.push({ kind: withDatabase ? 'server and database' : 'server', ms });
      step(`kill ${k + 1}: ${withDatabase ? 'server and database' : 'server'} SIGKILL; healthy again after ${ms} ms (${ack.payments.size} payments acknowledged so far)`);
    }
    await work;
    step(`workload done: ${ack.claims.size} requests and ${ack.payments.size} payments acknowledged`);

    step('waiting for every webhook to arrive');
    const orgs = [carrier, provider];
    const eventIds = async () => (await sql<{ id: string }[]>`select id from app.events where org_id = any(${orgs}) and environment = 'sandbox'`).map((r) => r.id);
    let missing: string[] = [];
    for (const until = Date.now() + 180_000; Date.now() < until; await sleep(500)) {
      missing = (await eventIds()).filter((id) => !receiver.received.has(id));
      if (missing.length === 0) break;
    }

    // The checks.
    const lostClaims: string[] = [];
    for (const [externalId, ref] of ack.claims) {
      const res = await call(keys.carrier, 'GET', `/claims/${ref}`);
      if (res.status !== 200 || res.body.data.api_external_id !== externalId) lostClaims.push(ref);
    }
    const doubledClaims = await sql`
      select external_id from app.claims where org_id = ${carrier} and external_id is not null group by 1 having count(*) > 1`;
    const lostPayments: string[] = [];
    for (const ref of ack.payments) {
      const res = await call(keys.carrier, 'GET', `/claims/${ref}/placement`);
      if (!(res.body.data?.homes?.[0]?.payments_succeeded >= 1)) lostPayments.push(ref);
    }
    const doubledPayments = await sql`
      select claim_home_id, period_start, count(*) from app.payments
       where carrier_org_id = ${carrier} and status in ('succeeded', 'refunded') and duplicate_of is null
       group by 1, 2 having count(*) > 1`;
    const doubledBookings = await sql`
      select claim_home_id, count(*) from app.bookings where carrier_org_id = ${carrier} and booking_status in ('confirmed', 'completed')
       group by 1 having count(*) > 1`;
    const events = (await eventIds()).length;
    const figures = [
      ['acknowledged requests', ack.claims.size, 'missing', lostClaims.length],
      ['requests created twice', doubledClaims.length, '', 0],
      ['acknowledged payments', ack.payments.size, 'missing', lostPayments.length],
      ['payments recorded twice', doubledPayments.length, '', 0],
      ['bookings confirmed twice', doubledBookings.length, '', 0],
      ['events', events, 'never delivered', missing.length],
    ] as const;
    console.log('\n| figure | count | lost or doubled |\n|---|---|---|');
    for (const [name, count, , bad] of figures) console.log(`| ${name} | ${count} | ${name.includes('twice') ? count : bad} |`);
    console.log(`\nkills: ${recoveries.length} (${recoveries.filter((r) => r.kind !== 'server').length} with the database); ` +
      `time to recover (kill to healthy): ${recoveries.map((r) => r.ms).join(', ')} ms; webhook attempts at the receiver: ${receiver.attempts()}; ` +
      `writes whose answer was lost with a kill (done once, said so): ${answersLost}`);
    if (lostClaims.length) failures.push(`acknowledged requests missing: ${lostClaims.join(', ')}`);
    if (doubledClaims.length) failures.push(`requests created twice: ${doubledClaims.map((r) => r.external_id).join(', ')}`);
    if (lostPayments.length) failures.push(`acknowledged payments missing: ${lostPayments.join(', ')}`);
    if (doubledPayments.length) failures.push(`payments recorded twice: ${doubledPayments.length}`);
    if (doubledBookings.length) failures.push(`bookings confirmed twice: ${doubledBookings.length}`);
    if (missing.length) failures.push(`events never delivered: ${missing.length} of ${events}`);
    if (ack.payments.size !== placements) failures.push(`only ${ack.payments.size} of ${placements} journeys finished`);
    if (recoveries.length < kills) failures.push(`only ${recoveries.length} of ${kills} kills happened`);
  } catch (error) {
    failures.push(`the run itself failed: ${(error as Error).stack ?? error}`);
  } finally {
    await sql.end({ timeout: 2 }).catch(() => {});
    server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.once('exit', resolve)));
    // The server reuses a database it did not start (after a kill), and so leaves it running: stop it.
    signal(databaseProcesses(dataDir).slice(-1), 'SIGINT');
    await sleep(1000);
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  if (failures.length) {
    console.log(`\nFAILED:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
  console.log(`\n0 lost, 0 doubled, 0 undelivered across ${recoveries.length} kills (${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  process.exit(0);
}

await main();
