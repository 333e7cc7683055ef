// Plans made before a bulk load and kept after it (issue #51). A connection keeps its generic plans
// (app.match_candidates' query, every foreign-key check) until the table is analyzed again; made
// while a table was empty or never analyzed, they can read a tenant's rows, or every block, for each
// row they look at. Each case runs on a database of its own (freshly migrated, autovacuum off for
// the tables loaded, so that nothing analyzes them behind the test's back): a connection makes its
// plan on the empty tables, a bulk load follows in SQL, and auto_explain reports what the same
// connection's next statement read.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgTypes } from '../../shared/db/client.ts';
import { analyzeGrown } from '../../shared/db/statistics.ts';
import { migrate } from '../../scripts/lib/migrate.ts';
import { ownerSql } from '../helpers.ts';
import { scratchDatabase } from '../operations/scratch-db.ts';
import type { PlanNode } from './plans.ts';

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
const spot = { lat: 41.5, lng: -93.6 };
/** A reference of the service's shape (REQ- and six letters of its alphabet) from a number, in SQL. */
const refOf = (n: string) => `'REQ-' || (select string_agg(substr('ABCDEFGHJKMNPQRSTUVWXYZ23456789', ((${n} / (31::bigint ^ i)::bigint) % 31)::int + 1, 1), '' order by i) from generate_series(0, 5) i)`;

let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
let url: string;

beforeAll(async () => {
  scratch = await scratchDatabase(ownerSql());
  url = scratch.url;
  await migrate(scratch.sql, () => {});
  for (const table of ['properties', 'availability_blocks', 'claims', 'sourcing_rounds']) {
    await scratch.sql.unsafe(`alter table app.${table} set (autovacuum_enabled = false)`);
  }
}, 120_000);

afterAll(async () => {
  await scratch?.drop();
});

/** One connection, as a pooled connection of the service is: its plans last as long as it does. */
function connection() {
  const notices: string[] = [];
  const sql = postgres(url, { max: 1, types: pgTypes, onnotice: (notice) => notices.push(notice.message) });
  /** Runs `work` with auto_explain reporting every statement's plan, nested ones too; returns the plans. */
  const explained = async (tenant: { orgId: string; environment: string } | undefined, work: (tx: postgres.TransactionSql) => Promise<unknown>) => {
    notices.length = 0;
    await sql.begin(async (tx) => {
      await tx`load 'auto_explain'`;
      await tx`select set_config('auto_explain.log_min_duration', '0', true), set_config('auto_explain.log_analyze', 'on', true),
                      set_config('auto_explain.log_buffers', 'on', true), set_config('auto_explain.log_format', 'json', true),
                      set_config('auto_explain.log_nested_statements', 'on', true), set_config('auto_explain.log_level', 'notice', true)`;
      if (tenant) await tx`select set_config('app.org_id', ${tenant.orgId}, true), set_config('app.env', ${tenant.environment}, true)`;
      await work(tx);
    });
    return notices
      .map((message) => JSON.parse(message.slice(message.indexOf('{'))) as { 'Query Text': string; Plan: PlanNode })
      .filter(({ 'Query Text': query }) => !/set_config\(/.test(query))
      .map(({ 'Query Text': query, Plan: plan }) => ({ query, plan, nodes: nodesOf(plan) }));
  };
  return { sql, explained };
}

async function organisation(side: 'carrier' | 'provider') {
  const [org] = await scratch.sql<{ id: string }[]>`insert into app.organisations (name, side) values (${`Bulk ${side}`}, ${side}) returning id`;
  if (side === 'provider') {
    await scratch.sql`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      values (${org.id}, 'live', true, true, true, 'complete')`;
  }
  return org.id;
}

/** `count` verified homes of `org` within a few miles of the spot. */
const publish = (org: string, count: number, tag: string) => scratch.sql.unsafe(`
  insert into app.properties (org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents,
    bedrooms, bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents, application_fee_cents,
    pet_fee_cents, image_urls, description, amenities, pet_policy, status, external_id)
  select $1, 'live', 'Home ' || g, g || ' Bulk St', 'Des Moines', 'IA', '50309', ${spot.lat} + (random() - 0.5) * 0.2,
         ${spot.lng} + (random() - 0.5) * 0.2, 150000, 2, 1, 900, 'furnished', current_date, 100000, 0, 0, 0,
         array['https://img.example.com/a.jpg'], 'A home.', array['wifi'], 'No pets', 'available', $3 || g
    from generate_series(1, $2::int) g`, [org, count, tag]);

const newRequest = async (carrier: string, n: number) => {
  const [row] = await scratch.sql.unsafe<{ id: string }[]>(`
    insert into app.claims (org_id, environment, claim_ref, loss_address, loss_city, loss_state, loss_zip, origin_lat, origin_lng,
                            target_move_in, est_length_months, rent_payer, deposit_payer, bedrooms, bathrooms, sqft, adults,
                            property_type, furnishing)
    values ($1, 'live', ${refOf('$2::bigint')}, '1 Loss Rd', 'Des Moines', 'IA', '50309', ${spot.lat}, ${spot.lng},
            current_date + 30, 3, 'carrier', 'carrier', 2, 1, 900, 2, 'apartment', 'furnished')
    returning id`, [carrier, 900_000_000 + n]);
  return row.id;
};

describe('matching after a bulk publish and calendar sync, on tables never analyzed', () => {
  it('probes each candidate home\'s own blocks, whatever the plan was made on', async () => {
    const provider = await organisation('provider');
    const other = await organisation('provider');
    const carrier = await organisation('carrier');
    await publish(provider, 300, 'A-');
    const claim = await newRequest(carrier, 1);
    const { sql, explained } = connection();
    const tenant = { orgId: carrier, environment: 'live' };
    const matches = (tx: postgres.TransactionSql) => tx<{ property_id: string }[]>`select property_id from app.match_candidates(${claim}, 200)`;
    // The count of the same rule (app.count_candidates), which sourcing takes.
    const counted = (tx: postgres.TransactionSql) => tx<{ n: number }[]>`select app.count_candidates(${claim}, 200) as n`;
    try {
      // The connection's plans, made while availability_blocks is empty.
      await explained(tenant, matches);
      await explained(tenant, counted);
      // The bulk: another provider's 1,500 homes among the first, and 40 of them given 200 blocks of
      // their past and one over the move-in date (the calendar sync of a channel's history).
      await publish(other, 1500, 'B-');
      await scratch.sql`
        insert into app.availability_blocks (org_id, environment, property_id, source, start_date, end_date, reason)
        select p.org_id, 'live', p.id, 'provider', current_date - 450 + k * 2, current_date - 450 + k * 2, 'Synced'
          from (select id, org_id from app.properties where org_id = ${other} order by external_id limit 40) p, generate_series(0, 199) k
        union all
        select p.org_id, 'live', p.id, 'provider', current_date + 25, current_date + 35, 'Synced'
          from (select id, org_id from app.properties where org_id = ${other} order by external_id limit 40) p`;
      let found: { property_id: string }[] = [];
      const [matchPlan] = (await explained(tenant, async (tx) => (found = await matches(tx)))).filter((p) => /app\.eligible_homes\(/.test(p.query));
      // None of the 40 homes blocked over the move-in date is offered.
      const blocked = new Set((await scratch.sql<{ id: string }[]>`
        select id from app.properties where org_id = ${other} order by external_id limit 40`).map((r) => r.id));
      expect(found).toHaveLength(200);
      expect(found.filter((f) => blocked.has(f.property_id))).toEqual([]);

      let count = 0;
      const [countPlan] = (await explained(tenant, async (tx) => ([{ n: count }] = await counted(tx)))).filter((p) => /app\.eligible_homes\(/.test(p.query));
      expect(count).toBe(200);
      for (const plan of [matchPlan, countPlan]) expectProbedByHomeAndEnd(plan);
    } finally {
      await sql.end();
    }
  });
});

/**
 * Holds a plan of matching's query (ranked or counted), made by the connection on the empty tables
 * and run after the bulk, to one probe of each candidate's calendar by the home and the end date.
 */
function expectProbedByHomeAndEnd(plan: { plan: PlanNode; nodes: PlanNode[] }) {
  const scans = plan.nodes.filter((node) => node['Relation Name'] === 'availability_blocks');
  expect(scans.length).toBe(1);
  const [probe] = scans;
  // One probe a candidate, by the home and bounded by the move-in: the index led by the home
  // and the end date, never a walk of the blocks with `property_id = p.id` left to a filter (the
  // plan made on the empty table read all 8,040 blocks for each of the 200 candidates), nor the
  // home's history before the move-in (its 200 past blocks, each fetched to read its end date).
  expect(probe['Node Type']).toBe('Index Scan');
  expect(probe['Index Name']).toBe('availability_blocks_ending');
  expect(probe['Index Cond']).toMatch(/property_id = p\.id/);
  expect(probe['Index Cond']).toMatch(/end_date >=/);
  // What the probes read: the index's depth, a few buffers a home (the walk of the 40 homes'
  // histories fetched their 200 past blocks each, some 30 buffers a probe on average). The
  // plan's row counts are averages a loop, rounded, so the buffers are what is counted.
  expect(probe['Actual Loops']).toBeLessThanOrEqual(260);
  expect((probe['Shared Hit Blocks'] + probe['Shared Read Blocks']) / probe['Actual Loops']).toBeLessThanOrEqual(4);
  // Every buffer of the statement: about four for each of at most 260 candidates (1,040 here),
  // where the plan made on the empty table read 50,000.
  expect(plan.plan['Shared Hit Blocks'] + plan.plan['Shared Read Blocks']).toBeLessThan(1_400);
  // The loss's point on the earth is worked out once a call, before the query: app.eligible_homes is
  // inlined, and an expression passed to it would be worked out again for each home (5x a count's CPU).
  expect(JSON.stringify(plan.plan)).not.toMatch(/ll_to_earth/);
}

describe('a bulk load of requests, on a table never analyzed', () => {
  it('analyzes what it loaded once it doubled, so the sourcing rounds\' check is planned on its size', async () => {
    const carrier = await organisation('carrier');
    const { sql, explained } = connection();
    const round = (tx: postgres.TransactionSql, limit: number) => tx`
      insert into app.sourcing_rounds (org_id, environment, claim_id, trigger, matches_found, crawl_postcode, crawl_request)
      select org_id, environment, id, 'opened', 0, loss_zip, '{}' from app.claims
       where org_id = ${carrier} and not exists (select 1 from app.sourcing_rounds r where r.claim_id = claims.id)
       order by id limit ${limit}`;
    /** The foreign-key checks of app.claims a statement ran (one an inserted row): the indexes they took, and buffers per check. */
    const checks = (plans: Awaited<ReturnType<typeof explained>>) => {
      const scans = plans.filter((p) => /FROM ONLY "app"\."claims"/.test(p.query))
        .flatMap((p) => p.nodes.filter((node) => node['Relation Name'] === 'claims'));
      const buffers = scans.reduce((sum, scan) => sum + scan['Shared Hit Blocks'] + scan['Shared Read Blocks'], 0);
      return { count: scans.length, indexes: [...new Set(scans.map((scan) => scan['Index Name']))], buffersPerCheck: buffers / scans.length };
    };
    try {
      // The connection plans the check while app.claims holds one request and was never analyzed.
      await newRequest(carrier, 2);
      await explained(undefined, (tx) => round(tx, 1));
      // The bulk: 4,000 requests of the organisation, as batches would load them.
      await scratch.sql.unsafe(`
        insert into app.claims (org_id, environment, claim_ref, loss_address, loss_city, loss_state, loss_zip, origin_lat, origin_lng,
                                target_move_in, est_length_months, rent_payer, deposit_payer, bedrooms, bathrooms, sqft, adults,
                                property_type, furnishing)
        select $1, 'live', ${refOf('g')}, g || ' Loss Rd', 'Des Moines', 'IA', '50309', 41.5, -93.6,
               current_date + 30, 3, 'carrier', 'carrier', 2, 1, 900, 2, 'apartment', 'furnished'
          from generate_series(1, 4000) g`, [carrier]);
      const before = checks(await explained(undefined, (tx) => round(tx, 50)));
      // The hazard itself, so that this test shows what it guards against: planned on the table
      // never analyzed, each check walked a tenant index over the organisation's requests (92
      // buffers a check at 4,000 requests, growing with them; measured 7.7 ms a check at 20,000).
      expect(before.buffersPerCheck).toBeGreaterThan(20);
      // What the bulk path does after its commit; a second call finds nothing grown.
      expect(await analyzeGrown(['claims', 'properties'], scratch.sql)).toContain('claims');
      expect(await analyzeGrown(['claims'], scratch.sql)).toEqual([]);
      // The same connection's check is planned again, on the table's size: one key looked up a round.
      const after = checks(await explained(undefined, (tx) => round(tx, 200)));
      expect(after.count).toBe(200);
      for (const index of after.indexes) expect(index).toMatch(/^claims_(pkey|tenant_key)$/);
      expect(after.buffersPerCheck).toBeLessThanOrEqual(4);
    } finally {
      await sql.end();
    }
  });
});
