// Jobs the local server runs on timers (on Supabase, pg_cron drives the same work; see the webhooks
// migration). Each job starts at once and stops, after its current run, when its stop is awaited.
import { config } from '../../shared/config.ts';
import { log, errorFields } from '../../shared/log.ts';
import { dispatchDue, type DispatchOptions } from '../../shared/webhooks/dispatcher.ts';
import { pinnedTransport } from './pinned-transport.ts';
import { useCalendarFeedNetwork, useCalendarFeedReader } from '../../shared/properties/calendar-import-job.ts';
import { workerFeedReader } from './calendar-reader.ts';
import { purgeExpiredEvents } from '../../shared/webhooks/retention.ts';
import { runDueJobs } from '../../shared/jobs/runner.ts';
import { jobRegistry } from '../../shared/job-registry.ts';
import { settleRunsAfterCommit } from '../../shared/jobs/after-commit.ts';

export type StopJob = () => Promise<void>;

/**
 * Runs `work` now and then `intervalMs` after each run ends, so runs never overlap; with `intervalMs`
 * null (the timer switched off) never. Stopping aborts the signal given to the run in progress, and
 * waits for it to wind down.
 */
function every(name: string, intervalMs: number | null, work: (stop: AbortSignal) => Promise<Record<string, unknown> | void>): StopJob {
  if (intervalMs === null) return async () => {};
  const stopping = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = work(stopping.signal)
      .then((outcome) => {
        if (outcome) log.info(name, outcome);
      })
      .catch((error) => log.error(`${name} failed`, errorFields(error)))
      .finally(() => {
        if (!stopping.signal.aborted) timer = setTimeout(run, intervalMs);
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
export function startWebhookDispatch(options: Pick<DispatchOptions, 'organisations'> = {}): StopJob {
  // Connections made only to the addresses checked as they connect (no DNS rebinding).
  const transport = pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks() });
  return every('webhook dispatch', config.webhookDispatchIntervalMs(), async (stop) => {
    const report = await dispatchDue({ ...options, signal: stop, transport });
    return report.claimed > 0 ? { ...report } : undefined;
  });
}

/**
 * The durable jobs (sourcing new requests, sending contracts and emails) on the same ticker as webhook delivery
 * (off with it: pg_cron's calls of the dispatcher function run them): each run drains what is due; on stop it claims nothing more.
 */
export function startJobRunner(options: { organisations?: string[] } = {}): StopJob {
  return every('jobs', config.webhookDispatchIntervalMs(), async (stop) => {
    const report = await runDueJobs({ registry: jobRegistry, signal: stop, ...options });
    return report.claimed > 0 ? { ...report } : undefined;
  });
}

/** Events past their 90 days are purged hourly. */
function startEventRetention(): StopJob {
  return every('event retention', hour, async () => ({ deleted: await purgeExpiredEvents() }));
}

/**
 * Starts every background job; returns a function that stops them all, and waits for the jobs that
 * requests started after their commit (sourcing), which need the pool until they end.
 */
export function startBackgroundJobs(): StopJob {
  // Calendar-feed fetches (jobs of this process) connect only to the addresses checked, as deliveries do.
  useCalendarFeedNetwork({ transport: pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks() }) });
  // And are read in worker threads, off the event loop that answers requests.
  useCalendarFeedReader(workerFeedReader);
  const stops = [startWebhookDispatch(), startJobRunner(), startEventRetention()];
  return async () => {
    await Promise.all([...stops.map((stop) => stop()), settleRunsAfterCommit()]);
  };
}
