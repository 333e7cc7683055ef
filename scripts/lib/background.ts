// Jobs the local server runs on timers (on Supabase, pg_cron drives the same work).
// Each job is started here and stopped, after its current run, on shutdown.

export type StopJob = () => Promise<void>;

const jobs: Array<() => StopJob> = [];

/** Starts every background job; returns a function that stops them all. */
export function startBackgroundJobs(): StopJob {
  const stops = jobs.map((start) => start());
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
