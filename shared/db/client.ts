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
 * Supabase's transaction pooler (port 6543, or a URL marked pgbouncer=true) cannot keep
 * prepared statements between transactions, so they are switched off there.
 */
export function usesTransactionPooler(url: string): boolean {
  const parsed = new URL(url);
  return parsed.port === '6543' || parsed.searchParams.get('pgbouncer') === 'true';
}

/** The process-wide connection pool, created on first use. */
export function db(): Sql {
  if (client) return client;
  const url = config.databaseUrl();
  if (!url) throw new Error('DATABASE_URL is not set');
  const clean = new URL(url);
  clean.searchParams.delete('pgbouncer');
  client = postgres(clean.toString(), {
    prepare: !usesTransactionPooler(url),
    max: config.dbPoolSize(),
    onnotice: () => {},
    types: pgTypes,
  });
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
