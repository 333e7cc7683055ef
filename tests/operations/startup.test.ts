import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/scratch.ts';
import { StartupError, blockingFolder, checkServerVersion } from '../../scripts/lib/startup.ts';
import { migrate } from '../../scripts/lib/migrate.ts';
import { ownerSql } from '../helpers.ts';
import { scratchDatabase } from './scratch-db.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** `npm start` as a developer runs it; resolves when it exits (it must, these starts are refused). */
function start(env: Record<string, string | undefined>) {
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn('npm', ['start', '--silent'], { env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: undefined, ...env } });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

/** The refusal: exit 1, one line on stderr, nothing on stdout. */
function refusedWith(result: { code: number | null; stderr: string; stdout: string }, ...parts: (string | RegExp)[]) {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((l) => l && !/^npm (warn|WARN)/.test(l));
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^npm start: /);
  for (const part of parts) expect(lines[0]).toMatch(part instanceof RegExp ? part : new RegExp(part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return lines[0];
}

async function tempDir(mode = 0o755) {
  const dir = await mkdtemp(join(tmpdir(), 'hps-startup-'));
  await chmod(dir, mode);
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function listen(port: number) {
  return new Promise<Server>((resolve) => {
    const server = createServer().listen(port, '127.0.0.1', () => resolve(server));
    cleanups.push(() => new Promise((r) => server.close(r)));
  });
}

describe('start-up checks (unit)', () => {
  it('refuses PostgreSQL older than 15, naming the version and the setting', () => {
    expect(() => checkServerVersion(140011, 'DATABASE_URL')).toThrow(StartupError);
    expect(() => checkServerVersion(140011, 'DATABASE_URL')).toThrow(/DATABASE_URL runs PostgreSQL 14; the service needs PostgreSQL 15 or newer/);
    expect(() => checkServerVersion(90624, 'DATABASE_URL')).toThrow(/PostgreSQL 9;/);
    expect(() => checkServerVersion(150000, 'DATABASE_URL')).not.toThrow();
    expect(() => checkServerVersion(170006, 'DATABASE_URL')).not.toThrow();
  });

  it('finds the first folder on the way that a system user may not enter', async () => {
    const root = await tempDir(0o755);
    const closed = join(root, 'closed');
    await mkdir(join(closed, 'inner', 'data'), { recursive: true });
    await chmod(closed, 0o700);
    const stranger = { name: 'stranger', uid: 64000, gids: [64000] };
    expect(blockingFolder(join(closed, 'inner', 'data'), stranger)).toBe(closed);
    expect(blockingFolder(join(closed, 'inner', 'not-yet'), stranger)).toBe(closed);
    expect(blockingFolder(join(root, 'open', 'data'), stranger)).toBeUndefined();
    // Its owner and a member of its group get in by their own permission bits.
    const owner = { name: 'me', uid: process.getuid!(), gids: [] };
    expect(blockingFolder(join(closed, 'inner'), owner)).toBeUndefined();
    await chmod(closed, 0o710);
    expect(blockingFolder(join(closed, 'inner'), { ...stranger, gids: [process.getgid!()] })).toBeUndefined();
    expect(blockingFolder(join(closed, 'inner'), stranger)).toBe(closed);
    // A user that does not exist yet (created by the embedded package) has only the others' bits.
    expect(blockingFolder(join(closed, 'inner'), undefined)).toBe(closed);
  });
});

describe('npm start refuses, before starting anything, with one line naming the cause and the fix', () => {
  it.runIf(process.getuid?.() === 0)('DATA_DIR inside a folder the database system user cannot enter (mkdir -p "$(mktemp -d)/data")', async () => {
    const parent = await tempDir(0o700);
    const dataDir = join(parent, 'data');
    await mkdir(dataDir);
    const result = await start({ DATA_DIR: dataDir, PORT: String(await freePort()), DB_PORT: String(await freePort()) });
    refusedWith(result, `DATA_DIR ${dataDir}`, `${parent} does not let it in`, `chmod o+x ${parent}`, 'set DATA_DIR to a folder outside it');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  }, 60_000);

  it('a WEBHOOK_DISPATCH_INTERVAL_MS beyond what a timer holds (Node would fire it every millisecond)', async () => {
    const dataDir = await tempDir();
    const result = await start({ PORT: String(await freePort()), DATA_DIR: dataDir, WEBHOOK_DISPATCH_INTERVAL_MS: '3000000000' });
    refusedWith(result, 'WEBHOOK_DISPATCH_INTERVAL_MS=3000000000 is beyond what a timer can wait (at most 2147483647 ms', 'or 0 or off to switch the timer off');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  }, 60_000);

  it('a production deployment (a live-mode processor key) without PUBLIC_BASE_URL, or a PUBLIC_BASE_URL that is no plain address', async () => {
    const dataDir = await tempDir();
    const port = String(await freePort());
    const unset = await start({ PORT: port, DATA_DIR: dataDir, PUBLIC_BASE_URL: '', STRIPE_SECRET_KEY: 'sk_live_stand_in' });
    refusedWith(unset, 'PUBLIC_BASE_URL is not set and STRIPE_SECRET_KEY is a live-mode key', 'set PUBLIC_BASE_URL');
    const unusable = await start({ PORT: port, DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://homes.example/functions/v1?x=1' });
    refusedWith(unusable, 'PUBLIC_BASE_URL=https://homes.example/functions/v1?x=1 must be a plain http(s) address');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  }, 90_000);

  it('PORT or DB_PORT already in use; an unreachable DATABASE_URL; refused credentials; an edited applied migration', async () => {
    const [busyPort, busyDbPort] = [await freePort(), await freePort()];
    await listen(busyPort);
    await listen(busyDbPort);
    const dataDir = await tempDir();

    // A database whose recorded history says the baseline had other content than the file now has.
    const edited = await scratchDatabase(ownerSql());
    cleanups.push(edited.drop);
    await migrate(edited.sql);
    await edited.sql`update supabase_migrations.schema_migrations set checksum = repeat('0', 64) where version = '20261120000000'`;

    const url = new URL(process.env.DATABASE_URL!);
    const wrongPassword = new URL(url);
    wrongPassword.password = 'not-the-password';

    // One at a time: five servers starting at once would starve the tests running beside these.
    const port = await start({ PORT: String(busyPort), DATA_DIR: dataDir, DB_PORT: String(await freePort()) });
    const dbPort = await start({ PORT: String(await freePort()), DATA_DIR: dataDir, DB_PORT: String(busyDbPort) });
    const unreachable = await start({ PORT: String(await freePort()), DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/postgres' });
    const credentials = await start({ PORT: String(await freePort()), DATABASE_URL: wrongPassword.toString() });
    const migration = await start({ PORT: String(await freePort()), DATABASE_URL: edited.url });
    refusedWith(port, `PORT=${busyPort} is already in use`, 'set PORT to a free port');
    refusedWith(dbPort, `DB_PORT=${busyDbPort} is already in use`, 'set DB_PORT to a free port');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
    const line = refusedWith(unreachable, 'DATABASE_URL postgres://postgres:***@127.0.0.1:1/postgres is not reachable (ECONNREFUSED)', 'start the database or correct the host and port');
    expect(line).not.toContain('secret');
    refusedWith(credentials, 'the server refused the credentials', 'correct the user and password in DATABASE_URL');
    expect(credentials.stderr).not.toContain('not-the-password');
    refusedWith(migration, 'migration 20261120000000_baseline.sql was changed after it was applied', 'put the change in a new migration');
  }, 120_000);
});
