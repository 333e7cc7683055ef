// Jobs the local server runs on timers (on Supabase, pg_cron drives the same work).
// Each job is started here and stopped, after its current run, on shutdown.
import { config } from '../../shared/config.ts';
import { log, errorFields } from '../../shared/log.ts';
import { dispatchDue } from '../../shared/webhooks/dispatcher.ts';
import { purgeExpiredEvents } from '../../shared/webhooks/retention.ts';

export type StopJob = () => Promise<void>;

/**
 * Runs `work` now and then `intervalMs` after each run ends, so runs never overlap.
 * Stopping aborts the signal given to the run in progress, and waits for it to wind down.
 */
function every(name: string, intervalMs: number, work: (stop: AbortSignal) => Promise<Record<string, unknown> | void>): () => StopJob {
  return () => {
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
  };
}

const hour = 60 * 60 * 1000;

const jobs: Array<() => StopJob> = [
  // Each run drains what is due; on shutdown it stops claiming and lets what is in flight finish.
  every('webhook dispatch', config.webhookDispatchIntervalMs(), async (stop) => {
    const report = await dispatchDue({ signal: stop });
    return report.claimed > 0 ? { ...report } : undefined;
  }),
  every('event retention', hour, async () => ({ deleted: await purgeExpiredEvents() })),
];

/** Starts every background job; returns a function that stops them all. */
export function startBackgroundJobs(): StopJob {
  const stops = jobs.map((start) => start());
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
