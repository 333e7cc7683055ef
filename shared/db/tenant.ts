import { db, type Tx } from './client.ts';

export type Environment = 'live' | 'sandbox';
export type Side = 'carrier' | 'provider';

/** Who is calling: resolved from the API key by the authentication middleware. */
export interface Tenant {
  orgId: string;
  environment: Environment;
}

/**
 * Runs `work` in a transaction under the API role (no BYPASSRLS) with the tenant context set,
 * so row-level security limits every statement to this organisation and environment.
 * The context statement is pipelined with the first statement of `work`: no extra round trip.
 */
export async function withTenant<T>(tenant: Tenant, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db().begin(async (tx) => {
    const context = tx`
      select set_config('role', 'svc_api', true),
             set_config('app.org_id', ${tenant.orgId}, true),
             set_config('app.env', ${tenant.environment}, true)`.execute();
    const [, result] = await Promise.all([context, work(tx)]);
    return result;
  }) as Promise<T>;
}
