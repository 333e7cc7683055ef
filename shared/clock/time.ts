import type { Tx } from '../db/client.ts';
import { withTenant, type Tenant } from '../db/tenant.ts';

// Now, as the calling tenant sees it: a sandbox organisation on a clock of its own (POST
// /sandbox/clock) sees the clock's frozen time; everyone else the wall clock. Every date rule of a
// stay (move-in in the past, shortening, closeout, what is due) reads it; rate windows, tokens and
// timestamps of records keep the wall clock.

/** The tenant's now (one statement). */
export async function tenantNow(tx: Tx): Promise<Date> {
  const [row] = await tx<{ now: Date }[]>`select app.clock_now() as now`;
  return row.now;
}

/** The calendar day of a time, in UTC. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** A tenant's now, in a transaction of its own (for a caller that has none, such as the pay page). */
export const nowOf = (tenant: Tenant): Promise<Date> => withTenant(tenant, tenantNow);
