import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { runConsole } from './run-console.ts';
import { freePort } from '../../scripts/lib/scratch.ts';

async function waitForHealth(base: string, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return Date.now() - started;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no health answer within ${limitMs} ms`);
}

function exited(child: ChildProcess) {
  return new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('npm start (embedded PostgreSQL)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('answers health within 15 s, serves the console alongside, drains on SIGTERM and keeps its data', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hps-server-'));
    dirs.push(dataDir);
    const [port, dbPort] = [await freePort(), await freePort()];
    const env = { ...process.env, PORT: String(port), DB_PORT: String(dbPort), DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: 'warn' };
    const base = `http://127.0.0.1:${port}/functions/v1`;
    let warnings = '';
    const start = () => {
      const child = spawn('npm', ['start'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: false });
      child.stderr.on('data', (chunk) => (warnings += chunk));
      return child;
    };

    let server = start();
    expect(await waitForHealth(base, 15_000)).toBeLessThan(15_000);
    // The embedded database has no pg_cron: the server says webhooks depend on it, and why.
    const scheduling = warnings.split('\n').filter((line) => line.includes('webhook scheduling by pg_cron is not set up')).map((line) => JSON.parse(line));
    expect(scheduling).toEqual([expect.objectContaining({ level: 'warn', reason: 'pg_cron is not installed on this database server; pg_net is not installed on this database server' })]);
    expect(warnings).toContain('webhook scheduling not set up: pg_cron/pg_net not available');
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ data: { status: 'ok' } });

    // The console finds the running embedded database through DATA_DIR.
    const org = await runConsole(['org', 'create', '--name', 'Kept Mutual', '--side', 'carrier'], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(org.code).toBe(0);
    const orgId = JSON.parse(org.stdout).data.id;
    const key = JSON.parse((await runConsole(['key', 'create', '--org', orgId, '--env', 'sandbox'], { DATA_DIR: dataDir, DATABASE_URL: undefined })).stdout).data.key;

    // A request held up inside the database (the limiter waits on a lock) is in flight at SIGTERM.
    const db = postgres(`postgres://postgres:postgres@127.0.0.1:${dbPort}/postgres`, { max: 1, onnotice: () => {} });
    let inFlight: Promise<Response> | undefined;
    await db.begin(async (tx) => {
      await tx`lock table app.rate_windows in access exclusive mode`;
      const observer = postgres(`postgres://postgres:postgres@127.0.0.1:${dbPort}/postgres`, { max: 1, onnotice: () => {} });
      await observer`select 1`;
      inFlight = fetch(`${base}/usage`, { headers: { authorization: `Bearer ${key}` } });
      // Signal once the request is inside the server, waiting on that lock (it waits at most 250 ms).
      const deadline = Date.now() + 5_000;
      for (let waiting = 0; waiting === 0 && Date.now() < deadline; ) {
        [{ waiting }] = await observer<{ waiting: number }[]>`
          select count(*)::int as waiting from pg_stat_activity where wait_event_type = 'Lock' and query like '%app.authenticate%'`;
      }
      await observer.end();
      server.kill('SIGTERM');
    });
    await db.end();
    expect((await inFlight!).status).toBe(200);
    expect(await exited(server)).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    // Restarted on the same DATA_DIR, everything is still there.
    server = start();
    await waitForHealth(base, 15_000);
    const usage = await fetch(`${base}/usage`, { headers: { 'x-api-key': key } });
    expect(usage.status).toBe(200);
    server.kill('SIGINT');
    expect(await exited(server)).toBe(0);
  }, 60_000);
});
