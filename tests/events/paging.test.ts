// Paging the event log costs the same at any depth: a page is read along events_feed (by type:
// events_by_type) with the cursor as an index condition, never by walking newer events (the
// tenant's or anyone else's).
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrg, ownerSql } from '../helpers.ts';
import { withTenant, type Tenant } from '../../shared/db/tenant.ts';
import { listEvents, type EventFilter } from '../../functions/events/repository.ts';
import type { Keyset } from '../../shared/http/paging.ts';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

let tenant: Tenant;
const ownEvents = 4000;

beforeAll(async () => {
  tenant = { orgId: await createOrg('carrier'), environment: 'live' };
  const busy = await createOrg('carrier');
  const sql = ownerSql();
  // The tenant's events, then a busier tenant's newer ones: a scan in time order alone would have
  // to pass every one of those before reaching this tenant's first page.
  await sql`
    insert into app.events (org_id, environment, event, payload)
    select ${tenant.orgId}, 'live', case when g % 40 = 0 then 'lease.sent' else 'option.saved' end, '{}'
      from generate_series(1, ${ownEvents}) g`;
  await sql`
    insert into app.events (org_id, environment, event, payload)
    select ${busy}, 'live', 'option.saved', '{}' from generate_series(1, 2000)`;
  await sql`analyze app.events`;
});

/** The plan of the log's own query, as run for the tenant, with what it actually read. */
async function planOf(filter: Partial<EventFilter>): Promise<PlanNode[]> {
  const full: EventFilter = { names: [], limit: 100, ...filter };
  const [row] = await withTenant(tenant, (tx) => tx<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>`
    explain (analyze, format json) ${listEvents(tx, full)}`);
  return nodesOf(row['QUERY PLAN'][0].Plan);
}

async function keysetAt(depth: number): Promise<Keyset> {
  const [row] = await ownerSql()<{ position: string; id: string }[]>`
    select to_json(created_at) #>> '{}' as position, id from app.events
     where org_id = ${tenant.orgId} and environment = 'live'
     order by created_at desc, id desc offset ${depth} limit 1`;
  return [row.position, row.id];
}

describe('GET /events paging', () => {
  it.each([
    ['the first page', undefined],
    ['a page 3,500 events deep', 3500],
  ])('reads %s along events_feed, no more rows than the page', async (_, depth) => {
    const nodes = await planOf({ after: depth === undefined ? undefined : await keysetAt(depth) });
    const scans = nodes.filter((node) => /Scan/.test(node['Node Type']));
    expect(scans.map((node) => [node['Node Type'], node['Index Name']])).toEqual([['Index Scan', 'events_feed']]);
    if (depth !== undefined) expect(scans[0]['Index Cond']).toMatch(/ROW\(created_at, id\) </);
    expect(scans[0]['Actual Rows']).toBe(101);
    expect(nodes.some((node) => /Sort/.test(node['Node Type']))).toBe(false);
  });

  it('filters by event type along events_by_type, one page of the type from the cursor on', async () => {
    const nodes = await planOf({ names: ['lease.sent'], after: await keysetAt(2000) });
    const indexReads = nodes.filter((node) => node['Index Name'] !== undefined);
    expect(indexReads.map((node) => node['Index Name'])).toEqual(['events_by_type']);
    expect(indexReads[0]['Index Cond']).toMatch(/ROW\(created_at, id\) </);
    expect(nodes.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
  });
});
