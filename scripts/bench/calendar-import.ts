// `npm run bench:calendar`: what reading an imported calendar costs, and what /health answers
// meanwhile. Each feed of the tests (tests/fixtures/ical/: the costliest feed still read and the
// measured feed bombs) is read twice, from the feed's text to its ranges (the fetch and the database
// are left out: they wait on I/O, not on the event loop):
//
//   in process   what the Edge Runtime does: CPU time and the heap it grew by, on the loop itself
//                (the CPU time includes /health's own answers meanwhile, a few milliseconds), and
//                that CPU time's share of the Edge Runtime's 2 s per invocation (docs/operations.md);
//   in a worker  what the local server does (scripts/lib/calendar-reader.ts): the time to an answer.
//
// Through both, /health is asked over loopback HTTP every 50 ms, of the gateway the local server
// runs, and a 5 ms timer watches the event loop: the table gives the slowest answer and the longest
// the loop was held (what a request arriving at the worst moment waits). No database is
// needed: /health reads none.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createGatewayServer } from '../lib/router.ts';
import { workerFeedReader } from '../lib/calendar-reader.ts';
import { importedRanges } from '../../shared/properties/ical-import.ts';
import { movedInstancesSharingOneUid, singleNights, worstAccepted } from '../../tests/fixtures/ical/generated.ts';

const fixture = (name: string) => readFileSync(new URL(`../../tests/fixtures/ical/${name}.ics`, import.meta.url), 'utf8');
const feeds: [string, string][] = [
  ['the costliest feed still read', worstAccepted()],
  ['time zone changing hourly since 1601', fixture('timezone-hourly')],
  ['time zone changing every minute since 1601', fixture('timezone-minutely')],
  ['a rule whose parts never match', fixture('rule-never-matches')],
  ['8,400 events and 7,000 moved instances, one UID', movedInstancesSharingOneUid()],
  ['15,000 one-night stays', singleNights()],
];

/** Supabase Edge Functions' CPU time per invocation (https://supabase.com/docs/guides/functions/limits). */
const edgeCpuMs = 2_000;

const day = (at: number) => new Date(at).toISOString().slice(0, 10);
const window = { from: day(Date.now()), to: day(Date.now() + 730 * 86_400_000) };

const server = createGatewayServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const health = `http://127.0.0.1:${(server.address() as AddressInfo).port}/functions/v1/health`;

/** Runs `work` while /health is asked every 50 ms; with the slowest answer and the loop's longest delay, in milliseconds. */
async function whileAskingHealth<T>(work: () => Promise<T>): Promise<{ result: T; slowest: number; held: number }> {
  let held = 0;
  let tick = performance.now();
  const watch = setInterval(() => {
    held = Math.max(held, performance.now() - tick);
    tick = performance.now();
  }, 5);
  let done = false;
  const polling = (async () => {
    let slowest = 0;
    while (!done) {
      const asked = performance.now();
      await (await fetch(health)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return slowest;
  })();
  // The first question is on its way before the work starts, so that a blocked loop delays its answer.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const result = await work().finally(() => (done = true));
  const slowest = await polling;
  clearInterval(watch);
  return { result, slowest, held };
}

const outcome = async (read: () => Promise<unknown[]> | unknown[]) => {
  try {
    return `${(await read()).length} ranges`;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
};

const rows = [];
for (const [name, text] of feeds) {
  const cpu = process.cpuUsage();
  const heap = process.memoryUsage().heapUsed;
  const inProcess = await whileAskingHealth(() => outcome(() => importedRanges(text, window)));
  const grown = process.memoryUsage().heapUsed - heap;
  const used = process.cpuUsage(cpu);
  const sent = performance.now();
  const inWorker = await whileAskingHealth(() => outcome(() => workerFeedReader(text, window)));
  rows.push({
    feed: name,
    KB: Math.round(text.length / 1024),
    'in process: CPU ms': Math.round((used.user + used.system) / 1000),
    '% of Edge CPU': Math.round((used.user + used.system) / 10 / edgeCpuMs),
    'heap +MB': Math.max(0, Math.round(grown / 1e6)),
    'health max ms': Math.round(inProcess.slowest),
    'loop held ms': Math.round(inProcess.held),
    'in a worker: ms': Math.round(performance.now() - sent),
    'health max ms ': Math.round(inWorker.slowest),
    'loop held ms ': Math.round(inWorker.held),
    outcome: inWorker.result === inProcess.result ? inWorker.result : `${inProcess.result} / worker: ${inWorker.result}`,
  });
}
server.close();
console.table(rows);
