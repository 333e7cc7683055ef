-- Matching's probe for a block over the move-in date reads the home's index entries from its move-in
-- on, not its whole calendar before it.
--
-- The probe went through availability_blocks_calendar, (property_id, environment, start_date). With
-- the environment left out of the index condition on purpose (20261128051032), `start_date <=
-- move-in` bounds nothing: every block of the home that starts before the move-in is an index entry
-- read and a row fetched from the table to check its end date. A home whose channel synced its
-- history has hundreds of those. Measured on 20,000 homes, a quarter with 20 past blocks each: the
-- 200 candidates' probes read 1,560 buffers, 7.8 a candidate, of a call's 2,169.
--
-- availability_blocks_ending, (property_id, end_date, start_date), bounds the probe by the end date:
-- it walks only the home's blocks that end on the move-in or later (the future of its calendar, a
-- few), checks their start date in the index entry, and fetches a row only for a block that covers
-- the move-in, where the probe stops. Same 20,000 homes: 600 buffers, 3 a candidate (the index's
-- depth), and 1,209 for the call. Same homes, order and distances
-- (tests/claims/matching-equivalence.test.ts); the plan is held by tests/plans/bulk-plans.test.ts.
-- Writing a block now maintains one index more. Building it holds writes to availability_blocks for
-- its duration: seconds at a season's two million blocks.
create index availability_blocks_ending on app.availability_blocks (property_id, end_date, start_date);

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
     -- no index can take it, so that an index led by property_id serves the probe: availability_blocks_ending,
     -- bounded by the end date, with the start date checked in the index (see above).
     left join lateral (
       select true as blocked from app.availability_blocks b
        where b.property_id = p.id and b.environment is not distinct from c.environment
          and b.end_date >= c.target_move_in and b.start_date <= c.target_move_in
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
