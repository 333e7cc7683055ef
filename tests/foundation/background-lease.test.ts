// One local server process runs the timed background work for a database (migration
// *_background_lease.sql, scripts/lib/background.ts): the lease's rules in SQL, then two server
// processes on one database of their own, of which one runs the timers until it stops and the
// other takes them over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { migrate } from '../../scripts/lib/migrate.ts';
import { child, stopped, waitFor } from '../../scripts/lib/processes.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { ownerSql } from '../helpers.ts';
import { scratchDatabase } from '../operations/scratch-db.ts';

let scratch: Awaited<ReturnType<typeof scratchDatabase>>;

beforeAll(async () => {
  scratch = await scratchDatabase(ownerSql());
  await migrate(scratch.sql, () => {});
}, 120_000);

afterAll(async () => {
  await scratch?.drop();
});

const take = async (holder: string, ttl: string) =>
  (await scratch.sql<{ taken: boolean }[]>`select app.take_background_lease('test', ${holder}, ${ttl}::interval) as taken`)[0].taken;
const release = (holder: string) => scratch.sql`select app.release_background_lease('test', ${holder})`;

describe('the background lease', () => {
  it('has one holder at a time: renewed by it, refused to others until it expires or is given up', async () => {
    expect(await take('a', '10 s')).toBe(true);
    expect(await take('b', '10 s')).toBe(false);
    expect(await take('a', '10 s')).toBe(true);
    // Given up by someone who does not hold it: nothing changes.
    await release('b');
    expect(await take('b', '10 s')).toBe(false);
    await release('a');
    expect(await take('b', '200 ms')).toBe(true);
    expect(await take('a', '10 s')).toBe(false);
    // Not renewed within its time: the next to ask takes it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await take('a', '10 s')).toBe(true);
    expect(await take('b', '10 s')).toBe(false);
  });

  it('is neither readable nor callable by the API role', async () => {
    await expect(ownerSql().begin(async (tx) => {
      await tx`set local role svc_api`;
      await tx`select app.take_background_lease('test', 'x', '1 s')`;
    })).rejects.toThrow(/permission denied/);
    await expect(ownerSql().begin(async (tx) => {
      await tx`set local role svc_api`;
      await tx`select * from app.background_leases`;
    })).rejects.toThrow(/permission denied/);
  });

  it('two server processes on one database: one runs the timers, and the other takes them over when it stops', async () => {
    const lines: Record<string, string[]> = { first: [], second: [] };
    const start = async (name: 'first' | 'second') => {
      const port = await freePort();
      const server = child('scripts/server.ts', { DATABASE_URL: scratch.url, PORT: String(port), MIGRATE: 'false', LOG_LEVEL: 'info' });
      createInterface({ input: server.stdout! }).on('line', (line) => lines[name].push(line));
      await waitFor(`http://127.0.0.1:${port}/functions/v1/health`, 60_000);
      return server;
    };
    const said = (name: string, message: string) => lines[name].map((line) => JSON.parse(line)).filter((entry) => entry.message === message);
    /** Whether the process last said it runs the timers (the background lease's log lines). */
    const runsTimers = (name: string) => said(name, 'background lease').at(-1)?.runs_timers === true;
    /** Each hourly purge logs one line: the holder's runs at once, not an hour after it took the lease. */
    const purged = (name: string) => said(name, 'event retention').length;
    const until = async (condition: () => boolean, ms: number) => {
      for (const end = Date.now() + ms; !condition(); await new Promise((resolve) => setTimeout(resolve, 100))) {
        if (Date.now() > end) throw new Error('not within the time');
      }
    };
    const servers: ChildProcess[] = [];
    try {
      servers.push(await start('first'));
      await until(() => runsTimers('first') && purged('first') === 1, 10_000);
      servers.push(await start('second'));
      // Several renewals later, the second still leaves the timers to the first.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(runsTimers('first')).toBe(true);
      expect(runsTimers('second')).toBe(false);
      expect(purged('second')).toBe(0);
      // The first stops and gives the lease up; the second takes it at its next try, within seconds,
      // and runs the purge then.
      await stopped(servers[0]);
      await until(() => runsTimers('second') && purged('second') === 1, 10_000);
      expect(purged('first')).toBe(1);
    } finally {
      for (const server of servers) await stopped(server);
    }
  }, 120_000);
});
