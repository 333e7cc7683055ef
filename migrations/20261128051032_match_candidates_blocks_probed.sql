-- After a provider's bulk publish and calendar sync, matching went from about 2x a read of the same
-- request to 7x, until the tables were analyzed again (issue #51). The swing was the check that no
-- block covers the move-in date: written `not exists (...)`, PostgreSQL turns it into an anti join
-- and picks the inner side's shape from the statistics. Planned while `availability_blocks` was
-- empty or small (a fresh database, or a provider's first homes; the function keeps one generic plan
-- a connection, 20261126015156), the inner side was a walk of availability_blocks_calendar on
-- (environment, start_date) alone, with `property_id = p.id` a join filter: every candidate home
-- read every block before the move-in date. Measured on 2,000 homes then 10,000 published beside
-- them and 50 homes given 500 blocks each, before any analyze: 201 candidates read 10,022 blocks
-- they threw away, 41,894 buffers, 235 ms (2.4 ms with fresh statistics, 0.4 ms a probe of 2 buffers).
--
-- The check is now a lateral subquery with a limit: PostgreSQL never flattens a subquery with a
-- LIMIT into a join, so it runs once per candidate with `property_id = p.id` bound. Its environment
-- is compared with `is not distinct from` (both sides are never null: the same test), which no
-- btree index takes as a condition: otherwise the tenant index (org_id, environment) qualifies on its
-- second column, and on a table planned empty it ties with the calendar index and was taken (a full
-- walk of it, every block read for every candidate, measured as 25,000 rows thrown away a probe).
-- The one index left with a condition is availability_blocks_calendar, on property_id and
-- start_date (sequential and bitmap scans are off for the function), so the plan no longer depends
-- on how many blocks the statistics say there are. A home's blocks of the other environment are
-- read and dropped by the probe: a few at most.
-- Same homes, order and distances (tests/claims/matching-equivalence.test.ts); the plan is held by
-- tests/plans/matching-plans.test.ts on tables never analyzed.
create or replace function app.match_candidates(p_claim uuid, p_limit integer)
returns table (
  property_id uuid, name text, city text, state text, zip_code text, currency text,
  monthly_rate_cents bigint, bedrooms integer, bathrooms numeric, sqft integer, furnished_status text,
  amenities text[], pet_policy text, distance_miles double precision
)
language plpgsql stable security definer
set search_path = app, extensions, public, pg_temp
set enable_bitmapscan = off
set enable_sort = off
set enable_seqscan = off
set plan_cache_mode = force_generic_plan
as $$
declare
  c app.claims;
  v_origin cube;
  v_radius_m double precision;
begin
  select * into c from app.claims
   where id = p_claim and org_id = app.current_org() and environment = app.current_env();
  if not found then
    return;
  end if;
  v_origin := ll_to_earth(c.origin_lat, c.origin_lng);
  v_radius_m := c.search_radius_miles * 1609.344;
  return query
    select p.id, p.name, p.city, p.state, p.zip_code, p.currency, p.monthly_rate_cents, p.bedrooms,
           p.bathrooms, p.sqft, p.furnished_status, p.amenities, p.pet_policy,
           g.metres / 1609.344
      from app.properties p
     -- earth_distance(p.geo_point, v_origin), as extensions.sec_to_gc computes it from the chord.
     cross join lateral (select cube_distance(p.geo_point, v_origin) as chord) k
     cross join lateral (
       select case when k.chord < 0 then 0::float8
                   when k.chord / (2 * earth()) > 1 then pi() * earth()
                   else 2 * earth() * asin(k.chord / (2 * earth())) end as metres) g
     -- At most one account a provider and environment (its primary key): the join adds no row.
     left join app.payout_accounts a on a.org_id = p.org_id and a.environment = c.environment
     -- A block covering the move-in date, probed for this home alone: the limit keeps the subquery
     -- from becoming a join whose shape the statistics decide, and the environment is compared where
     -- no index can take it, so that the calendar index, led by property_id, is the one index with a
     -- condition to serve the probe (see above).
     left join lateral (
       select true as blocked from app.availability_blocks b
        where b.property_id = p.id and b.environment is not distinct from c.environment
          and b.start_date <= c.target_move_in and b.end_date >= c.target_move_in
        limit 1) blk on true
     where p.verified
       and earth_box(v_origin, v_radius_m) @> p.geo_point
       and g.metres <= v_radius_m
       and p.status <> 'unavailable'
       and (c.environment = 'sandbox' or p.environment = 'live')
       and p.available_from <= c.target_move_in
       and blk.blocked is null
       and coalesce(a.charges_enabled, c.environment = 'sandbox')
     order by p.geo_point <-> v_origin
     limit p_limit;
end $$;
