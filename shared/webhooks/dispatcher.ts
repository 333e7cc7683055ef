import { config } from '../config.ts';
import type { CpuClock } from '../cpu-clock.ts';
import { db, type Sql } from '../db/client.ts';
import { log } from '../log.ts';
import { DestinationRefused, refusedDestination, systemResolver, type HostResolver } from './destination.ts';
import { claimDue, recordAttempts, type AttemptResult, type ClaimedDelivery } from './queue.ts';
import { Signer } from './signature.ts';
import { signedDelivery } from './signed-delivery.ts';

// The webhook dispatcher: claims due deliveries, signs and POSTs them, records every attempt.
// The same code runs in the internal webhook-dispatcher function (called by pg_cron on Supabase)
// and on the local server's timer. Any number may run at once: the queue's claim hands each
// due row to one of them (see queue.ts).
//
// A run keeps up to `concurrency` deliveries in flight, claiming more whenever half of that room is
// free and recording finished attempts in batches, so a slow receiver holds one slot rather than a
// whole batch, and memory stays bounded by the room and the response excerpt size.

export interface DispatchOptions {
  sql?: Sql;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** Lowers `concurrency` while it runs: asked before each claim (the local server gives way to requests waiting). */
  room?: (concurrency: number) => number;
  /** Stop claiming after this long (deliveries in flight still finish). Default: until nothing is due. */
  budgetMs?: number;
  /** Stop claiming once this aborts (shutdown); deliveries in flight still finish and are recorded. */
  signal?: AbortSignal;
  /**
   * Stop claiming once `cpu` has counted `cpuBudgetMs` of CPU time (the Edge Runtime's CPU limit per
   * request; the clock may be shared with the jobs run in the same invocation). Deliveries in flight
   * still finish. Default: no CPU budget.
   */
  cpu?: CpuClock;
  cpuBudgetMs?: number;
  /** Claim at most this many deliveries in this run. Default: no cap. */
  maxClaimed?: number;
  /** Only deliveries of these organisations (draining one tenant; isolated test runs). */
  organisations?: string[];
  resolve?: HostResolver;
  /** How an attempt is sent; fetch unless the runtime has one that checks the address it connects to. */
  transport?: WebhookTransport;
}

/**
 * Sends one attempt. The default, fetch, resolves the host again when it connects, after the check
 * (refusedDestination) resolved it: a name that changes its answer in between (DNS rebinding) could
 * reach an address the check refused. So each runtime's entry passes a transport that connects only
 * to an address it checked: the Edge Runtime's (functions/webhook-dispatcher/deno-transport.ts) and
 * the local server's (scripts/lib/pinned-transport.ts). fetch remains for tests that need neither.
 */
export type WebhookTransport = (url: URL, init: RequestInit & { signal: AbortSignal }) => Promise<Response>;

export interface DispatchReport {
  claimed: number;
  succeeded: number;
  failed: number;
  /** Claim statements run, their total and slowest time: the queue's health at a glance. */
  claims: number;
  claim_ms_total: number;
  claim_ms_max: number;
  duration_ms: number;
}

/** How much of a receiver's answer is kept with the attempt. */
const responseExcerptBytes = 1024;
/** A claim's lease: the time-out plus room for resolving, signing and recording. */
const leaseMarginMs = 30_000;
/** Finished attempts wait at most this long to be recorded together. */
const recordEveryMs = 50;

interface AttemptContext {
  signer: Signer;
  timeoutMs: number;
  allowPrivate: boolean;
  resolve: HostResolver;
  resolved: Map<string, Promise<string[]>>;
  transport: WebhookTransport;
}

export async function dispatchDue(options: DispatchOptions = {}): Promise<DispatchReport> {
  const sql = options.sql ?? db();
  const concurrency = options.concurrency ?? 100;
  const claimAtLeast = Math.max(1, Math.floor(concurrency / 2));
  const schedule = config.webhookRetrySchedule();
  const timeoutMs = config.webhookTimeoutMs();
  const context: AttemptContext = {
    signer: new Signer(),
    timeoutMs,
    allowPrivate: config.webhookAllowPrivateNetworks(),
    resolve: options.resolve ?? systemResolver,
    resolved: new Map(),
    transport: options.transport ?? ((url, init) => fetch(url, init)),
  };
  const started = Date.now();
  const deadline = options.budgetMs === undefined ? Infinity : started + options.budgetMs;
  const maxClaimed = options.maxClaimed ?? Infinity;
  const cpuBudgetMs = options.cpu && options.cpuBudgetMs !== undefined ? options.cpuBudgetMs : Infinity;
  const report: DispatchReport = { claimed: 0, succeeded: 0, failed: 0, claims: 0, claim_ms_total: 0, claim_ms_max: 0, duration_ms: 0 };

  const mayClaim = () =>
    Date.now() < deadline && !options.signal?.aborted && report.claimed < maxClaimed && (cpuBudgetMs === Infinity || options.cpu!.usedMs() < cpuBudgetMs);

  const inFlight = new Set<Promise<void>>();
  const finished: AttemptResult[] = [];
  let lastRecorded = Date.now();
  // The last claim found less than it asked for: nothing more is due for now.
  let drained = false;
  // Attempts were recorded after the last claim; failures with a zero wait may be due again.
  let recordedSinceClaim = false;

  const record = async () => {
    lastRecorded = Date.now();
    if (finished.length === 0) return;
    const results = finished.splice(0);
    await recordAttempts(sql, results, schedule);
    recordedSinceClaim = true;
    for (const result of results) {
      if (result.ok) report.succeeded++;
      else report.failed++;
    }
  };

  const claim = async (limit: number) => {
    const claimStarted = performance.now();
    const rows = await claimDue(sql, limit, timeoutMs + leaseMarginMs, options.organisations);
    const elapsed = performance.now() - claimStarted;
    report.claims++;
    report.claim_ms_total += elapsed;
    report.claim_ms_max = Math.max(report.claim_ms_max, elapsed);
    report.claimed += rows.length;
    drained = rows.length < limit;
    recordedSinceClaim = false;
    for (const row of rows) {
      const sending: Promise<void> = attempt(row, context)
        .then((result) => {
          finished.push(result);
        })
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
  };

  try {
    for (;;) {
      const allowed = options.room ? Math.max(1, Math.min(concurrency, options.room(concurrency))) : concurrency;
      const room = allowed - inFlight.size;
      if (!drained && mayClaim() && room >= Math.max(1, Math.floor(allowed / 2))) await claim(Math.min(room, maxClaimed - report.claimed));
      if (inFlight.size === 0) {
        await record();
        if (drained && recordedSinceClaim && mayClaim()) drained = false;
        else if (drained || !mayClaim()) break;
        continue;
      }
      await settledOrElapsed(inFlight, recordEveryMs);
      if (finished.length >= claimAtLeast || Date.now() - lastRecorded >= recordEveryMs) await record();
    }
  } finally {
    // Whatever failed, deliveries already sent finish and are recorded when possible.
    await Promise.allSettled(inFlight);
    await record().catch(() => {});
  }
  report.duration_ms = Date.now() - started;
  report.claim_ms_total = Math.round(report.claim_ms_total * 100) / 100;
  report.claim_ms_max = Math.round(report.claim_ms_max * 100) / 100;
  return report;
}

/** Waits until one of `pending` settles or `ms` pass, whichever is first. */
async function settledOrElapsed(pending: Set<Promise<void>>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([...pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Settles like `work`, or rejects with the signal's reason once it aborts. */
function before<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}

/**
 * One attempt: destination check, signature, POST without following redirects, bounded answer.
 * The time-out covers the whole attempt, name resolution included, so an attempt always ends
 * well within its claim's lease.
 */
async function attempt(delivery: ClaimedDelivery, context: AttemptContext): Promise<AttemptResult> {
  const at = new Date().toISOString();
  const started = performance.now();
  const deadline = AbortSignal.timeout(context.timeoutMs);
  const result = (outcome: Pick<AttemptResult, 'ok'> & Partial<AttemptResult>): AttemptResult => ({
    id: delivery.id,
    lease_token: delivery.lease_token,
    at,
    duration_ms: Math.round(performance.now() - started),
    http_status: null,
    response_body: null,
    error: null,
    ...outcome,
  });
  try {
    const url = new URL(delivery.url);
    if (!context.allowPrivate) {
      const refused = await before(refusedDestination(url, context.resolve, context.resolved), deadline);
      if (refused) return result({ ok: false, error: refused });
    }
    const { body, headers } = await signedDelivery(context.signer, delivery.signing_secret, delivery);
    const response = await context.transport(url, { method: 'POST', body, redirect: 'manual', signal: deadline, headers });
    const excerpt = await readExcerpt(response);
    const ok = response.status >= 200 && response.status < 300;
    const redirected = response.status >= 300 && response.status < 400;
    return result({
      ok,
      http_status: response.status,
      response_body: excerpt,
      error: redirected ? `redirect to ${response.headers.get('location') ?? '(no location)'} not followed` : null,
    });
  } catch (error) {
    return result({ ok: false, error: describeFailure(error, context.timeoutMs) });
  }
}

/** The first bytes of the answer, as text; the rest is not read. Never fails the attempt. */
export async function readExcerpt(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < responseExcerptBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // the answer stopped or timed out part-way: keep what arrived
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, responseExcerptBytes));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  // Postgres text cannot hold NUL characters.
  return new TextDecoder().decode(bytes).replaceAll('\u0000', '\uFFFD');
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  if (error instanceof DestinationRefused) return error.message;
  // The runtime's words (addresses, ports, system error codes) stay in the log: the endpoint's owner
  // reads this text, and it must not map what the service can or cannot reach.
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  log.warn('webhook attempt failed', { error: `${message}${cause}`.slice(0, 500) });
  return /certificate|tls|ssl/i.test(`${message}${cause}`)
    ? 'network error: the TLS connection could not be established (certificate or handshake)'
    : 'network error: no HTTP answer (the connection could not be made or was closed)';
}
