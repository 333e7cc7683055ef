// Jobs the local server runs on timers (on Supabase, pg_cron drives the same work; see the webhooks
// migration). Each job starts at once and stops, after its current run, when its stop is awaited.
// The server runs them on a thread of their own (startBackgroundThread), off its requests' event loop.
import { config } from '../../shared/config.ts';
import { log, errorFields } from '../../shared/log.ts';
import { dispatchDue, type DispatchOptions } from '../../shared/webhooks/dispatcher.ts';
import { pinnedTransport } from './pinned-transport.ts';
import { useCalendarFeedNetwork, useCalendarFeedReader } from '../../shared/properties/calendar-import-job.ts';
import { workerFeedReader } from './calendar-reader.ts';
import { purgeExpiredEvents } from '../../shared/webhooks/retention.ts';
import { refreshGrownStatistics } from '../../shared/db/statistics.ts';
import { runDueJobs, type RunOptions } from '../../shared/jobs/runner.ts';
import { jobRegistry } from '../../shared/job-registry.ts';
import { runAfterCommitElsewhere, settleRunsAfterCommit } from '../../shared/jobs/after-commit.ts';
import { leaseHolder, releaseBackgroundLease, takeBackgroundLease } from './background-lease.ts';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export type StopJob = () => Promise<void>;

/** A timer's condition that always holds: it runs at every tick. */
const always = () => true;

/** How soon a timer whose `onlyWhile` said no asks again (a process that just took the lease starts at once). */
const askAgainMs = 1_000;

/**
 * Runs `work` now and then `intervalMs` after each run ends, so runs never overlap; with `intervalMs`
 * null (the timer switched off) never. While `onlyWhile` says no, nothing runs, and it is asked
 * again within askAgainMs: the hourly purge of a process that takes the lease over runs then, not
 * an hour later. Stopping aborts the signal given to the run in progress, and waits for it to wind down.
 */
function every(
  name: string,
  intervalMs: number | null,
  work: (stop: AbortSignal) => Promise<Record<string, unknown> | void>,
  onlyWhile: () => boolean = always,
): StopJob {
  if (intervalMs === null) return async () => {};
  const stopping = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    const now = onlyWhile();
    running = (now ? work(stopping.signal) : Promise.resolve())
      .then((outcome) => {
        if (outcome) log.info(name, outcome);
      })
      .catch((error) => log.error(`${name} failed`, errorFields(error)))
      .finally(() => {
        if (!stopping.signal.aborted) timer = setTimeout(run, now ? intervalMs : Math.min(intervalMs, askAgainMs));
      });
  };
  run();
  return async () => {
    stopping.abort();
    clearTimeout(timer);
    await running;
  };
}

const hour = 60 * 60 * 1000;

/**
 * The webhook dispatcher every WEBHOOK_DISPATCH_INTERVAL_MS (not at all when that is `off`: pg_cron
 * drives delivery): each run drains what is due; on stop it claims nothing more and lets the
 * deliveries in flight finish and be recorded.
 * `organisations` limits it to some tenants (tests share one database).
 */
export function startWebhookDispatch(options: Pick<DispatchOptions, 'organisations' | 'room'> = {}, runsTimers = always): StopJob {
  // Connections made only to the addresses checked as they connect (no DNS rebinding).
  const transport = pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks() });
  return every('webhook dispatch', config.webhookDispatchIntervalMs(), async (stop) => {
    const report = await dispatchDue({ ...options, signal: stop, transport });
    return report.claimed > 0 ? { ...report } : undefined;
  }, runsTimers);
}

/**
 * The durable jobs (sourcing new requests, sending contracts and emails) on the same ticker as webhook delivery
 * (off with it: pg_cron's calls of the dispatcher function run them): each run drains what is due; on stop it claims nothing more.
 */
export function startJobRunner(options: Pick<RunOptions, 'organisations' | 'room'> = {}, runsTimers = always): StopJob {
  return every('jobs', config.webhookDispatchIntervalMs(), async (stop) => {
    const report = await runDueJobs({ registry: jobRegistry, signal: stop, ...options });
    return report.claimed > 0 ? { ...report } : undefined;
  }, runsTimers);
}

/** Events past their 90 days are purged hourly; a stop ends the purge after its current batch. */
function startEventRetention(runsTimers: () => boolean): StopJob {
  return every('event retention', hour, async (stop) => ({ deleted: await purgeExpiredEvents(undefined, { signal: stop }) }), runsTimers);
}

/** How calendar feeds are fetched and read wherever this process runs jobs. */
export function useLocalCalendarFeeds(): void {
  // Calendar-feed fetches connect only to the addresses checked, as deliveries do.
  useCalendarFeedNetwork({ transport: pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks() }) });
  // And are read in worker threads of their own, each held to a time and memory limit.
  useCalendarFeedReader(workerFeedReader);
}

export interface BackgroundOptions {
  /** Lowers the jobs and deliveries running at once (giveWayTo). */
  room?: (concurrency: number) => number;
  /** Only the work of these organisations, and no event retention (tests share one database). */
  organisations?: string[];
}

/**
 * Tables that doubled are analyzed every two seconds (a query of the statistics' counters when none
 * did): plans kept by connections then use the indexes of a table that grew from empty within the
 * minute autovacuum takes to look.
 */
function startStatisticsRefresh(runsTimers: () => boolean): StopJob {
  return every('statistics refreshed', 2_000, async () => {
    const analyzed = await refreshGrownStatistics();
    return analyzed.length ? { analyzed } : undefined;
  }, runsTimers);
}

/** How often the lease on the timed work is renewed (or asked for), and how long it lasts unrenewed. */
const leaseRenewMs = 2_000;
const leaseTtlSeconds = 10;

/**
 * Keeps asking for the lease on the timed background work (background-lease.ts): `held` says
 * whether this process has it. When a process stops, it gives the lease up for the next to take;
 * one that dies loses it after leaseTtlSeconds (or at once, to itself started again on its port).
 * A renewal that fails counts as not held. A holder stalled past its lease still runs its timers
 * until its next renewal, beside the one that took over: nothing is done twice, as the queues'
 * claims skip each other's rows.
 */
function keepBackgroundLease(): { held: () => boolean; stop: StopJob } {
  let held = false;
  const stopAsking = every('background lease', leaseRenewMs, async () => {
    const now = await takeBackgroundLease(leaseTtlSeconds).catch((error) => {
      log.warn('background lease not renewed', errorFields(error));
      return false;
    });
    if (now === held) return;
    held = now;
    return { holder: leaseHolder, runs_timers: held };
  });
  return {
    held: () => held,
    stop: async () => {
      await stopAsking();
      if (held) await releaseBackgroundLease();
      held = false;
    },
  };
}

/**
 * Starts every background job in this thread; returns a function that stops them all, and waits for
 * the jobs that requests started after their commit (sourcing), which need the pool until they end.
 * The timed ones run in one process of those on the database (the lease's holder); a run limited to
 * some organisations (tests share one database) runs its own, and no retention or statistics, which
 * span every tenant.
 */
export function startBackgroundJobs(options: BackgroundOptions = {}): StopJob {
  useLocalCalendarFeeds();
  const lease = options.organisations ? undefined : keepBackgroundLease();
  const runsTimers = lease?.held ?? always;
  const stops = [
    startWebhookDispatch(options, runsTimers), startJobRunner(options, runsTimers),
    ...(lease ? [startEventRetention(runsTimers), startStatisticsRefresh(runsTimers)] : []),
  ];
  return async () => {
    await Promise.all([...stops.map((stop) => stop()), settleRunsAfterCommit()]);
    await lease?.stop();
  };
}

/**
 * Requests the server is answering at once that it serves without making any wait: beyond them,
 * requests queue on its event loop and the two cores, and the background work gives way.
 */
const answeredWithoutWaiting = 4;

/**
 * How much of its concurrency background work may use while `waiting[0]` requests are being
 * answered: all of it up to answeredWithoutWaiting, then less in proportion (with 8 in flight a
 * half, 12 a third), never less than a quarter (and one), so the queues still drain while a surge
 * lasts. Measured under the full surge on one process: down to one job at a time left contracts
 * 32 s in the queue and events 18 s from delivery at p99 (see docs/performance.md).
 */
export function giveWayTo(waiting: Int32Array): (concurrency: number) => number {
  return (concurrency) => {
    const over = Math.max(0, Atomics.load(waiting, 0) - answeredWithoutWaiting);
    const share = Math.floor((concurrency * answeredWithoutWaiting) / (answeredWithoutWaiting + over));
    return Math.max(1, Math.ceil(concurrency / 4), share);
  };
}

// The background thread's module is TypeScript, as everything the server runs: the thread first
// registers the same loader (named by its path, so that it resolves wherever the process was started).
const require = createRequire(import.meta.url);
const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();
require(${JSON.stringify(fileURLToPath(new URL('./background-worker.ts', import.meta.url)))});`;

export interface BackgroundThread {
  /** Stops the background work (claims nothing more, lets what runs finish), then the thread. */
  stop: StopJob;
  /** Counts the server's requests in flight, which the background work gives way to. */
  watch: (server: Server) => void;
}

/**
 * The local server's background work (the job runner, the webhook dispatcher, event retention, and
 * the jobs requests start after their commit) on a worker thread with a pool of its own: a surge's
 * background work then never holds the event loop that answers requests, as on Supabase, where the
 * dispatcher is a function of its own. The thread is started again if it fails.
 */
export function startBackgroundThread(options: Pick<BackgroundOptions, 'organisations'> = {}): BackgroundThread {
  const waiting = new Int32Array(new SharedArrayBuffer(4));
  let stopping = false;
  let worker: Worker;
  let stopped: Promise<void> = Promise.resolve();
  const start = () => {
    worker = new Worker(bootstrap, { eval: true, workerData: { waiting: waiting.buffer, organisations: options.organisations } });
    stopped = new Promise<void>((resolve) => {
      worker.on('message', (message: { stopped?: true }) => {
        if (message.stopped) resolve();
      });
      worker.on('error', (error) => log.error('background thread failed', errorFields(error)));
      worker.once('exit', (code) => {
        resolve();
        if (stopping) return;
        log.error('background thread ended; starting it again', { code });
        setTimeout(() => stopping || start(), 1_000).unref();
      });
    });
  };
  start();
  // Jobs queued by requests run there, as soon as the request's transaction commits.
  runAfterCommitElsewhere((kinds, ids) => worker.postMessage({ run: kinds, ids: [...ids] }));
  return {
    stop: async () => {
      stopping = true;
      runAfterCommitElsewhere(undefined);
      worker.postMessage({ stop: true });
      await stopped;
      await worker.terminate();
      // Anything this thread still started itself (the internal dispatcher function's runs).
      await settleRunsAfterCommit();
    },
    watch: (server) => {
      server.on('request', (_incoming: IncomingMessage, outgoing: ServerResponse) => {
        Atomics.add(waiting, 0, 1);
        outgoing.once('close', () => Atomics.sub(waiting, 0, 1));
      });
    },
  };
}
