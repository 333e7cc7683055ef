// The dispatcher function run in Deno (the production runtime) as its own process, against a
// database of the test's own: the budget tests start it with the settings they hold.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { denoEnv, deno, resolutionFlags } from '../deploy/support.ts';
import { testAuthority } from '../fixtures/tls/trust.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { scratchDatabase } from '../operations/scratch-db.ts';
import { migrate } from '../../scripts/lib/migrate.ts';
import { pgTypes } from '../../shared/db/client.ts';

const root = new URL('../../', import.meta.url).pathname;

export interface DispatcherFunction {
  base: string;
  /** The Deno process's id. */
  pid: number;
  stderr(): string;
  /** One call as pg_cron's makes it: the time to its answer, and what it reports. */
  invoke<T = Record<string, unknown>>(): Promise<{ status: number; ms: number; report: T }>;
  stop(): Promise<void>;
}

/**
 * The Deno process's CPU time so far (user and system, every thread), in milliseconds, read from
 * outside: what the function used, whatever the runtime tells it.
 */
export function processCpuMs(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export async function startDispatcherFunction(options: { databaseUrl: string; secret: string; env?: Record<string, string> }): Promise<DispatcherFunction> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let stderr = '';
  const fn: ChildProcess = spawn(deno, ['run', '--quiet', '--no-prompt', ...resolutionFlags(join(root, 'functions/import_map.json')), '--allow-net', '--allow-env', '--allow-read', '--allow-sys', 'functions/webhook-dispatcher/index.ts'], {
    cwd: root,
    env: denoEnv({
      DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}`,
      SUPABASE_DB_URL: options.databaseUrl,
      PUBLIC_BASE_URL: 'https://api.example.com/functions/v1',
      WEBHOOK_DISPATCHER_SECRET: options.secret,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // The receiver's certificate is signed by the test authority.
      DENO_CERT: testAuthority,
      LOG_LEVEL: 'warn',
      ...options.env,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  fn.stderr!.on('data', (chunk) => (stderr += chunk));
  const stop = async () => {
    if (fn.exitCode !== null || fn.signalCode !== null) return;
    const exited = new Promise((resolve) => fn.once('exit', resolve));
    fn.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (fn.exitCode !== null) throw new Error(`the dispatcher function exited ${fn.exitCode}:\n${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the dispatcher function did not listen within 120 s:\n${stderr}`);
    }
    try {
      await fetch(`${base}/`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    base,
    pid: fn.pid!,
    stderr: () => stderr,
    stop,
    async invoke<T>() {
      const started = performance.now();
      const response = await fetch(`${base}/webhook-dispatcher`, { method: 'POST', headers: { authorization: `Bearer ${options.secret}` } });
      const body = (await response.json()) as { data: T };
      return { status: response.status, ms: performance.now() - started, report: body.data };
    },
  };
}

/**
 * For one test file: a migrated database of its own (the function dispatches everything due, so no
 * other test's deliveries may be there), a connection to it, and the dispatcher function started in
 * Deno on it with `env`; all started before the file's tests and stopped after them.
 */
export function useScratchDispatcher(options: { secret: string; env: Record<string, string> }) {
  const scratch = {} as { sql: postgres.Sql; fn: DispatcherFunction };
  let database: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  beforeAll(async () => {
    database = await scratchDatabase(ownerSql());
    scratch.sql = postgres(database.url, { max: 2, onnotice: () => {}, types: pgTypes });
    await migrate(scratch.sql);
    scratch.fn = await startDispatcherFunction({ databaseUrl: database.url, secret: options.secret, env: options.env });
  }, 180_000);
  afterAll(async () => {
    await scratch.fn?.stop();
    await scratch.sql?.end();
    await database?.drop();
  });
  return scratch;
}
