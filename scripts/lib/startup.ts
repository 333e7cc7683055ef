import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import postgres from 'postgres';
import { config } from '../../shared/config.ts';
import { connect } from '../../shared/db/client.ts';
import { publicBaseUrlProblem } from '../../shared/http/public-url.ts';

// Start-up checks, run before anything is started: each failure is one StartupError whose message
// names the cause and the fix (the server prints it as one line and exits non-zero).

export class StartupError extends Error {}

/** The oldest PostgreSQL the service supports (docs/operating.md: "any PostgreSQL 15+"), as server_version_num. */
export const minimumServerVersion = 150000;

export function checkServerVersion(versionNum: number, where: string): void {
  if (versionNum < minimumServerVersion) {
    const major = Math.floor(versionNum / 10000);
    throw new StartupError(`${where} runs PostgreSQL ${major}; the service needs PostgreSQL 15 or newer: upgrade the server or point ${where} at a newer one`);
  }
}

/**
 * Why the server may not start with the PUBLIC_BASE_URL it has, or undefined. Unset, links go to the
 * local server's own loopback address (local development and sandbox use, so `npm start` needs no
 * setting); a deployment with a live-mode processor key is production, and its links must carry its
 * public address.
 */
export function publicAddressRefusal(): string | undefined {
  if (config.publicBaseUrl()) return publicBaseUrlProblem();
  if (config.liveModeProcessor()) {
    return 'PUBLIC_BASE_URL is not set and STRIPE_SECRET_KEY is a live-mode key (production): set PUBLIC_BASE_URL to the service\'s public address ending in /functions/v1';
  }
  return undefined;
}

/** Refuses a port something else already listens on (127.0.0.1, where the server and the database listen). */
export function checkPortFree(port: number, setting: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new StartupError(`${setting}=${port} is already in use on 127.0.0.1: stop the process listening there or set ${setting} to a free port`));
      } else if (error.code === 'EACCES') {
        reject(new StartupError(`${setting}=${port} may not be opened by this user: set ${setting} to a port above 1023`));
      } else {
        reject(new StartupError(`${setting}=${port} cannot be opened (${error.code ?? error.message})`));
      }
    });
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolvePromise()));
  });
}

export interface SystemUser {
  name: string;
  uid: number;
  gids: number[];
}

/** The system user the embedded PostgreSQL runs as when started by root (undefined until it exists). */
export function systemUser(name: string): SystemUser | undefined {
  try {
    const entry = readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':')).find((f) => f[0] === name);
    if (!entry) return undefined;
    const gids = [Number(entry[3])];
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [, , gid, members = ''] = line.split(':');
      if (members.split(',').includes(name)) gids.push(Number(gid));
    }
    return { name, uid: Number(entry[2]), gids };
  } catch {
    return undefined;
  }
}

/**
 * The first existing folder on the way to `path` that `user` may not enter (no search permission),
 * or undefined when every one of them can be entered. A user that does not exist yet will be
 * created without groups, so only the permissions for others apply to it.
 */
export function blockingFolder(path: string, user: SystemUser | undefined): string | undefined {
  const chain: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    let stat;
    try {
      stat = statSync(dir);
    } catch {
      return undefined; // not created yet: created below an enterable folder, it will be enterable
    }
    const mode = stat.mode;
    const canEnter = user && stat.uid === user.uid ? (mode & 0o100) !== 0
      : user && user.gids.includes(stat.gid) ? (mode & 0o010) !== 0
      : (mode & 0o001) !== 0;
    if (!canEnter) return dir;
  }
  return undefined;
}

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

/** Connects to DATABASE_URL once: reachable, credentials accepted, PostgreSQL 15 or newer. */
export async function checkDatabaseUrl(url: string, setting = 'DATABASE_URL'): Promise<void> {
  let sql: postgres.Sql;
  try {
    sql = connect(url, { max: 1, connect_timeout: 5 });
  } catch (error) {
    throw new StartupError(`${setting} is not a PostgreSQL connection URL (${(error as Error).message}): use postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
  }
  const shown = redact(url);
  try {
    const [{ version }] = await sql<{ version: number }[]>`select current_setting('server_version_num')::int as version`;
    checkServerVersion(version, setting);
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const { code, message } = error as { code?: string; message: string };
    if (code === '28P01' || code === '28000') {
      throw new StartupError(`${setting} ${shown}: the server refused the credentials (${message}): correct the user and password in ${setting}`);
    }
    if (code === '3D000') {
      throw new StartupError(`${setting} ${shown}: ${message}: create the database or correct its name in ${setting}`);
    }
    if (code && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|CONNECT_TIMEOUT|ECONNRESET)$/.test(code)) {
      throw new StartupError(`${setting} ${shown} is not reachable (${code}): start the database or correct the host and port in ${setting}`);
    }
    throw new StartupError(`${setting} ${shown}: cannot connect (${code ? `${code}: ` : ''}${message})`);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
