import { describe, expect, it } from 'vitest';
import { carrier, insertHome, openClaim, provider } from '../claims/fixtures.ts';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { minimalHome } from '../properties/fixtures.ts';

// Columns whose name says what they hold; every other column of the app schema needs a comment.
const selfEvident = new Set([
  'id', 'org_id', 'environment', 'created_at', 'updated_at', 'name', 'description', 'email', 'address', 'city', 'state',
  'zip_code', 'currency', 'bedrooms', 'bathrooms', 'sqft', 'adults', 'children', 'amenities', 'property_id', 'claim_id',
  'booking_id', 'endpoint_id', 'key_id', 'zip',
]);

type Sql = ReturnType<typeof ownerSql>;

/** Tables and views of app and staff without a comment. */
async function bareRelations(sql: Sql) {
  return (await sql<{ name: string }[]>`
    select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('app', 'staff') and c.relkind in ('r', 'p', 'v', 'm') and coalesce(obj_description(c.oid, 'pg_class'), '') = ''
     order by 1`).map((r) => r.name);
}

/** Columns of app's tables and views without a comment whose name is not self-evident. */
async function bareColumns(sql: Sql) {
  const rows = await sql<{ name: string; column: string }[]>`
    select c.oid::regclass::text || '.' || a.attname as name, a.attname as column
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'app' and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0 and not a.attisdropped
       and coalesce(col_description(c.oid, a.attnum), '') = ''
     order by 1`;
  return rows.filter((r) => !selfEvident.has(r.column)).map((r) => r.name);
}

describe('Studio: the schema explains itself', () => {
  it('every table, view and function of the app schema, and every column whose name is not self-evident, has a comment', async () => {
    const sql = ownerSql();
    expect(await bareRelations(sql), 'tables and views without a comment').toEqual([]);
    expect(await bareColumns(sql), 'columns without a comment (add `comment on column` in the migration that adds them)').toEqual([]);
    const functions = await sql<{ name: string }[]>`
      select p.oid::regprocedure::text as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'app' and coalesce(obj_description(p.oid, 'pg_proc'), '') = ''`;
    expect(functions.map((f) => f.name), 'functions without a comment').toEqual([]);
    const [schemas] = await sql`select obj_description('app'::regnamespace) as app, obj_description('staff'::regnamespace) as staff`;
    expect(schemas.app).toBeTruthy();
    expect(schemas.staff).toBeTruthy();
  });

  it('a new table or column without a comment fails that check', async () => {
    const rolledBack = new Error('rolled back');
    let found: unknown;
    await ownerSql().begin(async (tx) => {
      await tx`create table app.uncommented_probe (id uuid primary key, mystery integer)`;
      await tx`create table app.commented_probe (id uuid primary key, mystery integer)`;
      await tx`comment on table app.commented_probe is 'A probe.'`;
      await tx`comment on column app.commented_probe.mystery is 'Explained.'`;
      found = { relations: await bareRelations(tx as unknown as Sql), columns: await bareColumns(tx as unknown as Sql) };
      throw rolledBack;
    }).catch((e) => expect(e).toBe(rolledBack));
    expect(found).toEqual({ relations: ['app.uncommented_probe'], columns: ['app.uncommented_probe.mystery'] });
  });
});

describe('staff views', () => {
  it('are readable by the Studio roles and never by the API role or anon/authenticated', async () => {
    const sql = ownerSql();
    for (const role of ['anon', 'authenticated']) {
      // Supabase's client roles, created here when this PostgreSQL lacks them (roles are per server).
      await sql.unsafe(`do $$ begin if not exists (select 1 from pg_roles where rolname = '${role}') then create role ${role} nologin; end if; end $$`);
    }
    const views = (await sql<{ name: string }[]>`
      select c.oid::regclass::text as name from pg_class c where c.relnamespace = 'staff'::regnamespace and c.relkind = 'v' order by 1`).map((v) => v.name);
    expect(views).toEqual([
      'staff.abandoned_jobs', 'staff.failing_deliveries_by_endpoint', 'staff.homes_not_listed', 'staff.ledger_differences', 'staff.open_requests',
      'staff.open_requests_by_status', 'staff.placements_in_flight',
    ]);
    for (const view of views) {
      for (const role of ['postgres', 'service_role', 'supabase_admin']) {
        const [{ ok }] = await sql`select has_schema_privilege(${role}, 'staff', 'usage') and has_table_privilege(${role}, ${view}, 'select') as ok`;
        expect(ok, `${role} reads ${view}`).toBe(true);
        const [{ writes }] = await sql`select has_table_privilege(${role}, ${view}, 'insert') or has_table_privilege(${role}, ${view}, 'update') as writes`;
        if (role !== 'postgres') expect(writes, `${role} writes ${view}`).toBe(false);
      }
      for (const role of ['svc_api', 'anon', 'authenticated']) {
        const [{ usage, select }] = await sql`
          select has_schema_privilege(${role}, 'staff', 'usage') as usage, has_table_privilege(${role}, ${view}, 'select') as select`;
        expect({ role, view, usage, select }).toEqual({ role, view, usage: false, select: false });
      }
    }
    // What the API runs as is refused outright.
    const denied = await sql.begin(async (tx) => {
      await tx`set local role svc_api`;
      return tx`select * from staff.open_requests`;
    }).catch((e) => e);
    expect(denied.code).toBe('42501');
  });

  it('answer the four questions: open requests by status and days open, placements in flight and what they wait on, failing deliveries per endpoint, homes not listed and why', async () => {
    const sql = ownerSql();
    const tenant = await carrier();
    const first = await openClaim(tenant.liveApi);
    const second = await openClaim(tenant.liveApi);
    await sql`update app.claims set created_at = now() - interval '10 days 2 hours' where id = ${first.id}`;

    const open = await sql`select claim_ref, status, days_open, coordinator from staff.open_requests where org_id = ${tenant.orgId} order by days_open desc`;
    expect(open.map((r) => [r.claim_ref, r.days_open])).toEqual([[first.claim_ref, 10], [second.claim_ref, 0]]);
    expect(open[0].coordinator).toBeNull();
    const [byStatus] = await sql`select requests, oldest_days_open from staff.open_requests_by_status where environment = 'live' and status = ${open[0].status}`;
    expect(byStatus.requests).toBeGreaterThanOrEqual(2);
    expect(byStatus.oldest_days_open).toBeGreaterThanOrEqual(10);

    // Placements: one home waiting for the policyholder's signature, one cancelled (not in flight).
    const providerOrg = await provider();
    const [signing, cancelled] = [await insertHome(providerOrg, { name: 'Signing Home' }), await insertHome(providerOrg)];
    await sql`
      insert into app.claim_options (org_id, environment, claim_id, property_id, option_status, lease_status, move_in_date, cancelled_at)
      values (${tenant.orgId}, 'live', ${first.id}, ${signing}, 'approved', 'sent_for_signature', current_date + 7, null),
             (${tenant.orgId}, 'live', ${first.id}, ${cancelled}, 'cancelled', 'awaiting_lease', current_date + 7, now())`;
    const flight = await sql`select home, waits_on, claim_ref, lease_status from staff.placements_in_flight where claim_ref = ${first.claim_ref}`;
    expect(flight).toEqual([{ home: 'Signing Home', waits_on: "policyholder's signature", claim_ref: first.claim_ref, lease_status: 'sent_for_signature' }]);

    // Deliveries: an endpoint whose delivery failed once and waits for a retry.
    const [endpoint] = await sql`
      insert into app.webhook_endpoints (org_id, environment, url, secret)
      values (${tenant.orgId}, 'live', 'https://hooks.example.com/failing', ${'whsec_' + 'a'.repeat(32)}) returning id`;
    await sql`select app.record_event('claim.updated', '{}'::jsonb, ${tenant.orgId}::uuid, 'live')`;
    await sql`
      update app.webhook_deliveries
         set attempts = 1, next_attempt_at = now() + interval '5 minutes',
             history = jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now(), 'outcome', 'failed', 'http_status', 503, 'error', null))
       where endpoint_id = ${endpoint.id}`;
    const [failing] = await sql`select url, retrying, abandoned_7d, last_failure_http_status from staff.failing_deliveries_by_endpoint where endpoint_id = ${endpoint.id}`;
    expect(failing).toEqual({ url: 'https://hooks.example.com/failing', retrying: 1, abandoned_7d: 0, last_failure_http_status: 503 });

    // Homes: one saved through the API without the listing's details, one complete.
    const providerTenant = await createTenant('provider');
    const saved = await client(providerTenant.live).post('/properties', minimalHome({ name: 'Bare Home' }));
    expect(saved.status).toBe(201);
    const homes = await sql`select home, reasons from staff.homes_not_listed where org_id = ${providerTenant.orgId}`;
    expect(homes).toHaveLength(1);
    expect(homes[0].home).toBe('Bare Home');
    expect(homes[0].reasons).toEqual(expect.arrayContaining(['missing sqft', 'missing image_url', 'payout account cannot take charges in live']));
    const complete = await sql`select 1 from staff.homes_not_listed where property_id = ${signing}`;
    expect(complete).toHaveLength(0);
  });
});
