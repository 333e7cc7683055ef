// The reads that a season of data (90 days of a catastrophe) must not make slower: each is run as
// the service runs it, as a prepared statement's generic plan and as a custom plan, over a tenant
// history a few thousand rows deep, and must read what its page needs, not the tenant's whole
// history. The volumes are the least that tells the plans apart: the old plans read every row of
// the tenant's log, deliveries or bookings (hundreds of buffers); the indexed ones a handful.
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrg, ownerSql } from '../helpers.ts';
import type { Tenant } from '../../shared/db/tenant.ts';
import type { ClaimRow } from '../../shared/claims/repository.ts';
import { listEvents, type EventFilter } from '../../functions/events/repository.ts';
import { listDeliveries, type DeliveryFilter } from '../../functions/webhooks/repository.ts';
import { assembleTimeline } from '../../functions/claims/timeline.ts';
import { placementOptions } from '../../shared/placements/placement-repository.ts';
import { moveLease } from '../../shared/placements/lease.ts';
import type { Keyset } from '../../shared/http/paging.ts';
import { executedPlans, scansOf, type ExecutedPlan, type PlanMode } from './plans.ts';

const modes: PlanMode[] = ['generic', 'custom'];
/** A reference the generated requests carry: REQ- and six letters of the reference alphabet, from a number. */
const refOf = (n: string) => `'REQ-' || (select string_agg(substr('ABCDEFGHJKMNPQRSTUVWXYZ23456789', ((${n} / (31::bigint ^ i)::bigint) % 31)::int + 1, 1), '' order by i) from generate_series(0, 5) i)`;

/** A new carrier (the tenant) with 3,000 requests, or `requests` (their ids, in order), and a new provider with one home, for the reads below. */
async function requestsOnOneHome(requests = 3000) {
  const tenant: Tenant = { orgId: await createOrg('carrier'), environment: 'live' };
  const carrier = tenant.orgId;
  const provider = await createOrg('provider');
  const sql = ownerSql();
  const salt = Math.floor(Math.random() * 400_000_000);
  const claims = await sql<{ id: string }[]>`
    insert into app.claims (org_id, environment, claim_ref, loss_address, loss_city, loss_state, loss_zip, origin_lat, origin_lng,
                            target_move_in, est_length_months, rent_payer, deposit_payer, bedrooms, bathrooms, sqft, adults,
                            property_type, furnishing, external_id)
    select ${carrier}, 'live', ${sql.unsafe(refOf(`(${salt}::bigint + g)`))}, '1 Season Rd', 'Austin', 'TX', '78701', 30.27, -97.74,
           current_date + 30, 3, 'carrier', 'carrier', 2, 1, 900, 2, 'apartment', 'furnished', 'SEASON-' || g
      from generate_series(1, ${requests}) g
    returning id`;
  const [{ id: home }] = await sql<{ id: string }[]>`
    insert into app.properties (org_id, environment, address, city, state, zip_code, monthly_rate_cents, bedrooms, bathrooms)
    values (${provider}, 'live', '1 Season St', 'Austin', 'TX', '78701', 200000, 2, 1) returning id`;
  return { tenant, provider, claims: claims.map((claim) => claim.id), home };
}

/** Each of the season's requests approves its home: an option of the carrier for each, in the requests' order. */
async function approvedOptions({ tenant, claims, home }: Awaited<ReturnType<typeof requestsOnOneHome>>) {
  return ownerSql()<{ id: string; claim_id: string }[]>`
    insert into app.claim_options (org_id, environment, claim_id, property_id, option_status)
    select ${tenant.orgId}, 'live', c, ${home}, 'approved' from unnest(${claims}::uuid[]) with ordinality as r(c, n) order by n
    returning id, claim_id`;
}

/**
 * Every scan of `table` goes through `index` (directly, or as the bitmap a Bitmap Heap Scan reads:
 * the planner picks either for a few rows, and both read only what the index condition finds), threw
 * no rows away and read at most `most`; the statement touched at most `buffers` buffers.
 */
function expectBounded(plan: ExecutedPlan, table: string, index: string, most: number, buffers: number) {
  const scans = scansOf(plan, table);
  expect(scans.length).toBeGreaterThan(0);
  const bitmaps = plan.nodes.filter((node) => node['Node Type'] === 'Bitmap Index Scan').map((node) => node['Index Name']);
  for (const scan of scans) {
    const through = scan['Node Type'] === 'Bitmap Heap Scan' ? { type: 'Index Scan', index: bitmaps.length === 1 ? bitmaps[0] : bitmaps } : { type: scan['Node Type'], index: scan['Index Name'] };
    expect(through).toEqual({ type: expect.stringMatching(/Index( Only)? Scan/), index });
    expect(scan['Rows Removed by Filter'] ?? 0).toBe(0);
    expect(scan['Actual Rows'] * scan['Actual Loops']).toBeLessThanOrEqual(most);
  }
  expect(plan.buffers).toBeLessThanOrEqual(buffers);
}

describe('GET /events?event=...', () => {
  let tenant: Tenant;
  const names = ['option.saved', 'lease.sent', 'claim.status_changed', 'lease.signed'];
  beforeAll(async () => {
    tenant = { orgId: await createOrg('carrier'), environment: 'live' };
    const sql = ownerSql();
    // 20,000 events of four names, one a minute, and none of payment.refund_failed.
    await sql`
      insert into app.events (org_id, environment, event, payload, created_at)
      select ${tenant.orgId}, 'live', (${names}::text[])[1 + g % 4], '{}', now() - make_interval(mins => g)
        from generate_series(1, 20000) g`;
    await sql`analyze app.events`;
  });

  const eventPlan = async (mode: PlanMode, filter: Partial<EventFilter>) => {
    const [plan] = await executedPlans(tenant, mode, (tx) => listEvents(tx, { names: [], limit: 100, ...filter }));
    return plan;
  };
  const keysetAt = async (depth: number, event: string): Promise<Keyset> => {
    const [row] = await ownerSql()<{ position: string; id: string }[]>`
      select to_json(created_at) #>> '{}' as position, id from app.events
       where org_id = ${tenant.orgId} and environment = 'live' and event = ${event}
       order by created_at desc, id desc offset ${depth} limit 1`;
    return [row.position, row.id];
  };

  for (const mode of modes) {
    describe(`as a ${mode} plan`, () => {
      it('a type the tenant has none of reads nothing of its log', async () => {
        const plan = await eventPlan(mode, { names: ['payment.refund_failed'] });
        expect(plan.plan['Actual Rows']).toBe(0);
        expectBounded(plan, 'events', 'events_by_type', 0, 12);
      });

      it('one type reads its page, first and 3,000 events deep by cursor', async () => {
        for (const after of [undefined, await keysetAt(3000, 'lease.signed')]) {
          const plan = await eventPlan(mode, { names: ['lease.signed'], after });
          expect(plan.plan['Actual Rows']).toBe(101);
          // A page's heap rows lie among other tests' events in a full run: up to ~1 buffer a row, where the name's whole history is 5,000 rows.
          expectBounded(plan, 'events', 'events_by_type', 101, 120);
          if (after) expect(scansOf(plan, 'events')[0]['Index Cond']).toMatch(/ROW\(created_at, id\) </);
        }
      });

      it('two types, one of them absent, read at most a page of each', async () => {
        const plan = await eventPlan(mode, { names: ['lease.sent', 'payment.refund_failed'] });
        expect(plan.plan['Actual Rows']).toBe(101);
        expectBounded(plan, 'events', 'events_by_type', 101, 120);
      });

      it('without a type, a page deep in the log reads its page along events_feed', async () => {
        const plan = await eventPlan(mode, { after: await keysetAt(2000, 'option.saved') });
        expectBounded(plan, 'events', 'events_feed', 101, 60);
      });
    });
  }
});

describe('GET /webhooks/deliveries?endpoint_id=...&status=...', () => {
  let tenant: Tenant;
  let endpoint: string;
  beforeAll(async () => {
    tenant = { orgId: await createOrg('carrier'), environment: 'live' };
    const sql = ownerSql();
    [{ id: endpoint }] = await sql<{ id: string }[]>`
      insert into app.webhook_endpoints (org_id, environment, url, secret)
      values (${tenant.orgId}, 'live', 'https://hooks.customer.example/season', ${`whsec_${'s'.repeat(32)}`}) returning id`;
    // 10,000 delivered (pings: the plan does not care what was sent), 30 abandoned among them, none cancelled.
    await sql`
      insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, status, attempts, completed_at, created_at)
      select ${tenant.orgId}, 'live', ${endpoint}, 'ping', case when g % 333 = 0 then 'abandoned' else 'succeeded' end, 1,
             now() - make_interval(mins => g), now() - make_interval(mins => g)
        from generate_series(1, 10000) g`;
    await sql`analyze app.webhook_deliveries`;
  });

  const deliveryPlan = async (mode: PlanMode, filter: Partial<DeliveryFilter>) => {
    const [plan] = await executedPlans(tenant, mode, (tx) => listDeliveries(tx, { endpointId: endpoint, limit: 25, ...filter }));
    return plan;
  };

  for (const mode of modes) {
    it(`a status the endpoint never had, and a rare one, read only their rows (${mode} plan)`, async () => {
      const none = await deliveryPlan(mode, { status: 'cancelled' });
      expect(none.plan['Actual Rows']).toBe(0);
      expectBounded(none, 'webhook_deliveries', 'webhook_deliveries_endpoint_status', 0, 12);
      const rare = await deliveryPlan(mode, { status: 'abandoned' });
      expect(rare.plan['Actual Rows']).toBe(26);
      expectBounded(rare, 'webhook_deliveries', 'webhook_deliveries_endpoint_status', 26, 50);
    });
  }
});

describe('GET /claims/{reference}/timeline, its money entries', () => {
  let tenant: Tenant;
  let claim: ClaimRow;
  beforeAll(async () => {
    const season = await requestsOnOneHome();
    ({ tenant } = season);
    const { provider, claims, home } = season;
    const sql = ownerSql();
    // Each request with a booking and two payments.
    await sql`
      with b as (
        insert into app.bookings (org_id, environment, property_id, carrier_org_id, claim_id, check_in, check_out)
        select ${provider}, 'live', ${home}, ${tenant.orgId}, c, current_date, current_date + 90 from unnest(${claims}::uuid[]) c
        returning id, claim_id)
      insert into app.payments (org_id, environment, property_id, booking_id, carrier_org_id, claim_id, charge_type, status, payer,
                                rent_cents, paid_at)
      select ${provider}, 'live', ${home}, b.id, ${tenant.orgId}, b.claim_id, 'rent', 'succeeded', 'carrier', 200000, now() - make_interval(days => k)
        from b, generate_series(1, 2) k`;
    await sql`analyze app.claims, app.bookings, app.payments`;
    [claim] = await sql<ClaimRow[]>`select * from app.claims where id = ${claims[1500]}`;
  });

  for (const mode of modes) {
    it(`reads the request's bookings and payments by their request (${mode} plan)`, async () => {
      const plans = await executedPlans(tenant, mode, (tx) => assembleTimeline(tx, claim));
      const money = plans.filter((plan) => /app\.bookings|app\.payments/.test(plan.query));
      expect(money).toHaveLength(1);
      const [plan] = money;
      const reads = plan.nodes.filter((node) => ['bookings', 'payments'].includes(node['Relation Name'] ?? ''));
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) {
        // By the request (bookings_claim, payments_claim) or through its leases (bookings_lease): never the carrier's whole history.
        expect([read['Relation Name'], read['Node Type']]).not.toEqual([read['Relation Name'], 'Seq Scan']);
        expect((read['Rows Removed by Filter'] ?? 0) * read['Actual Loops']).toBeLessThanOrEqual(2);
      }
      expect(reads.some((read) => read['Index Name'] === 'payments_claim' || read['Node Type'] === 'Bitmap Heap Scan')).toBe(true);
      expect(plan.buffers).toBeLessThanOrEqual(80);
    });
  }
});

describe('GET /claims/{reference}/placement, its booking', () => {
  let tenant: Tenant;
  let claimId: string;
  beforeAll(async () => {
    const season = await requestsOnOneHome();
    ({ tenant } = season);
    const { provider, claims, home } = season;
    const sql = ownerSql();
    // Each request approves the home and books it: 3,000 options of the carrier, each with its booking.
    const options = await approvedOptions(season);
    await sql`
      insert into app.bookings (org_id, environment, property_id, carrier_org_id, claim_id, claim_option_id, check_in, check_out)
      select ${provider}, 'live', ${home}, ${tenant.orgId}, o.claim_id, o.id, current_date, current_date + 90
        from unnest(${options.map((o) => o.id)}::uuid[], ${options.map((o) => o.claim_id)}::uuid[]) as o(id, claim_id)`;
    await sql`analyze app.claim_options, app.bookings`;
    claimId = claims[1500];
  });

  for (const mode of modes) {
    it(`reads the home's latest booking by its option, not every booking (${mode} plan)`, async () => {
      const plans = await executedPlans(tenant, mode, (tx) => placementOptions(tx, claimId));
      const reads = plans.filter((plan) => /app\.bookings/.test(plan.query));
      expect(reads).toHaveLength(1);
      // The statement's total includes homes_on_request's first call on a new connection (its catalog, some 280 buffers).
      expectBounded(reads[0], 'bookings', 'bookings_option', 1, 400);
      const [scan] = scansOf(reads[0], 'bookings');
      expect(scan['Shared Hit Blocks'] + scan['Shared Read Blocks']).toBeLessThanOrEqual(5);
    });
  }
});

describe('a lease that moves, the option it is the live version of', () => {
  let tenant: Tenant;
  let leaseIds: string[];
  beforeAll(async () => {
    const season = await requestsOnOneHome();
    ({ tenant } = season);
    const { home } = season;
    const sql = ownerSql();
    // Each request approves the home and has its contract waiting: 3,000 options, each with its live version.
    const options = await approvedOptions(season);
    const leases = await sql<{ id: string }[]>`
      with l as (
        insert into app.lease_agreements (org_id, environment, claim_option_id, claim_id, property_id, version, move_in_date,
                                          move_out_date, issued_by, template)
        select ${tenant.orgId}, 'live', o.id, o.claim_id, ${home}, 1, current_date + 30, current_date + 120, 'dates', 'standard'
          from unnest(${options.map((o) => o.id)}::uuid[], ${options.map((o) => o.claim_id)}::uuid[]) as o(id, claim_id)
        returning id, claim_option_id)
      update app.claim_options h set current_lease_id = l.id from l where h.id = l.claim_option_id
      returning l.id`;
    await sql`analyze app.claim_options, app.lease_agreements`;
    leaseIds = leases.map((lease) => lease.id);
  });

  modes.forEach((mode, i) => {
    it(`copies the lease's status onto its option through the option's index, not every option (${mode} plan)`, async () => {
      const leaseId = leaseIds[1500 + i];
      const plans = await executedPlans(tenant, mode, (tx) => moveLease(tx, leaseId, 'contract_sent', { sent_at: 'now' }), { nested: true });
      // app.lease_status_follow, the trigger behind the move.
      const follows = plans.filter((plan) => /update app\.claim_options h/.test(plan.query));
      expect(follows).toHaveLength(1);
      // The statement's total includes writing the option's new version into its indexes.
      expectBounded(follows[0], 'claim_options', 'claim_options_current_lease', 1, 100);
      const [scan] = scansOf(follows[0], 'claim_options');
      expect(scan['Shared Hit Blocks'] + scan['Shared Read Blocks']).toBeLessThanOrEqual(5);
      const [option] = await ownerSql()<{ lease_status: string }[]>`select lease_status from app.claim_options where current_lease_id = ${leaseId}`;
      expect(option.lease_status).toBe('sent_for_signature');
    });
  });
});

describe("an event for a home's provider, and the home's name, across organisations", () => {
  let tenant: Tenant;
  let provider: string;
  let home: string;
  beforeAll(async () => {
    // Another carrier's season: 3,000 options on one provider's home.
    await approvedOptions(await requestsOnOneHome());
    // The tenant: a carrier with one request, and an option on another provider's home.
    const own = await requestsOnOneHome(1);
    ({ tenant, provider, home } = own);
    await approvedOptions(own);
    await ownerSql()`analyze app.claim_options, app.properties`;
  });

  for (const mode of modes) {
    it(`records the event after finding the caller's option on the provider's home by its index (${mode} plan)`, async () => {
      const plans = await executedPlans(tenant, mode, (tx) => tx`select app.record_event('claim.updated', '{}'::jsonb, ${provider}::uuid)`, { nested: true });
      // app.record_event's check that the caller has an option on one of that organisation's homes.
      const checks = plans.filter((plan) => /from app\.claim_options h join app\.properties p/.test(plan.query));
      expect(checks).toHaveLength(1);
      expectBounded(checks[0], 'claim_options', 'claim_options_by_tenant_home', 1, 20);
    });

    it(`names the home after finding the caller's option on it by its index (${mode} plan)`, async () => {
      const plans = await executedPlans(tenant, mode, (tx) => tx`select * from app.home_label(${home}::uuid)`, { nested: true });
      // app.home_label's check that the caller has an option on the home.
      const labels = plans.filter((plan) => /exists \(select 1 from app\.claim_options h/.test(plan.query));
      expect(labels).toHaveLength(1);
      expectBounded(labels[0], 'claim_options', 'claim_options_by_tenant_home', 1, 20);
    });
  }
});
