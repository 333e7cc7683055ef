// npm run chaos: does an acknowledged write survive the server, or the server with its database,
// being killed at any moment of a load?
//
// Starts the server (npm start's script) in a process group of its own, on the embedded PostgreSQL
// in a fresh DATA_DIR, with a local HTTPS receiver for its webhooks (a certificate made for
// 127.0.0.1 by openssl, trusted by the server through NODE_EXTRA_CA_CERTS). The receiver fails one
// delivery in ten, and every delivery during an outage of a few seconds, so retries pile up.
// Workers drive placements through the API for CHAOS_SECONDS: a request, place, dates, both
// signatures, simulated events and the first payment (one request in three has the deposits paid
// by another payer, so its payment is split in two shares, each paid on its own), each call retried
// with its Idempotency-Key until answered, as an integrator would.
//
// Meanwhile the server is killed with SIGKILL at random moments spread over the whole load, some
// kills taking its whole process group (the server and the PostgreSQL it runs), and restarted on
// the same data directory; two more kills are aimed: one while deliveries wait for their retry in
// the receiver's outage, one between the two shares of a split payment (the second share's call in
// flight). A last kill of the whole group closes the load, so every check below reads what survived
// a restart. Then it waits for every webhook and every due job, and checks what no unique index
// would catch:
//   - every acknowledged keyed write, sent again with its key, answers the bytes it answered first,
//     marked as a replay (a different answer: lost; an unmarked one: the write ran twice);
//   - every acknowledged payment is recorded, and the charge it paid is in the stay's ledger exactly
//     once: each part it paid sums, over the ledger's entries charging it (not its payment and
//     refund entries), to what was paid;
//   - the ledger and the processor's record agree, stay by stay (`ledger reconcile` lists nothing);
//   - every event of the two organisations reached the receiver at least once;
//   - every job of the two organisations ended done, or abandoned with its reason; none is still due
//     or held by a killed server.
// It prints the figures and exits 1 naming each failed check. Not part of npm test.
//
// Settings: CHAOS_SECONDS (default 90: the load), CHAOS_KILLS (default 6: the kills at random
// moments, CHAOS_GROUP_KILLS of them, default 2, of the whole group), CHAOS_WORKERS (default 4),
// CHAOS_SEED (default fixed: the kill moments, the outage and which kills take the group).
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

const seconds = Number(process.env.CHAOS_SECONDS ?? 90);
const timedKills = Number(process.env.CHAOS_KILLS ?? 6);
const groupKills = Math.min(Number(process.env.CHAOS_GROUP_KILLS ?? 2), timedKills);
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
const elapsed = () => (performance.now() - started) / 1000;
const step = (message: string) => console.log(`[${elapsed().toFixed(1)} s] ${message}`);
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A certificate and key for 127.0.0.1, made with openssl (Debian's, present on the project's machines). */
function certificateIn(dir: string) {
  const [key, cert] = [join(dir, 'receiver-key.pem'), join(dir, 'receiver-cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { key, cert };
}

/**
 * The webhook receiver: every event id that arrived (a delivery answered 200). It answers 500 to one
 * delivery in ten, and to every delivery during `outage` (seconds into the run, set as it goes).
 */
async function startReceiver(tls: { key: string; cert: string }, outage: { from: number; to: number }) {
  const received = new Set<string>();
  let attempts = 0;
  let refused = 0;
  const server = createHttpsServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      attempts += 1;
      const now = elapsed();
      if ((now >= outage.from && now < outage.to) || random() < 0.1) {
        refused += 1;
        return void res.writeHead(500).end('try again');
      }
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
  return {
    url: `https://127.0.0.1:${port}/hooks`, received, attempts: () => attempts, refused: () => refused,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A process's fields from /proc after its name: state, parent, process group, ... (none when it is gone). */
function procStat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}

/** The postmaster of the embedded database and its children (the backends), from its pid file and /proc. */
function databaseProcesses(dataDir: string): number[] {
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number)
    .filter((pid) => Number(procStat(pid)?.[1]) === postmaster);
  return [...children, postmaster];
}

/** Whether a process still runs (exists and is not a zombie). */
const isLive = (pid: number) => {
  const state = procStat(pid)?.[0];
  return state !== undefined && state !== 'Z';
};

function signal(pids: number[], name: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone already
    }
  }
}

/** A keyed write the API acknowledged (2xx), with the bytes it answered. */
interface KeyedWrite {
  apiKey: string;
  method: string;
  path: string;
  body: unknown;
  idempotencyKey: string;
  status: number;
  text: string;
}

/** A payment call the API acknowledged: every share due then, or one payer's. */
interface PaidShare {
  ref: string;
  propertyId: string;
  payer?: string;
}

/** This script's own process group, which a kill must never take. */
const ownGroup = Number(procStat(process.pid)?.[2]);

type KillKind = 'server' | 'group';
interface Kill {
  kind: KillKind;
  why: string;
  /** What was under way when it landed (deliveries waiting for a retry, shares paid). */
  found: string;
  recoveryMs: number;
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'hps-chaos-'));
  const tls = certificateIn(dataDir);
  // Drawn first, so a seed repeats them: the random kill moments (spread over the load, some of the
  // whole group), the receiver's outage and whether each aimed kill takes the group.
  // Moments are seconds into the load.
  const moments = Array.from({ length: timedKills }, () => seconds * (0.03 + random() * 0.94)).sort((a, b) => a - b);
  const groupAt = new Set<number>();
  while (groupAt.size < groupKills) groupAt.add(Math.floor(random() * timedKills));
  const outageAt = seconds * (0.2 + random() * 0.4);
  const outage = { from: Infinity, to: Infinity };
  const aimedKind = (): KillKind => (random() < 0.5 ? 'group' : 'server');
  const retryKillKind = aimedKind();
  const splitKillKind = aimedKind();

  const receiver = await startReceiver(tls, outage);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/functions/v1`;
  const env = {
    DATA_DIR: dataDir, PORT: String(port), DB_PORT: String(await freePort()), DATABASE_URL: undefined, MIGRATE: 'true',
    // Retries for about a minute: longer than the receiver's outage with the kills queued in it.
    NODE_EXTRA_CA_CERTS: tls.cert, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,2,3,5,8,13,21',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200', PAY_LINK_SECRET: 'chaos-run-link-secret-of-at-least-32-characters',
    // A job held by a killed server falls due again after its lease: short here, so the run stays short.
    JOB_LEASE_MS: '10000',
    // A job that keeps failing is abandoned within the run (eight attempts), not after days of backoff.
    JOB_RETRY_SCHEDULE: '1,1,2',
  };
  const start = () => {
    const started = child('scripts/server.ts', env, { ownGroup: true });
    started.stdout!.resume();
    return started;
  };
  let server: ChildProcess = start();
  step(`starting the server in its own process group, on a fresh data directory`);
  await waitFor(`${base}/health`, 120_000);
  const sql = postgres((await openDatabase({ dataDir })).url, { max: 2, onnotice: () => {} });
  const failures: string[] = [];
  const kills: Kill[] = [];
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
    const orgs = [carrier, provider];
    const keys = { carrier: await newKey(carrier), provider: await newKey(provider) };
    await sql`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      values (${provider}, 'sandbox', true, true, true, 'complete')`;
    // More homes than the load can place (a placement takes a worker a second or more).
    const homes = (await sql<{ id: string }[]>`
      insert into app.properties (
        org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
        bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
        application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status)
      select ${provider}, 'live', 'Chaos ' || i, i || ' Chaos St', 'Austin', 'TX', '78701', 30.27 + i * 0.001, -97.74,
             200000, 2, 1, 900, 'furnished', current_date, 100000, 0, 0, 0, array['https://img.example.com/a.jpg'],
             'A home.', array['wifi'], 'Cats and dogs welcome', 'available'
        from generate_series(1, ${Math.ceil(seconds * workers)}) i
      returning id`).map((h) => h.id);

    // The kills, one at a time, whoever asks for one.
    let killing: Promise<unknown> = Promise.resolve();
    /**
     * Kills the server (SIGKILL), or its whole process group and the group of the database it uses
     * (which an earlier server may have started), waits for them to be gone, restarts the server
     * and times the recovery. `found` says, just before, what the kill lands on; `landing` runs
     * just before the signal (a call sent into it).
     */
    const kill = (kind: KillKind, why: string, found: () => Promise<string> = async () => '', landing?: () => void) => {
      const done = killing.then(async () => {
        const what = await found().catch((error) => `unknown (${(error as Error).message})`);
        landing?.();
        if (landing) await sleep(random() * 40);
        const killedAt = performance.now();
        const exited = new Promise<void>((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve() : server.once('exit', () => resolve())));
        if (kind === 'group') {
          const database = databaseProcesses(dataDir);
          const groups = new Set([server.pid!, ...database.map((pid) => Number(procStat(pid)?.[2])).filter((g) => g > 1 && g !== ownGroup)]);
          signal([...groups].map((group) => -group), 'SIGKILL');
          // As a supervisor would: restart once the killed processes are gone (a postmaster nobody reaps stays a zombie).
          for (const until = Date.now() + 10_000; Date.now() < until && database.some(isLive); ) await sleep(50);
          if (database.some(isLive)) failures.push(`a kill of the process group left PostgreSQL running (${why})`);
        } else {
          signal([server.pid!], 'SIGKILL');
        }
        await exited;
        // A killed postmaster leaves its pid file; the next start finds it stale and recovers.
        server = start();
        await waitFor(`${base}/health`, 120_000);
        const recoveryMs = Math.round(performance.now() - killedAt);
        kills.push({ kind, why, found: what, recoveryMs });
        step(`kill ${kills.length} (${why}): ${kind === 'group' ? 'the process group, PostgreSQL with it' : 'the server'}; ${what ? `${what}; ` : ''}healthy again after ${recoveryMs} ms`);
      });
      killing = done.catch(() => {});
      return done;
    };

    const keyed: KeyedWrite[] = [];
    /**
     * One call as an integrator makes it: retried with the same Idempotency-Key while the server is
     * down, answers 5xx or says the key's first call is still in progress; the first definite answer
     * is returned (2xx, or a 4xx it means). A keyed 2xx is kept, with its bytes, for the replay check.
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
          const text = await response.text();
          let json: any = {};
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON (a gateway's error page): the status says what to do
          }
          // The key's first call is still running, or died with a killed server (its claim lapses within 30 s): again, as the answer says.
          const inProgress = response.status === 409 && json?.error?.code === 'request_in_progress';
          if (response.status < 500 && !inProgress) {
            if (idempotencyKey && response.ok) keyed.push({ apiKey: key, method, path, body, idempotencyKey, status: response.status, text });
            return { status: response.status, body: json };
          }
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
    // Not kept for the replay check: a replay shows the signing secret as null (the API's rule for secrets).
    keyed.splice(0);

    const requests = new Map<string, string>();
    const paid: PaidShare[] = [];
    /** The first payment's shares of a placement paid so far (for what a kill lands on). */
    const sharesPaid = async (ref: string, propertyId: string) => (await sql<{ n: number }[]>`
      select count(*)::integer as n from app.payments p join app.claims c on c.id = p.claim_id
       where c.claim_ref = ${ref} and p.property_id = ${propertyId} and p.status = 'succeeded'`)[0].n;
    let splitKill: Promise<unknown> | undefined;
    const pay = async (i: number, ref: string, payer?: string) => {
      const res = await call(keys.carrier, 'POST', `/sandbox/claims/${ref}/homes/${homes[i]}/payment`,
        { outcome: 'succeeded', ...(payer ? { payer } : {}) }, `chaos-pay-${i}${payer ? `-${payer}` : ''}`);
      if (answerLost(res)) answersLost += 1;
      else if (res.status !== 200) throw new Error(`payment ${i}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      paid.push({ ref, propertyId: homes[i], payer });
    };
    /** One placement's journey, every write with its own Idempotency-Key; what the API acknowledged is recorded. */
    const journey = async (i: number) => {
      const externalId = `CHAOS-${i}`;
      const split = i % 3 === 1;
      const created = await call(keys.carrier, 'POST', '/claims', {
        loss_address: '12 Harbor Lane', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701', loss_lat: 30.27, loss_lng: -97.74,
        target_move_in: inDays(30), est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, property_type: 'apartment',
        furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: split ? 'tpa' : 'carrier', max_budget: 2500, external_id: externalId,
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
      requests.set(externalId, ref);
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
      if (!split) return pay(i, ref);
      await pay(i, ref, 'carrier');
      if (splitKill) return pay(i, ref, 'tpa');
      // The aimed kill, in the first split payment: one share paid, the other's call sent into the kill.
      let second: Promise<void> | undefined;
      splitKill = kill(splitKillKind, 'during a split payment',
        async () => `${await sharesPaid(ref, homes[i])} of 2 shares of ${ref}'s first payment paid, the other's call in flight`,
        () => void (second = pay(i, ref, 'tpa')));
      await splitKill;
      await second;
    };

    step(`load: ${seconds} s by ${workers} workers; ${timedKills} kills at random moments (${groupKills} of the process group), ` +
      `one in the receiver's outage (from ${outageAt.toFixed(0)} s), one in a split payment, one to close`);
    const loadStart = elapsed();
    let next = 0;
    const work = Promise.all(Array.from({ length: workers }, async () => {
      while (elapsed() - loadStart < seconds && next < homes.length) await journey(next++);
    }));
    work.catch(() => {}); // awaited below; a failure there is reported, after the kills
    const timed = moments.map(async (at, k) => {
      await sleep(Math.max(0, loadStart + at - elapsed()) * 1000);
      await kill(groupAt.has(k) ? 'group' : 'server', `at ${at.toFixed(0)} s of the load`);
    });
    const waitingDeliveries = async () => (await sql<{ n: number }[]>`
      select count(*)::integer as n from app.webhook_deliveries
       where org_id = any(${orgs}) and status = 'pending' and attempts > 0`)[0].n;
    // The aimed kill in the outage: the receiver refuses everything from its moment, an event is
    // made to be sure there is something to refuse, and once a delivery waits for its retry the
    // kill is made; the outage ends a few seconds after the server is back.
    const retryKill = (async () => {
      await sleep(Math.max(0, loadStart + outageAt - elapsed()) * 1000);
      outage.from = elapsed();
      step('the receiver answers 500 to every delivery until the kill in its outage');
      await must(keys.carrier, 'POST', '/events/simulate', { event: 'lease.sent' }, 'chaos-simulate-outage');
      for (const until = Date.now() + 30_000; Date.now() < until; await sleep(200)) {
        if (await waitingDeliveries().catch(() => 0)) break;
      }
      await kill(retryKillKind, 'during webhook retries', async () => `${await waitingDeliveries()} deliveries waiting for a retry`);
      await sleep(3000);
      outage.to = elapsed();
      step(`the receiver's outage ends after ${(outage.to - outage.from).toFixed(0)} s`);
    })();
    for (const aside of [...timed, retryKill]) aside.catch(() => {}); // awaited below, like the load
    await work;
    await Promise.all([...timed, retryKill, splitKill]);
    step(`load done: ${requests.size} requests, ${paid.length} payments acknowledged`);
    await kill('group', 'closing the load');

    step('waiting for every webhook to arrive and every due job to end');
    const eventIds = async () => (await sql<{ id: string }[]>`select id from app.events where org_id = any(${orgs}) and environment = 'sandbox'`).map((r) => r.id);
    // A job is unfinished while pending and due, held by a runner (a killed one's lease runs out) or
    // failing and waiting to try again; a pending job that never ran nor failed is merely due later.
    const unfinishedJobs = async (): Promise<{ kind: string }[]> => sql<{ kind: string }[]>`
      select kind from app.jobs
       where org_id = any(${orgs}) and status = 'pending' and (run_at <= now() or locked_until is not null or last_error is not null)`;
    let missing: string[] = [];
    let unfinished: { kind: string }[] = [];
    const drainedBy = Date.now() + 180_000;
    for (; Date.now() < drainedBy; await sleep(500)) {
      missing = (await eventIds()).filter((id) => !receiver.received.has(id));
      unfinished = await unfinishedJobs();
      if (missing.length === 0 && unfinished.length === 0) break;
    }

    // Every acknowledged keyed write, sent again: the same status and bytes, marked as a replay.
    step(`replaying ${keyed.length} acknowledged keyed writes`);
    const replayedDifferently: string[] = [];
    const ranTwice: string[] = [];
    for (let r = 0; r < keyed.length; r += workers) {
      await Promise.all(keyed.slice(r, r + workers).map(async (write) => {
        const response = await fetch(`${base}${write.path}`, {
          method: write.method,
          headers: { authorization: `Bearer ${write.apiKey}`, 'content-type': 'application/json', 'idempotency-key': write.idempotencyKey },
          body: JSON.stringify(write.body),
        });
        const text = await response.text();
        if (response.status !== write.status || text !== write.text) {
          replayedDifferently.push(`${write.idempotencyKey}: ${write.status} then ${response.status} ${text.slice(0, 160)}`);
        } else if (response.headers.get('idempotent-replayed') !== 'true') {
          ranTwice.push(write.idempotencyKey);
        }
      }));
    }

    // Every acknowledged payment is recorded, and each part it paid is, in the ledger, exactly what was paid.
    const paymentRows = await sql<{
      ref: string; property_id: string; payer: string; part: string; paid: string; ledger: string | null; charges: number;
    }[]>`
      select c.claim_ref as ref, p.property_id, p.payer, part.name as part, part.cents::text as paid,
             (select sum(l.amount_cents) from app.ledger_entries l
               where l.lease_agreement_id = p.lease_agreement_id and l.charge_type = p.charge_type
                 and l.period_start = p.period_start and l.part = part.name
                 -- What the charge charges: its payments, refunds and the service fee moved with them are
                 -- entries too (the reconciliation checks those).
                 and l.kind not in ('payment', 'refund', 'fee'))::text as ledger,
             (select count(*)::integer from app.ledger_entries l
               where l.lease_agreement_id = p.lease_agreement_id and l.charge_type = p.charge_type
                 and l.period_start = p.period_start and l.part = part.name and l.kind = 'charge') as charges
        from app.payments p
        join app.claims c on c.id = p.claim_id
        cross join lateral (values ('rent', p.rent_cents), ('deposit', p.deposit_cents), ('fees', p.fees_cents)) part (name, cents)
       where p.carrier_org_id = ${carrier} and p.status = 'succeeded' and p.duplicate_of is null and part.cents > 0`;
    const paymentsLost: string[] = [];
    const paymentsDoubled: string[] = [];
    for (const share of paid) {
      const rows = paymentRows.filter((r) => r.ref === share.ref && r.property_id === share.propertyId && (!share.payer || r.payer === share.payer));
      const who = `${share.ref}${share.payer ? ` (${share.payer})` : ''}`;
      if (rows.length === 0) paymentsLost.push(`${who}: no payment recorded`);
      for (const row of rows) {
        if (row.ledger === null || row.charges === 0) paymentsLost.push(`${who}: its ${row.part} is not in the ledger`);
        else if (BigInt(row.ledger) > BigInt(row.paid)) paymentsDoubled.push(`${who}: ${row.part} paid ${row.paid}, in the ledger ${row.ledger} over ${row.charges} charge entries`);
        else if (BigInt(row.ledger) < BigInt(row.paid)) paymentsLost.push(`${who}: ${row.part} paid ${row.paid}, in the ledger only ${row.ledger}`);
      }
    }
    const requestsLost: string[] = [];
    for (const [externalId, ref] of requests) {
      const res = await call(keys.carrier, 'GET', `/claims/${ref}`);
      if (res.status !== 200 || res.body.data.api_external_id !== externalId) requestsLost.push(ref);
    }
    const jobs = await sql<{ status: string; visible: boolean; n: number }[]>`
      select status, last_error is not null as visible, count(*)::integer as n from app.jobs where org_id = any(${orgs}) group by 1, 2`;
    const jobCount = (status: string, visible?: boolean) =>
      jobs.filter((j) => j.status === status && (visible === undefined || j.visible === visible)).reduce((sum, j) => sum + j.n, 0);
    const events = (await eventIds()).length;
    // The ledger against the processor's record, stay by stay (the console's reconciliation): every
    // difference it lists is money the two disagree on.
    const reconciled = (await runCommand(sql, ['ledger', 'reconcile', '--org', carrier, '--env', 'sandbox'])) as {
      data: { kind: string; reference: string | null; payment_id: string | null; part: string | null; difference_cents: number; in_flight: boolean }[];
      differences: number; in_flight: number;
    };
    const differences = reconciled.data.filter((d) => !d.in_flight)
      .map((d) => `${d.reference} ${d.kind}${d.part ? ` (${d.part})` : ''} on payment ${d.payment_id}: ${d.difference_cents} cents`);

    const ms = (kind: KillKind) => kills.filter((k) => k.kind === kind).map((k) => k.recoveryMs).sort((a, b) => a - b);
    const range = (values: number[]) => values.length ? `${(values[0] / 1000).toFixed(1)}-${(values.at(-1)! / 1000).toFixed(1)} s (median ${(values[Math.floor(values.length / 2)] / 1000).toFixed(1)} s)` : 'none';
    const aimed = kills.filter((k) => k.why.startsWith('during'));
    console.log('\n| figure | count | lost | doubled |\n|---|---|---|---|');
    const row = (name: string, count: number | string, lost: number | string = '', doubled: number | string = '') => console.log(`| ${name} | ${count} | ${lost} | ${doubled} |`);
    row('kills: the server / the process group with PostgreSQL', `${ms('server').length} / ${ms('group').length}`);
    row('acknowledged keyed writes (replayed after a restart)', keyed.length, replayedDifferently.length, ranTwice.length);
    row('acknowledged requests', requests.size, requestsLost.length);
    row('acknowledged payments (charge in the ledger once)', paid.length, paymentsLost.length, paymentsDoubled.length);
    row('events (delivered at least once)', events, missing.length);
    row('stays reconciled: differences between the ledger and the processor / refunds in flight', `${reconciled.differences} / ${reconciled.in_flight}`);
    const later = jobCount('pending') - unfinished.length;
    row('jobs: done / abandoned with a reason / due later / unfinished',
      `${jobCount('succeeded')} / ${jobCount('abandoned', true)} / ${later} / ${unfinished.length + jobCount('abandoned', false)}`);
    console.log(`\nrecovery, kill to healthy: the server ${range(ms('server'))}; the process group ${range(ms('group'))}`);
    for (const k of aimed) console.log(`kill ${k.why}: ${k.kind === 'group' ? 'the process group' : 'the server'}; ${k.found}`);
    console.log(`webhook attempts at the receiver: ${receiver.attempts()}, ${receiver.refused()} answered 500; ` +
      `writes whose answer was lost with a kill (done once, said so): ${answersLost}`);

    const some = (list: string[]) => `${list.slice(0, 5).join('; ')}${list.length > 5 ? `; and ${list.length - 5} more` : ''}`;
    if (replayedDifferently.length) failures.push(`replay: ${replayedDifferently.length} acknowledged keyed writes answered differently: ${some(replayedDifferently)}`);
    if (ranTwice.length) failures.push(`replay: ${ranTwice.length} acknowledged keyed writes ran again instead of replaying: ${some(ranTwice)}`);
    if (requestsLost.length) failures.push(`requests: ${requestsLost.length} acknowledged requests missing: ${some(requestsLost)}`);
    if (paymentsLost.length) failures.push(`ledger: ${paymentsLost.length} acknowledged payments lost: ${some(paymentsLost)}`);
    if (paymentsDoubled.length) failures.push(`ledger: ${paymentsDoubled.length} acknowledged payments' charges in the ledger more than once: ${some(paymentsDoubled)}`);
    if (differences.length) failures.push(`reconciliation: ${differences.length} differences between the ledger and the processor's record: ${some(differences)}`);
    if (missing.length) failures.push(`events: ${missing.length} of ${events} never delivered`);
    if (unfinished.length) failures.push(`jobs: ${unfinished.length} still due or held: ${some(unfinished.map((j) => j.kind))}`);
    if (jobCount('abandoned', false)) failures.push(`jobs: ${jobCount('abandoned', false)} abandoned without a reason`);
    if (ms('group').length < 2) failures.push(`kills: only ${ms('group').length} of the process group`);
    if (kills.length < timedKills + 3) failures.push(`kills: only ${kills.length} of ${timedKills + 3} happened`);
    const retry = aimed.find((k) => k.why === 'during webhook retries');
    if (!retry || !/^[1-9]\d* deliveries/.test(retry.found)) failures.push(`kills: none landed while deliveries waited for a retry (${retry?.found ?? 'no such kill'})`);
    const split = aimed.find((k) => k.why === 'during a split payment');
    if (!split || !split.found.startsWith('1 of 2')) failures.push(`kills: none landed between the shares of a split payment (${split?.found ?? 'no such kill'})`);
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
  console.log(`\n0 lost, 0 doubled, 0 undelivered, 0 unfinished, 0 ledger differences across ${kills.length} kills (${elapsed().toFixed(0)} s in all)`);
  process.exit(0);
}

await main();
