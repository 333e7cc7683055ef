// The local server reads imported calendars in worker threads, not on the event loop that answers
// requests: a feed built to be costly (see docs/properties.md) then slows one worker, which is
// stopped past its time or memory limit, and never the API. The Edge Runtime reads in process
// under the reading's own budget of steps (shared/properties/ical-import.ts).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { intSetting } from '../../shared/config.ts';
import { NotICalendar, type ImportedRange } from '../../shared/properties/ical-import.ts';
import type { CalendarFeedReader } from '../../shared/properties/calendar-import-job.ts';

/** How long one reading may take, from the moment the worker has the text. */
const timeoutMs = () => intSetting('CALENDAR_IMPORT_READ_TIMEOUT_MS', 10_000);
/** The worker's heap, in megabytes: past it the worker is ended and the fetch fails. */
const memoryMb = () => intSetting('CALENDAR_IMPORT_READ_MEMORY_MB', 128);
/** Workers reading at once; the others wait their turn (each reading holds a core while it runs). */
const maxReading = 2;

// The worker's module is TypeScript, as everything the server runs: the worker first registers the
// same loader (named by its path, so that it resolves wherever the process was started), then loads it.
const require = createRequire(import.meta.url);
const bootstrap = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();
require(${JSON.stringify(fileURLToPath(new URL('./calendar-reader-worker.ts', import.meta.url)))});`;

type Answer = { ready: true } | { ranges: ImportedRange[] } | { error: string; notICalendar: boolean };

let reading = 0;
const waiting: (() => void)[] = [];

async function turn(): Promise<() => void> {
  if (reading >= maxReading) await new Promise<void>((resolve) => waiting.push(resolve));
  reading++;
  return () => {
    reading--;
    waiting.shift()?.();
  };
}

/** Reads each feed in a worker of its own, ended when it answers or passes a limit. */
export const workerFeedReader: CalendarFeedReader = async (text, window) => {
  const done = await turn();
  const limit = timeoutMs();
  const worker = new Worker(bootstrap, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb(), maxYoungGenerationSizeMb: 16 },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<ImportedRange[]>((resolve, reject) => {
      worker.on('message', (answer: Answer) => {
        if ('ready' in answer) {
          timer = setTimeout(() => reject(new Error(`reading the calendar took longer than ${limit} ms: stopped`)), limit);
          worker.postMessage({ text, window });
        } else if ('ranges' in answer) resolve(answer.ranges);
        else reject(answer.notICalendar ? new NotICalendar(answer.error) : new Error(answer.error));
      });
      worker.on('error', (error: Error & { code?: string }) =>
        reject(new Error(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `reading the calendar took more than ${memoryMb()} MB: stopped` : `the calendar could not be read: ${error.message}`)));
      worker.on('exit', (code) => reject(new Error(`the calendar could not be read: its reader ended (${code})`)));
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
    done();
  }
};
