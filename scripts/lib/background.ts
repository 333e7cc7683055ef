// Jobs the local server runs on timers (on Supabase, pg_cron drives the same work).
// Each job is started here and stopped, after its current run, on shutdown.
import { config } from '../../shared/config.ts';
import { log, errorFields } from '../../shared/log.ts';
import { dispatchDue } from '../../shared/webhooks/dispatcher.ts';
import { purgeExpiredEvents } from '../../shared/webhooks/retention.ts';

export type StopJob = () => Promise<void>;

/**
 * Runs `work` now and then `intervalMs` after each run ends, so runs never overlap.
 * Stopping waits for the run in progress.
 */
function every(name: string, intervalMs: number, work: () => Promise<Record<string, unknown> | void>): () => StopJob {
  return () => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running: Promise<void> = Promise.resolve();
    const run = () => {
      running = work()
        .then((outcome) => {
          if (outcome) log.info(name, outcome);
        })
        .catch((error) => log.error(`${name} failed`, errorFields(error)))
        .finally(() => {
          if (!stopped) timer = setTimeout(run, intervalMs);
        });
    };
    run();
    return async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    };
  };
}

const hour = 60 * 60 * 1000;

const jobs: Array<() => StopJob> = [
  // Each run drains what is due; a run is cut after a minute so that shutdown stays prompt.
  every('webhook dispatch', config.webhookDispatchIntervalMs(), async () => {
    const report = await dispatchDue({ budgetMs: 60_000 });
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
