// What a pooled connection pays for each call, apart from the work asked (issue #49). On a database
// server of its own, started with pg_stat_statements (loaded at start only) counting plans:
// - the functions a placement calls many times a request keep their statements' plans for the
//   connection (PL/pgSQL), where a SQL function that cannot be inlined is planned again on every
//   call (PostgreSQL up to 17);
// - the delivery queue's claim and its results find their rows by primary key, not by reading the
//   whole queue, whichever plan the connection settles on, and a claimed row's new version stays on
//   its page.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScratchDatabase, type ScratchDatabase } from '../../scripts/lib/scratch.ts';
import { pgTypes, type Sql } from '../../shared/db/client.ts';
import { claimDue, recordAttempts } from '../../shared/webhooks/queue.ts';
import type { PlanNode } from './plans.ts';

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

let server: ScratchDatabase;
let owner: postgres.Sql;

beforeAll(async () => {
  server = await startScratchDatabase('hps-plans-', {
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.track_planning': 'on' },
  });
  owner = postgres(server.url, { max: 1, types: pgTypes, onnotice: () => {} });
  await owner`create extension if not exists pg_stat_statements`;
}, 120_000);

afterAll(async () => {
  await owner?.end();
  await server?.stop();
});

describe('functions called on every placement', () => {
  it('plan their statements once a connection, not on every call', async () => {
    const [org] = await owner<{ id: string }[]>`insert into app.organisations (name, side) values ('Plans carrier', 'carrier') returning id`;
    const [provider] = await owner<{ id: string }[]>`insert into app.organisations (name, side) values ('Plans provider', 'provider') returning id`;
    const some = '00000000-0000-4000-8000-000000000001';
    const calls = 20;
    const sql = postgres(server.url, { max: 1, types: pgTypes, onnotice: () => {} });
    try {
      await sql`select set_config('role', 'svc_api', false), set_config('app.org_id', ${org.id}, false), set_config('app.env', 'sandbox', false)`;
      await owner`select pg_stat_statements_reset()`;
      for (let call = 0; call < calls; call++) {
        await sql`select app.clock_now()`;
        await sql`select app.can_take_charges(${provider.id}, 'live')`;
        await sql`select * from app.payout_status(${provider.id}, 'live')`;
        await sql`select * from app.home_for_request(${some}, ${some})`;
        await sql`select * from app.homes_on_request(${some})`;
        await sql`select * from app.home_label(${some})`;
        await sql`select * from app.payee_of(${some}, 'sandbox')`;
        await sql`select * from app.stay_conflicts(${some}, 'sandbox', ${some}, current_date, current_date + 30)`;
        await sql`select app.record_event('request.created', '{}', null, null)`;
      }
    } finally {
      await sql.end();
    }
    // The statements inside the functions, each run once a call (or more: payee_of and
    // can_take_charges ask payout_status), and how often each was planned.
    const nested = await owner<{ query: string; calls: number; plans: number }[]>`
      select query, calls::int, plans::int from pg_stat_statements
       where not toplevel and calls >= ${calls} and query !~ '^SELECT \\$\\d+ FROM ONLY'
       order by query`;
    const bodies = (pattern: RegExp) => nested.filter((statement) => pattern.test(statement.query));
    for (const pattern of [/sandbox_clocks/, /from app\.payout_accounts a where a\.org_id = p_org/, /app\.can_take_charges\(p\.org_id, c\.environment\)/,
      /from app\.claim_options h join app\.properties p on p\.id = h\.property_id\s+where h\.claim_id = p_claim/, /select p\.name, p\.external_id/,
      /s\.processor_account_id, s\.charges_enabled/, /from app\.availability_blocks b/, /insert into app\.events/]) {
      expect(bodies(pattern), `a statement matching ${pattern}`).not.toHaveLength(0);
    }
    // Five custom plans, then the generic one, which the connection keeps.
    expect(nested.filter((statement) => statement.plans > 6).map((statement) => `${statement.plans} plans of ${statement.calls} calls: ${statement.query}`)).toEqual([]);
  });
});

describe('the delivery queue', () => {
  it('claims and records by primary key, not by reading the whole queue, under either plan', async () => {
    const [org] = await owner<{ id: string }[]>`insert into app.organisations (name, side) values ('Queue carrier', 'carrier') returning id`;
    const [endpoint] = await owner<{ id: string }[]>`
      insert into app.webhook_endpoints (org_id, environment, url, secret)
      values (${org.id}, 'live', 'https://hooks.example.com/plans', 'whsec_' || repeat('a', 32)) returning id`;
    // Deliveries done and a backlog due (as in a surge, where the planner's guess of a tenth of the
    // due rows for the claim's limit made it a join reading the whole table): pings, which need no event.
    await owner`
      insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, status, attempts, completed_at, created_at)
      select ${org.id}, 'live', ${endpoint.id}, 'ping', 'succeeded', 1, now() - g * interval '1 second', now() - g * interval '1 second'
        from generate_series(1, 3000) g`;
    await owner`
      insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, signing_secret, next_attempt_at)
      select ${org.id}, 'live', ${endpoint.id}, 'ping', 'whsec_' || repeat('a', 32), now() - g * interval '1 second'
        from generate_series(1, 2000) g`;
    await owner`analyze app.webhook_deliveries`;

    for (const mode of ['force_generic_plan', 'force_custom_plan']) {
      const notices: string[] = [];
      const sql = postgres(server.url, {
        max: 1, types: pgTypes, onnotice: (notice) => notices.push(notice.message), connection: { plan_cache_mode: mode } as Record<string, string>,
      });
      try {
        await sql`load 'auto_explain'`;
        await sql`select set_config('auto_explain.log_min_duration', '0', false), set_config('auto_explain.log_analyze', 'on', false),
                         set_config('auto_explain.log_format', 'json', false), set_config('auto_explain.log_level', 'notice', false)`;
        const claimed = await claimDue(sql as unknown as Sql, 10, 30_000);
        expect(claimed).toHaveLength(10);
        await recordAttempts(sql as unknown as Sql, claimed.map((delivery) => ({
          id: delivery.id, lease_token: delivery.lease_token, ok: true, at: new Date().toISOString(), duration_ms: 5,
          http_status: 200, response_body: null, error: null,
        })), [60, 300]);
      } finally {
        await sql.end();
      }
      const plans = notices
        .map((message) => JSON.parse(message.slice(message.indexOf('{'))) as { 'Query Text': string; Plan: PlanNode })
        .filter(({ 'Query Text': query }) => /webhook_deliveries/.test(query) && !/set_config\(/.test(query));
      expect(plans.map(({ 'Query Text': query }) => query.trim().slice(0, 9))).toEqual(['with due ', 'with resu']);
      const wholeReads = plans.flatMap(({ Plan }) => nodesOf(Plan)).filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'webhook_deliveries');
      expect(wholeReads, mode).toEqual([]);
    }
    const [{ succeeded }] = await owner<{ succeeded: number }[]>`select count(*)::int as succeeded from app.webhook_deliveries where status = 'succeeded'`;
    expect(succeeded).toBe(3020);
  });

  it("keeps a claimed delivery's new version on its page, where its queueing left room for it", async () => {
    // A full page sends the new version wherever the free space map points: on a season's queue, old
    // pages out of memory (migration *_deliveries_room_to_update.sql).
    const [org] = await owner<{ id: string }[]>`insert into app.organisations (name, side) values ('Room carrier', 'carrier') returning id`;
    const [endpoint] = await owner<{ id: string }[]>`
      insert into app.webhook_endpoints (org_id, environment, url, secret)
      values (${org.id}, 'live', 'https://hooks.example.com/room', 'whsec_' || repeat('a', 32)) returning id`;
    // 200 queued in one statement, several pages; the first ones queued are the first due, on the first page.
    await owner`
      insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, signing_secret, next_attempt_at)
      select ${org.id}, 'live', ${endpoint.id}, 'ping', 'whsec_' || repeat('a', 32), now() - (201 - g) * interval '1 second'
        from generate_series(1, 200) g`;
    const pages = async () => new Map((await owner<{ id: string; page: number }[]>`
      select id, (ctid::text::point)[0]::int as page from app.webhook_deliveries where org_id = ${org.id}`).map((row) => [row.id, row.page]));
    const queued = await pages();
    expect(new Set(queued.values()).size).toBeGreaterThan(2);
    const claimed = await claimDue(owner as unknown as Sql, 5, 30_000, [org.id]);
    expect(claimed).toHaveLength(5);
    const now = await pages();
    expect(claimed.map((row) => now.get(row.id))).toEqual(claimed.map((row) => queued.get(row.id)));
  });
});
