// The surge's reader, on a thread of its own: the same read (GET /claims/{reference}) one call at a
// time, timed here, so that what it measures is the service's answer and not the wait of a driver
// whose own event loop is busy with hundreds of journeys. Started for the idle figure, then for the
// surge; stopped by a message, it posts back the times and the answers by status. Plain JavaScript:
// a worker thread does not share the TypeScript loader of the process that starts it.
// Beside each time, how many other threads of the machine were runnable as the call began (Linux
// /proc/loadavg; -1 where there is none): the surge's report splits the reads by it.
import { readFileSync } from 'node:fs';
import { parentPort as port, workerData } from 'node:worker_threads';

const parentPort = /** @type {import('node:worker_threads').MessagePort} */ (port);

/**
 * @type {{ bases: string[], path: string, key: string, warmUp: number, calls: number, pauseMs: number }}
 * warmUp: calls before the timed ones (connections opened, statements prepared); calls: timed calls,
 * then stop, or 0: until told to stop.
 */
const reading = workerData;
let stopping = false;
parentPort.on('message', () => (stopping = true));

/** @type {number[]} */
const times = [];
/** @type {number[]} */
const runnable = [];
/** Threads runnable on the machine now, this one left out. */
const othersRunnable = () => {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[3].split('/')[0]) - 1;
  } catch {
    return -1;
  }
};
/** @type {Record<number, number>} */
const statuses = {};
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
let turn = 0;
const read = async () => {
  const at = performance.now();
  const response = await fetch(`${reading.bases[turn++ % reading.bases.length]}${reading.path}`, { headers: { authorization: `Bearer ${reading.key}` } });
  await response.text();
  statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  if (response.status !== 200) throw new Error(`GET ${reading.path}: ${response.status}`);
  return performance.now() - at;
};

for (let i = 0; i < reading.warmUp; i++) await read();
while (!stopping && (reading.calls === 0 || times.length < reading.calls)) {
  runnable.push(othersRunnable());
  times.push(await read());
  if (reading.pauseMs) await sleep(reading.pauseMs);
}
parentPort.postMessage({ times, runnable, statuses });
