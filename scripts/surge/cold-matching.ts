// Matching on a cold path: the service's own matching statement and its own read of a request, one
// call at a time, each on a fresh connection (as an Edge function whose connections are short-lived
// makes them) and on one warm connection. A fresh connection plans app.match_candidates' query anew
// and, for its first five calls, plans it for each call's values (a custom plan) before PostgreSQL
// may settle on a generic one; the read is planned once. Timed from the transaction's start to its
// last row (the connection is opened before, untimed: the read pays it as well).
import postgres from 'postgres';
import { pgTypes, type Tx } from '../../shared/db/client.ts';
import { candidatesByReference } from '../../shared/claims/sourcing-repository.ts';
import { claimByReference } from '../../shared/claims/repository.ts';
import { median } from '../lib/scratch.ts';

export interface ColdMatchingRun {
  /** Median ms of the match statement and of the read, per way of calling. */
  fresh: { match: number; read: number; calls: number };
  warm: { match: number; read: number; calls: number };
  /** The first five calls on one new connection: the match statement's ms each. */
  firstFive: number[];
}

type Tenant = { orgId: string; environment: string };

async function timed(sql: postgres.Sql, tenant: Tenant, work: (tx: Tx) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await sql.begin('read only', async (tx) => {
    await tx`select set_config('role', 'svc_api', true), set_config('app.org_id', ${tenant.orgId}, true), set_config('app.env', ${tenant.environment}, true)`;
    await work(tx);
  });
  return performance.now() - started;
}

/**
 * As the service's connections are (the database's settings), and with every plan generic from the
 * first call (plan_cache_mode on the connection), an option weighed side by side.
 */
export interface ColdMatching {
  asIs: ColdMatchingRun;
  generic: ColdMatchingRun;
}

export async function coldMatching(url: string, tenant: Tenant, reference: string, calls = 20): Promise<ColdMatching> {
  const asIs = await measure(url, tenant, reference, calls, {});
  const generic = await measure(url, tenant, reference, calls, { plan_cache_mode: 'force_generic_plan' });
  return { asIs, generic };
}

async function measure(url: string, tenant: Tenant, reference: string, calls: number, connection: Record<string, string>): Promise<ColdMatchingRun> {
  const open = async () => {
    const sql = postgres(url, { max: 1, onnotice: () => {}, types: pgTypes, connection });
    await sql`select 1`;
    return sql;
  };
  const match = (tx: Tx) => candidatesByReference(tx, reference);
  const read = (tx: Tx) => claimByReference(tx, reference);
  const fresh = { match: [] as number[], read: [] as number[] };
  for (let i = 0; i < calls; i++) {
    for (const [name, work] of [['match', match], ['read', read]] as const) {
      const sql = await open();
      fresh[name].push(await timed(sql, tenant, work));
      await sql.end();
    }
  }
  const sql = await open();
  const firstFive: number[] = [];
  for (let i = 0; i < 5; i++) firstFive.push(await timed(sql, tenant, match));
  const warm = { match: [] as number[], read: [] as number[] };
  for (let i = 0; i < 5; i++) await timed(sql, tenant, read);
  for (let i = 0; i < calls; i++) {
    warm.match.push(await timed(sql, tenant, match));
    warm.read.push(await timed(sql, tenant, read));
  }
  await sql.end();
  return {
    fresh: { match: median(fresh.match), read: median(fresh.read), calls },
    warm: { match: median(warm.match), read: median(warm.read), calls },
    firstFive,
  };
}
