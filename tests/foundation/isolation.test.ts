import { scene } from '../placements/fixtures.ts';
import { describe, expect, it } from 'vitest';
import { createTenant, ownerSql } from '../helpers.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import { emit } from '../../shared/events/outbox.ts';

/** Runs `work` as the API role with the given context (or none), then rolls back. */
async function asApi<T>(context: { org?: string; env?: string }, work: (tx: any) => Promise<T>): Promise<T> {
  let result: T;
  await ownerSql().begin(async (tx) => {
    await tx`select set_config('role', 'svc_api', true)`;
    if (context.org) await tx`select set_config('app.org_id', ${context.org}, true)`;
    if (context.env) await tx`select set_config('app.env', ${context.env}, true)`;
    result = await work(tx);
    throw Object.assign(new Error('rollback'), { rollback: true });
  }).catch((error) => {
    if (!error.rollback) throw error;
  });
  return result!;
}

describe('row-level security', () => {
  it('every tenant table has row-level security with a policy for the API role', async () => {
    const tables = await ownerSql()<{ table_name: string; rls: boolean; policies: number }[]>`
      select c.relname as table_name, c.relrowsecurity as rls,
             (select count(*) from pg_policies p where p.schemaname = 'app' and p.tablename = c.relname and 'svc_api' = any(p.roles))::int as policies
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'app' and c.relkind in ('r', 'p')
         and exists (select 1 from information_schema.columns col
                      where col.table_schema = 'app' and col.table_name = c.relname and col.column_name = 'org_id')`;
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) {
      expect(table, table.table_name).toMatchObject({ rls: true });
      expect(table.policies, table.table_name).toBeGreaterThan(0);
    }
  });

  it('the API role has no BYPASSRLS and Supabase client roles get nothing in the schema', async () => {
    const [role] = await ownerSql()`select rolbypassrls from pg_roles where rolname = 'svc_api'`;
    expect(role.rolbypassrls).toBe(false);
    const [grants] = await ownerSql()`
      select count(*)::int as n from information_schema.role_table_grants
       where table_schema = 'app' and grantee in ('anon', 'authenticated', 'PUBLIC')`;
    expect(grants.n).toBe(0);
  });

  it('without context, or with another organisation or environment, a query sees and changes nothing', async () => {
    const a = await createTenant('carrier');
    const b = await createTenant('carrier');
    await withTenant({ orgId: a.orgId, environment: 'sandbox' }, (tx) =>
      emit(tx, 'request.status_changed', { request_id: crypto.randomUUID(), reference: 'REQ-AAAAAA', external_id: null, status: 'housing_options_found', previous_status: null }));
    await ownerSql()`insert into app.usage_daily (org_id, environment, key_id, day, status_class, count)
                     values (${a.orgId}, 'sandbox', ${a.sandboxKeyId}, current_date, '2xx', 5)`;

    const counts = async (context: { org?: string; env?: string }) =>
      asApi(context, async (tx) => {
        const [row] = await tx`
          select (select count(*)::int from app.events where org_id = ${a.orgId}) as events,
                 (select count(*)::int from app.usage_daily where org_id = ${a.orgId}) as usage,
                 (select count(*)::int from app.api_keys where id = ${a.sandboxKeyId}) as keys`;
        const updated = await tx`update app.usage_daily set count = 0 where org_id = ${a.orgId} returning 1`;
        const deleted = await tx`delete from app.idempotency_keys where org_id = ${a.orgId} returning 1`;
        return { ...row, updated: updated.length, deleted: deleted.length };
      });

    expect(await counts({ org: a.orgId, env: 'sandbox' })).toEqual({ events: 1, usage: 1, keys: 1, updated: 1, deleted: 0 });
    for (const context of [{}, { org: b.orgId, env: 'sandbox' }, { org: a.orgId, env: 'live' }]) {
      expect(await counts(context)).toEqual({ events: 0, usage: 0, keys: 0, updated: 0, deleted: 0 });
    }
  });

  it('refuses writing a row for another tenant', async () => {
    const a = await createTenant('carrier');
    const b = await createTenant('carrier');
    await expect(
      asApi({ org: b.orgId, env: 'sandbox' }, (tx) => tx`
        insert into app.usage_daily (org_id, environment, key_id, day, status_class, count)
        values (${a.orgId}, 'sandbox', ${a.sandboxKeyId}, current_date, '2xx', 1)`),
    ).rejects.toThrow(/row-level security/);
  });
});

describe('events outbox', () => {
  const payload = { request_id: crypto.randomUUID(), reference: 'REQ-BBBBBB', external_id: 'X-1', status: 'housing_options_found' as const, previous_status: null };

  it('records the event with the operation, under the tenant or the provider of a home on its request, never anyone else', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const stranger = await createTenant('provider');
    const ids = await withTenant({ orgId: s.c.orgId, environment: 'sandbox' }, async (tx) => [
      await emit(tx, 'request.status_changed', payload),
      await emit(tx, 'request.status_changed', payload, { orgId: s.providerOrg, environment: 'sandbox' }),
      await emit(tx, 'request.status_changed', payload, { orgId: stranger.orgId, environment: 'sandbox' }),
    ]);
    expect(ids[2]).toBeNull();
    const rows = await ownerSql()`select id, org_id, environment, event, payload, simulated from app.events where id in ${ownerSql()(ids.slice(0, 2) as string[])} order by org_id = ${s.c.orgId} desc`;
    expect(rows).toMatchObject([
      { org_id: s.c.orgId, environment: 'sandbox', event: 'request.status_changed', payload, simulated: false },
      { org_id: s.providerOrg, environment: 'sandbox' },
    ]);
  });

  it('a failure to record never fails the operation', async () => {
    const t = await createTenant('carrier');
    // The outbox refuses the row (the provider organisation does not exist); the operation goes on.
    const result = await withTenant({ orgId: t.orgId, environment: 'sandbox' }, async (tx) => {
      const id = await emit(tx, 'request.status_changed', payload, { orgId: crypto.randomUUID(), environment: 'sandbox' });
      const [row] = await tx`select count(*)::int as n from app.usage_daily`;
      return { id, n: row.n };
    });
    expect(result).toEqual({ id: null, n: 0 });
  });

  it('in the test suite, a payload that does not fit the registry fails loudly', async () => {
    const t = await createTenant('carrier');
    await expect(
      // @ts-expect-error emit's type refuses the payload too; this proves the run-time check behind it.
      withTenant({ orgId: t.orgId, environment: 'sandbox' }, (tx) => emit(tx, 'request.status_changed', { reference: 'REQ-CCCCCC' })),
    ).rejects.toThrow(/does not match the event registry: request_id/);
  });

  it('an operation that rolls back takes its event with it', async () => {
    const t = await createTenant('carrier');
    await expect(
      withTenant({ orgId: t.orgId, environment: 'sandbox' }, async (tx) => {
        await emit(tx, 'request.status_changed', payload);
        throw new Error('operation failed');
      }),
    ).rejects.toThrow('operation failed');
    const [row] = await ownerSql()`select count(*)::int as n from app.events where org_id = ${t.orgId}`;
    expect(row.n).toBe(0);
  });
});
