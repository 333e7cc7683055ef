import type postgres from 'postgres';
import { db, type Tx } from './client.ts';
import { log, errorFields } from '../log.ts';

export type Environment = 'live' | 'sandbox';
export type Side = 'carrier' | 'provider';

/** Who is calling: resolved from the API key by the authentication middleware. */
export interface Tenant {
  orgId: string;
  environment: Environment;
  /**
   * The request only reads (GET, HEAD): its transactions start READ ONLY, so the database itself
   * guarantees that their commit has nothing to lose, and the response does not wait for it.
   */
  readsOnly?: boolean;
  /**
   * The Idempotency-Key of the write request this transaction serves: the key is marked applied in
   * the same transaction, so the change and that mark commit together (shared/http/middleware/idempotency.ts).
   */
  idempotencyKey?: string;
}

/**
 * The authenticated caller of a request: the tenant, the key and what it may do. Commands take it
 * as it is, so it is defined here, below the request pipeline (shared/http/context.ts re-exports it).
 */
export interface Caller extends Tenant {
  keyId: string;
  side: Side;
  scopes: string[];
}

/** SQLSTATE of a write attempted in a READ ONLY transaction. */
const readOnlyTransaction = '25006';

/**
 * Runs `work` in a transaction under the API role (no BYPASSRLS) with the tenant context set,
 * so row-level security limits every statement to this organisation and environment.
 *
 * Round trips: `begin` and the context statement are pipelined with the first statement of
 * `work` (they travel in one write and are answered together), so a single-statement read costs
 * one round trip. A read-write transaction adds its commit; a read-only one sends its commit after
 * the response is on its way (the connection runs it before anything else, so nothing can run
 * inside the finished transaction). A request that reads only but whose work writes anyway is
 * refused by the database in the read-only attempt and runs again, read-write.
 */
export function withTenant<T>(tenant: Tenant, work: (tx: Tx) => Promise<T>): Promise<T> {
  return readOnlyFirst(tenant, (readOnly) => transaction(tenant, work, readOnly));
}

/** A request that reads only runs READ ONLY; if its work writes anyway, the database refuses and it runs again read-write. */
async function readOnlyFirst<T>(tenant: Tenant, run: (readOnly: boolean) => Promise<T>): Promise<T> {
  if (tenant.readsOnly) {
    try {
      return await run(true);
    } catch (error) {
      if ((error as { code?: string }).code !== readOnlyTransaction) throw error;
    }
  }
  return run(false);
}

/** Runs once the current turn of the event loop is over: after a response built in it is returned. */
const afterThisTurn: (task: () => void) => void =
  typeof setImmediate === 'function' ? (task) => setImmediate(task) : (task) => setTimeout(task, 0);

/** Ends the transaction without anyone waiting, and only then hands the connection back. */
function finish(sql: postgres.ReservedSql, statement: 'commit' | 'rollback') {
  sql.unsafe(statement).execute()
    .catch((error) => log.warn(`${statement} failed`, errorFields(error)))
    .finally(() => sql.release());
}

/** begin and the tenant context: the API role (no BYPASSRLS), the organisation and the environment, for this transaction only. */
function opening(sql: postgres.ReservedSql, tenant: Tenant, readOnly: boolean) {
  return [
    sql.unsafe(readOnly ? 'begin read only' : 'begin').execute(),
    sql`select set_config('role', 'svc_api', true),
               set_config('app.org_id', ${tenant.orgId}, true),
               set_config('app.env', ${tenant.environment}, true)`.execute(),
  ];
}

/** The Idempotency-Key of a write marked applied in the write's own transaction, sent at once; none for a read. */
function markApplied(sql: postgres.ReservedSql, tenant: Tenant, readOnly = false) {
  if (readOnly || !tenant.idempotencyKey) return undefined;
  return sql`update app.idempotency_keys set state = 'applied'
     where org_id = ${tenant.orgId} and environment = ${tenant.environment} and key = ${tenant.idempotencyKey} and state = 'in_progress'`
    .execute();
}

async function transaction<T>(tenant: Tenant, work: (tx: Tx) => Promise<T>, readOnly: boolean): Promise<T> {
  const sql = await db().reserve();
  let savepoints = 0;
  // The reserved connection, with savepoints as postgres.js offers them in a transaction. The
  // savepoint is pipelined with the first statement of its work, like `begin`.
  const tx = Object.assign(sql, {
    savepoint: async <R>(inner: (sp: Tx) => Promise<R>): Promise<R> => {
      const name = `s${savepoints++}`;
      sql.unsafe(`savepoint ${name}`).execute().catch(() => {});
      try {
        return await inner(tx);
      } catch (error) {
        await sql.unsafe(`rollback to savepoint ${name}`);
        throw error;
      }
    },
  }) as unknown as Tx;

  // Sent without waiting: a failure here fails the work's first statement (the transaction is
  // aborted), and is reported below in any case.
  const opened = Promise.all(opening(sql, tenant, readOnly));
  opened.catch(() => {});

  let result: T;
  try {
    result = await work(tx);
    await opened;
  } catch (error) {
    // Not waited for: the connection returns to the pool once the rollback is through.
    finish(sql, 'rollback');
    throw error;
  }

  if (readOnly) {
    afterThisTurn(() => finish(sql, 'commit'));
    return result;
  }
  // Pipelined with the commit (no round trip of its own); if it fails, the commit answers ROLLBACK.
  markApplied(sql, tenant)?.catch(() => {});
  try {
    const done = await sql.unsafe('commit');
    // A statement that failed without being awaited aborts the transaction, and the server then
    // answers the commit with ROLLBACK: the work did not happen.
    if (done.command !== 'COMMIT') throw new Error(`transaction ended with ${done.command} instead of COMMIT`);
  } finally {
    sql.release();
  }
  return result;
}

/** A statement built and not yet run, as postgres.js makes it from a tagged template. */
interface Statement {
  execute(): PromiseLike<unknown>;
}

/** The results of statements, in their order. */
type Results<Q extends readonly Statement[]> = { -readonly [K in keyof Q]: Awaited<Q[K]> };

/**
 * Runs statements that do not depend on each other's results as one transaction in one write:
 * begin, the tenant context, the statements in order, the Idempotency-Key's mark and the commit
 * leave together and are answered together, one round trip in all (withTenant needs one more for
 * its commit, since its work may go on after any statement). `build` makes the statements on the
 * transaction's connection without running them; their results come back in order, and whatever
 * depends on them is computed after the commit. Under the same role and tenant context as
 * withTenant, so row-level security holds for every statement. A statement that fails aborts the
 * transaction (the commit answers ROLLBACK) and its error is thrown; a request that reads only but
 * whose statements write runs again read-write, as in withTenant.
 */
export function inOneWrite<const Q extends readonly Statement[]>(tenant: Tenant, build: (tx: Tx) => Q): Promise<Results<Q>> {
  return readOnlyFirst(tenant, (readOnly) => oneWrite(tenant, build, readOnly));
}

async function oneWrite<Q extends readonly Statement[]>(
  tenant: Tenant,
  build: (tx: Tx) => Q,
  readOnly: boolean,
): Promise<Results<Q>> {
  const sql = await db().reserve();
  // Everything is handed to the connection in this turn of the event loop, so the driver sends it in
  // one write; begin and the context first, so that even a statement `build` ran at once would run
  // inside the transaction, under the tenant's role.
  const opened = opening(sql, tenant, readOnly);
  let statements: Q;
  try {
    statements = build(sql as unknown as Tx);
  } catch (error) {
    // A request refused before any statement (a malformed reference): the opened transaction ends unused.
    for (const statement of opened) statement.catch(() => {});
    finish(sql, 'rollback');
    throw error;
  }
  try {
    const results = statements.map((statement) => statement.execute());
    const marked = markApplied(sql, tenant, readOnly);
    const committed = sql.unsafe('commit').execute();
    const settled = await Promise.allSettled([...opened, ...results, ...(marked ? [marked] : []), committed]);
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const done = await committed;
    if (done.command !== 'COMMIT') throw new Error(`transaction ended with ${done.command} instead of COMMIT`);
    return (await Promise.all(results)) as unknown as Results<Q>;
  } finally {
    sql.release();
  }
}
