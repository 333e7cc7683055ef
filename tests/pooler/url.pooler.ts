// `npm run test:pooler`: the pooler URL in both documented forms connects through a real PgBouncer
// in transaction mode. `?pgbouncer=true` is read by the client and never sent to the server (PgBouncer
// refuses it: `08P01: unsupported startup parameter: pgbouncer`); behind the pooler, marked by the
// flag or by Supabase's pooler port 6543, prepared statements are off, because a statement prepared
// in one transaction's server connection is not there in the next one's.
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { checkDatabaseUrl } from '../../scripts/lib/startup.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { waitFor } from '../../scripts/lib/processes.ts';
import { connect, databaseTarget } from '../../shared/db/client.ts';
import { pgbouncerBin, startPooler, type Pooler } from './pgbouncer.ts';

const root = new URL('../../', import.meta.url).pathname;
const poolerUrl = inject('databaseUrl');
const directUrl = inject('directDatabaseUrl');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The same parameterised statement many times at once over `max` client connections: a statement
 * prepared on one server connection and executed on another fails. */
async function burst(sql: postgres.Sql, times = 200) {
  const results = await Promise.all(Array.from({ length: times }, (_, i) => sql<{ n: number }[]>`select ${i}::int + 1 as n`));
  return results.map(([row]) => row.n);
}

describe('the pooler URL, ?pgbouncer=true', () => {
  it('is the documented form, and what reaches PgBouncer has no pgbouncer parameter', () => {
    expect(poolerUrl).toMatch(/\?pgbouncer=true$/);
    expect(databaseTarget(poolerUrl)).toEqual({ url: poolerUrl.replace('?pgbouncer=true', ''), pooled: true });
  });

  it('passes the start-up check that npm start and the console make', async () => {
    // Before the flag was read, this was `cannot connect (08P01: unsupported startup parameter: pgbouncer)`.
    await expect(checkDatabaseUrl(poolerUrl)).resolves.toBeUndefined();
  });

  it('serves repeated statements over many transactions, with prepared statements off', async () => {
    const sql = connect(poolerUrl, { max: 8 });
    cleanups.push(() => sql.end());
    expect(sql.options.prepare).toBe(false);
    expect(await burst(sql)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('npm start serves through it, and the console works through it', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, ['--import', 'tsx', 'scripts/server.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: poolerUrl, PORT: String(port), LOG_LEVEL: 'warn', WEBHOOK_DISPATCH_INTERVAL_MS: 'off' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    cleanups.push(async () => {
      if (server.exitCode === null) server.kill('SIGTERM');
      await exited;
    });
    await Promise.race([
      waitFor(`http://127.0.0.1:${port}/functions/v1/health`, 45_000),
      exited.then((code) => {
        throw new Error(`npm start exited ${code}: ${stderr}`);
      }),
    ]);
    const health = await fetch(`http://127.0.0.1:${port}/functions/v1/health`);
    expect(health.status).toBe(200);

    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'org', 'create', '--name', 'Through the pooler', '--side', 'carrier'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: poolerUrl, LOG_LEVEL: 'silent' },
    });
    const created = JSON.parse(stdout) as { data: { id: string } };
    const direct = postgres(directUrl, { max: 1, onnotice: () => {} });
    cleanups.push(() => direct.end());
    expect(await direct`select name from app.organisations where id = ${created.data.id}`).toEqual([{ name: 'Through the pooler' }]);
  }, 90_000);
});

/** Whether 127.0.0.1:port can be listened on now. */
function portFree(port: number) {
  return new Promise<boolean>((resolve) => {
    const probe = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe("the pooler URL, Supabase's port 6543 without a flag", () => {
  it('turns prepared statements off by its port alone, and repeated statements run through it', async (context) => {
    // Port 6543 is the mark; where something else holds it on this machine, the case cannot be made.
    if (!(await portFree(6543))) return context.skip('127.0.0.1:6543 is taken on this machine');
    const pooler: Pooler = await startPooler(pgbouncerBin()!, directUrl, { port: 6543, poolSize: 4 });
    cleanups.push(() => pooler.stop());
    const plain = poolerUrl.replace(/:\d+\//, ':6543/').replace('?pgbouncer=true', '');
    await expect(checkDatabaseUrl(plain)).resolves.toBeUndefined();
    const sql = connect(plain, { max: 8 });
    cleanups.push(() => sql.end());
    expect(sql.options.prepare).toBe(false);
    expect(await burst(sql)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });
});
