-- The rule of which homes a request can be offered, written once. app.match_candidates (ranked) and
-- app.count_candidates (counted, 20261128192844) each held the whole eligibility, word for word, so
-- a change to the rule had to be made twice. app.eligible_homes now holds it, and both select from
-- it: the one nearest first with its columns, the other a count.
--
-- app.eligible_homes is a plain SQL function (stable, not security definer, no settings of its own),
-- which PostgreSQL inlines into each caller's query: each plan is the one each function had, planned
-- under the caller's rights and settings (one generic plan, no bitmap scans, sorts or sequential
-- scans), and the ranking's nearest-first walk of properties_near still ends at the limit. Its
-- names are schema-qualified since, inlined, it runs under the caller's search path. Only the two
-- functions call it: execute is the owner's alone.
create function app.eligible_homes(p_env text, p_origin extensions.cube, p_radius_m double precision, p_move_in date)
returns table (
  property_id uuid, name text, city text, state text, zip_code text, currency text,
  monthly_rate_cents bigint, bedrooms integer, bathrooms numeric, sqft integer, furnished_status text,
  amenities text[], pet_policy text, geo_point extensions.cube, metres double precision
)
language sql stable
as $$
  select p.id, p.name, p.city, p.state, p.zip_code, p.currency, p.monthly_rate_cents, p.bedrooms,
         p.bathrooms, p.sqft, p.furnished_status, p.amenities, p.pet_policy, p.geo_point, g.metres
    from app.properties p
   -- earth_distance(p.geo_point, p_origin), as extensions.sec_to_gc computes it from the chord.
   cross join lateral (select extensions.cube_distance(p.geo_point, p_origin) as chord) k
   cross join lateral (
     select case when k.chord < 0 then 0::float8
                 when k.chord / (2 * extensions.earth()) > 1 then pi() * extensions.earth()
                 else 2 * extensions.earth() * asin(k.chord / (2 * extensions.earth())) end as metres) g
   -- At most one account a provider and environment (its primary key): the join adds no row.
   left join app.payout_accounts a on a.org_id = p.org_id and a.environment = p_env
   -- A block covering the move-in date, probed for this home alone: the limit keeps the subquery
   -- from becoming a join whose shape the statistics decide, and the environment is compared where
   -- no index can take it, so that an index led by property_id serves the probe: availability_blocks_ending,
   -- bounded by the end date, with the start date checked in the index (20261128105316).
   left join lateral (
     select true as blocked from app.availability_blocks b
      where b.property_id = p.id and b.environment is not distinct from p_env
        and b.end_date >= p_move_in and b.start_date <= p_move_in
      limit 1) blk on true
   where p.verified
     and extensions.earth_box(p_origin, p_radius_m) operator(extensions.@>) p.geo_point
     and g.metres <= p_radius_m
     and p.status <> 'unavailable'
     and (p_env = 'sandbox' or p.environment = 'live')
     and p.available_from <= p_move_in
     and blk.blocked is null
     and coalesce(a.charges_enabled, p_env = 'sandbox')
$$;
comment on function app.eligible_homes(text, extensions.cube, double precision, date) is 'The homes a request in p_env, from p_origin within p_radius_m metres, moving in on p_move_in, can be offered: verified, available, not blocked, from a provider that takes charges; with each one''s distance in metres. Inlined into app.match_candidates and app.count_candidates, its only callers.';
revoke execute on function app.eligible_homes(text, extensions.cube, double precision, date) from public;

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
    select e.property_id, e.name, e.city, e.state, e.zip_code, e.currency, e.monthly_rate_cents, e.bedrooms,
           e.bathrooms, e.sqft, e.furnished_status, e.amenities, e.pet_policy, e.metres / 1609.344
      from app.eligible_homes(c.environment, v_origin, v_radius_m, c.target_move_in) e
     order by e.geo_point <-> v_origin
     limit p_limit;
end $$;
comment on function app.match_candidates(uuid, integer) is 'The homes a request of the calling tenant can be offered (app.eligible_homes), nearest first.';

create or replace function app.count_candidates(p_claim uuid, p_limit integer)
returns integer
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
    return 0;
  end if;
  -- Computed once here: an expression passed in would be inlined, and computed again for each home.
  v_origin := ll_to_earth(c.origin_lat, c.origin_lng);
  v_radius_m := c.search_radius_miles * 1609.344;
  return (
    select count(*)::integer from (
      select 1 from app.eligible_homes(c.environment, v_origin, v_radius_m, c.target_move_in) e limit p_limit) eligible);
end $$;
comment on function app.count_candidates(uuid, integer) is 'How many homes a request of the calling tenant can be offered (app.eligible_homes), up to p_limit: the rows app.match_candidates would return, counted without ranking them.';
