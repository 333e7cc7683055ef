// A throw-away PgBouncer in transaction mode in front of a test database, as Supabase serves Edge
// Functions (Supavisor, or the dedicated PgBouncer, on port 6543): a server connection is lent to a
// client for one transaction only, so nothing a session sets or prepares survives to the next one.
// It listens on 127.0.0.1 only, with its configuration in a temporary folder removed when stopped.
// PgBouncer refuses to run as root: as root it runs as the `postgres` system user, as the cron
// test's cluster does.
import { spawn } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemUser } from '../../scripts/lib/startup.ts';
import { freePort } from '../../scripts/lib/scratch.ts';

export { pgbouncerBin } from './bin.ts';

export interface Pooler {
  /** The pooler's URL in the documented form: `?pgbouncer=true` marks it. */
  url: string;
  port: number;
  stop: () => Promise<void>;
}

/** Starts PgBouncer in transaction mode in front of `directUrl` (postgres://user:password@127.0.0.1:port/db). */
export async function startPooler(bin: string, directUrl: string, options: { poolSize?: number; port?: number } = {}): Promise<Pooler> {
  const target = new URL(directUrl);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const database = target.pathname.slice(1);
  const root = await mkdtemp(join(tmpdir(), 'hps-pgbouncer-'));
  const port = options.port ?? (await freePort());
  const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;
  await writeFile(join(root, 'users.txt'), `${quote(user)} ${quote(password)}\n`);
  await writeFile(join(root, 'pgbouncer.ini'), [
    '[databases]',
    `${database} = host=${target.hostname} port=${target.port} dbname=${database}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    // Clients log in with the database's own user and password, checked by PgBouncer.
    'auth_type = md5',
    `auth_file = ${join(root, 'users.txt')}`,
    'pool_mode = transaction',
    // Supabase's pooler sizes: a few dozen server connections shared by many clients.
    `default_pool_size = ${options.poolSize ?? 20}`,
    'max_client_conn = 500',
    'logfile =',
    'pidfile =',
    // A stuck transaction fails the test instead of holding a server connection for ever.
    'query_wait_timeout = 60',
    '',
  ].join('\n'));
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? systemUser('postgres') : undefined;
  if (asRoot && !owner) throw new Error('run as root, PgBouncer needs the postgres system user (the PostgreSQL or pgbouncer package creates it)');
  const ids = owner ? { uid: owner.uid, gid: owner.gids[0] } : {};
  if (owner) for (const file of ['', 'users.txt', 'pgbouncer.ini']) await chown(join(root, file), owner.uid, owner.gids[0]);
  const server = spawn(bin, [join(root, 'pgbouncer.ini')], { ...ids, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH } });
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    server.stderr.on('data', (chunk) => {
      log.push(String(chunk));
      if (/process up|listening on 127\.0\.0\.1/.test(log.join(''))) resolve();
    });
    server.on('error', reject);
    server.on('exit', (code) => reject(new Error(`pgbouncer exited ${code}: ${log.join('')}`)));
  });
  const url = new URL(directUrl);
  url.port = String(port);
  url.searchParams.set('pgbouncer', 'true');
  return {
    url: url.toString(),
    port,
    stop: async () => {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        // SIGTERM: an immediate shutdown (the tests are done; SIGINT would wait for idle clients).
        server.kill('SIGTERM');
        await exited;
      }
      await rm(root, { recursive: true, force: true });
    },
  };
}
