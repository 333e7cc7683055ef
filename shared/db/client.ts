import postgres from 'postgres';
import { config } from '../config.ts';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

/** How values cross to and from the database: dates stay `YYYY-MM-DD` strings, as the API speaks them; counts arrive as numbers. */
export const pgTypes = {
  date: { to: 1082, from: [1082], serialize: (v: string) => v, parse: (v: string) => v },
  bigint: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) },
};

let client: Sql | undefined;

/**
 * Flags a connection URL carries for the client, never for the server. PostgreSQL and PgBouncer
 * refuse any startup parameter they do not know (`08P01: unsupported startup parameter:
 * pgbouncer`), and the database driver sends every query parameter it does not know as one.
 * `pgbouncer=true` is Prisma's convention for "this is a transaction pooler", which Supabase's
 * connection strings for the pooler use too.
 */
const clientOnlyParameters = ['pgbouncer'];

/** The port of Supabase's transaction pooler (Supavisor, or the dedicated PgBouncer). */
const transactionPoolerPort = '6543';

export interface DatabaseTarget {
  /** The URL with the client-only flags taken out: what the driver is given. */
  url: string;
  /** A transaction pooler: a session lasts one transaction, so nothing is prepared across them. */
  pooled: boolean;
}

/**
 * Reads a DATABASE_URL once, for every connection the project opens (the functions' pool, the
 * server's migrations, the console, the tests): where it is the one place that knows the pooler's
 * marks. Only the query string is rewritten, so hosts, passwords and the other parameters (sslmode,
 * options) reach the driver exactly as written.
 */
export function databaseTarget(url: string): DatabaseTarget {
  const mark = url.indexOf('?');
  const base = mark < 0 ? url : url.slice(0, mark);
  const query = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
  const flagged = query.get('pgbouncer') === 'true';
  for (const name of clientOnlyParameters) query.delete(name);
  let port = '';
  try {
    port = new URL(base).port;
  } catch {
    // A multi-host URL is no URL to WHATWG's parser; the driver reads it, and only the flag marks it pooled.
  }
  const rest = query.toString();
  return { url: rest ? `${base}?${rest}` : base, pooled: flagged || port === transactionPoolerPort };
}

/**
 * Supabase's transaction pooler (port 6543, or a URL marked pgbouncer=true) cannot keep
 * prepared statements between transactions, so they are switched off there.
 */
export function usesTransactionPooler(url: string): boolean {
  return databaseTarget(url).pooled;
}

/**
 * A connection pool on `url`, direct or through a transaction pooler: the client-only flags are
 * taken out of what is sent, and prepared statements are off behind a pooler (unless `options`
 * says otherwise).
 */
export function connect<T extends Record<string, postgres.PostgresType> = {}>(
  url: string,
  options: postgres.Options<T> = {},
): Sql {
  const target = databaseTarget(url);
  return postgres(target.url, { onnotice: () => {}, ...options, prepare: options.prepare ?? !target.pooled });
}

/** The process-wide connection pool, created on first use. */
export function db(): Sql {
  if (client) return client;
  const url = config.databaseUrl();
  if (!url) throw new Error('DATABASE_URL is not set');
  client = connect(url, { max: config.dbPoolSize(), types: pgTypes });
  return client;
}

const beforeClose: (() => Promise<void>)[] = [];

/** Work to finish on the pool before it closes (counts held in memory are written). */
export function onCloseDb(hook: () => Promise<void>): void {
  beforeClose.push(hook);
}

export async function closeDb(): Promise<void> {
  if (client) for (const hook of beforeClose) await hook();
  const current = client;
  client = undefined;
  if (current) await current.end({ timeout: 5 });
}
