// Matching asks whether a provider can take charges by joining its payout account instead of a function
// per row, and works out each distance once with earthdistance's formula written out: the same homes, in
// the same order, at the same distances to the last bit as the rule it replaced (app.can_take_charges
// and earth_distance for every candidate), over 2,400 homes with everything that excludes one. Its
// query runs one generic plan from a connection's first call, so these comparisons check that plan.
// The count sourcing takes, app.count_candidates (the same rule, app.eligible_homes, unranked), is held
// to the number of those rows.
import { describe, expect, it } from 'vitest';
import { createOrg, ownerSql } from '../helpers.ts';
import { carrier, claimBody, provider } from './fixtures.ts';

interface Candidate {
  property_id: string;
  distance_miles: number;
}

const spot = { lat: 37.2, lng: -88.4 };

/** The rule as it was: the same query, with app.can_take_charges asked for every row. */
function before(claimId: string, limit: number): Promise<Candidate[]> {
  return ownerSql().begin(async (tx) => {
    await tx`set local enable_bitmapscan = off`;
    await tx`set local enable_sort = off`;
    await tx`set local search_path = app, extensions, public, pg_temp`;
    return tx<Candidate[]>`
      with c as (select * from app.claims where id = ${claimId}),
           o as (select ll_to_earth(c.origin_lat, c.origin_lng) as origin, c.search_radius_miles * 1609.344 as radius from c)
      select p.id as property_id, earth_distance(p.geo_point, o.origin) / 1609.344 as distance_miles
        from app.properties p, c, o
       where p.verified
         and earth_box(o.origin, o.radius) @> p.geo_point
         and earth_distance(p.geo_point, o.origin) <= o.radius
         and p.status <> 'unavailable'
         and (c.environment = 'sandbox' or p.environment = 'live')
         and p.available_from <= c.target_move_in
         and not exists (
           select 1 from app.availability_blocks b
            where b.property_id = p.id and b.environment = c.environment
              and b.start_date <= c.target_move_in and b.end_date >= c.target_move_in)
         and app.can_take_charges(p.org_id, c.environment)
       order by p.geo_point <-> o.origin
       limit ${limit}`;
  }) as Promise<Candidate[]>;
}

/** The function the API calls, in the request's tenant context. */
function now(claimId: string, orgId: string, environment: string, limit: number): Promise<Candidate[]> {
  return ownerSql().begin(async (tx) => {
    await tx`select set_config('app.org_id', ${orgId}, true), set_config('app.env', ${environment}, true)`;
    return tx<Candidate[]>`select property_id, distance_miles from app.match_candidates(${claimId}, ${limit})`;
  }) as Promise<Candidate[]>;
}

/** The count sourcing and amending take (app.count_candidates: app.eligible_homes unranked), in the request's tenant context. */
function counted(claimId: string, orgId: string, environment: string, limit: number): Promise<number> {
  return ownerSql().begin(async (tx) => {
    await tx`select set_config('app.org_id', ${orgId}, true), set_config('app.env', ${environment}, true)`;
    const [{ n }] = await tx<{ n: number }[]>`select app.count_candidates(${claimId}, ${limit}) as n`;
    return n;
  }) as Promise<number>;
}

describe('matching: the payout check as a lookup gives what the function per row gave', () => {
  it('the same homes, order and distances over 2,400 homes: blocked, unverified, unavailable, and providers that cannot take charges', async () => {
    const sql = ownerSql();
    // Three providers: charges on in both environments; no payout account (live no, sandbox yes);
    // an account with charges off in live and on in sandbox.
    const enabled = await provider();
    const none = await createOrg('provider');
    const off = await createOrg('provider');
    await sql`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      values (${off}, 'live', true, false, false, 'pending'), (${off}, 'sandbox', true, true, true, 'complete')`;
    const moveIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const lngSpread = 0.3 / Math.cos((spot.lat * Math.PI) / 180);
    await sql`
      insert into app.properties (
        org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
        bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
        application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status)
      select (array[${enabled}::uuid, ${none}::uuid, ${off}::uuid])[1 + i % 3], case when i % 7 = 0 then 'sandbox' else 'live' end,
             'Same ' || i, i || ' Same St', 'Paducah', 'KY', '42001', ${spot.lat} + (random() * 2 - 1) * 0.3, ${spot.lng} + (random() * 2 - 1) * ${lngSpread},
             150000, 2, 1, 900, 'furnished', case when i % 11 = 0 then ${moveIn}::date + 10 else current_date end, 100000, 0, 0, 0,
             case when i % 13 = 0 then array[]::text[] else array['https://img.example.com/a.jpg'] end, 'A home.', array['wifi'], 'Pets welcome',
             case when i % 17 = 0 then 'unavailable' else 'available' end
        from generate_series(1, 2400) i`;
    // A tenth of the homes are blocked over the move-in date, in one environment or the other.
    await sql`
      insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source)
      select id, org_id, case when random() < 0.5 then 'live' else 'sandbox' end, ${moveIn}::date - 3, ${moveIn}::date + 3, 'provider'
        from app.properties where org_id in (${enabled}, ${none}, ${off}) and random() < 0.1`;
    const [seeded] = await sql<{ unverified: number; unavailable: number; blocked: number }[]>`
      select count(*) filter (where not verified)::int as unverified, count(*) filter (where status = 'unavailable')::int as unavailable,
             (select count(distinct property_id)::int from app.availability_blocks b where b.org_id in (${enabled}, ${none}, ${off})) as blocked
        from app.properties where org_id in (${enabled}, ${none}, ${off})`;
    expect(seeded.unverified).toBeGreaterThan(50);
    expect(seeded.unavailable).toBeGreaterThan(50);
    expect(seeded.blocked).toBeGreaterThan(100);

    const c = await carrier();
    for (const [api, environment] of [[c.liveApi, 'live'], [c.sandboxApi, 'sandbox']] as const) {
      const created = await api.post('/claims', claimBody({ loss_lat: spot.lat, loss_lng: spot.lng, target_move_in: moveIn, search_radius_miles: 25 }));
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      for (const limit of [200, 5000]) {
        const [was, is, count] = await Promise.all([before(id, limit), now(id, c.orgId, environment, limit), counted(id, c.orgId, environment, limit)]);
        expect(was.length, `${environment}, limit ${limit}`).toBeGreaterThan(limit === 200 ? 199 : 300);
        expect(is, `${environment}, limit ${limit}`).toEqual(was);
        // The count is of the same homes: at the limit, and of every eligible home below it.
        expect(count, `${environment}, limit ${limit}: the count`).toBe(was.length);
      }
      expect(await counted(id, c.orgId, environment, 1), `${environment}, limit 1: the count`).toBe(1);
      // Another tenant's request counts nothing, as it matches nothing.
      expect(await counted(id, c.orgId, environment === 'live' ? 'sandbox' : 'live', 200)).toBe(0);
    }
  }, 60_000);

  it('counts the eligible homes of a request with none, and of a request whose every home is blocked, as none', async () => {
    const sql = ownerSql();
    const owner = await provider();
    const far = { lat: spot.lat + 5, lng: spot.lng + 5 };
    const moveIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const [home] = await sql<{ id: string }[]>`
      insert into app.properties (org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
        bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents, application_fee_cents, pet_fee_cents,
        image_urls, description, amenities, pet_policy, status)
      values (${owner}, 'live', 'Alone', '1 Far St', 'Far', 'KY', '42001', ${far.lat}, ${far.lng}, 150000, 2, 1, 900, 'furnished', current_date,
              100000, 0, 0, 0, array['https://img.example.com/a.jpg'], 'A home.', array['wifi'], 'Pets welcome', 'available')
      returning id`;
    const c = await carrier();
    const created = await c.liveApi.post('/claims', claimBody({ loss_lat: far.lat, loss_lng: far.lng, target_move_in: moveIn, search_radius_miles: 5 }));
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(await counted(id, c.orgId, 'live', 200)).toBe((await now(id, c.orgId, 'live', 200)).length);
    expect(await counted(id, c.orgId, 'live', 200)).toBe(1);
    await sql`
      insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source)
      values (${home.id}, ${owner}, 'live', ${moveIn}::date - 1, ${moveIn}::date + 1, 'provider')`;
    expect(await now(id, c.orgId, 'live', 200)).toEqual([]);
    expect(await counted(id, c.orgId, 'live', 200)).toBe(0);
  });

  it('plans its query once per connection: a generic plan from the first call, not one per call for the first five', async () => {
    // Connections on the Edge Runtime are short-lived: most calls would be among a connection's first five.
    // A later `create or replace` of the function drops the setting unless it names it again.
    for (const fn of ['app.match_candidates(uuid, integer)', 'app.count_candidates(uuid, integer)']) {
      const [{ config }] = await ownerSql()<{ config: string[] }[]>`select proconfig as config from pg_proc where oid = ${fn}::regprocedure`;
      expect(config, fn).toContain('plan_cache_mode=force_generic_plan');
    }
  });

  it('keeps the rule itself to the two functions: the service cannot call app.eligible_homes, nor could it inline it with settings', async () => {
    const c = await carrier();
    const call = ownerSql().begin(async (tx) => {
      await tx`select set_config('role', 'svc_api', true), set_config('app.org_id', ${c.orgId}, true), set_config('app.env', 'live', true)`;
      await tx`select * from app.eligible_homes('live', null, 40000, current_date)`;
    });
    await expect(call).rejects.toMatchObject({ code: '42501', message: 'permission denied for function eligible_homes' });
    // PostgreSQL inlines a SQL function only without its own rights or settings: with either, each
    // caller would run it as a function of its own, planned apart from the caller's ranking and limit.
    const [fn] = await ownerSql()<{ definer: boolean; config: string[] | null; volatility: string }[]>`
      select prosecdef as definer, proconfig as config, provolatile as volatility
        from pg_proc where oid = 'app.eligible_homes(text, extensions.cube, double precision, date)'::regprocedure`;
    expect(fn).toEqual({ definer: false, config: null, volatility: 's' });
  });
});
