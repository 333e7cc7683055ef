-- Matching homes to a housing request by proximity.
--
-- Each home carries its location as a point on the earth (cube from earthdistance), taken from its
-- own coordinates or, without them, its ZIP's centroid; a trigger keeps it current. A GiST index
-- over verified homes answers "within R miles, nearest first" without reading the other homes, so
-- the cost of matching grows with the homes near the request, not with the whole inventory.
--
-- Supabase keeps extensions in the `extensions` schema; locally it is created here. Functions name
-- it in their search_path, so they resolve the same way in both places.

create schema if not exists extensions;
grant usage on schema extensions to svc_api;
create extension if not exists cube with schema extensions;
create extension if not exists earthdistance with schema extensions;
set local search_path = app, extensions, public, pg_temp;

alter table app.properties add column geo_point cube;

-- The home's point: its coordinates when it has both, else its ZIP's centroid, else none
-- (such a home cannot be matched by distance).
create or replace function app.properties_locate() returns trigger
language plpgsql set search_path = app, extensions, public, pg_temp as $$
declare
  v_lat double precision := new.latitude;
  v_lng double precision := new.longitude;
begin
  if v_lat is null or v_lng is null then
    select z.latitude, z.longitude into v_lat, v_lng
      from app.zip_centroids z where z.zip = left(btrim(new.zip_code), 5);
  end if;
  new.geo_point := case when v_lat is not null and v_lng is not null then ll_to_earth(v_lat, v_lng) end;
  return new;
end $$;
create trigger properties_locate before insert or update of latitude, longitude, zip_code on app.properties
  for each row execute function app.properties_locate();
update app.properties set zip_code = zip_code;

create index properties_near on app.properties using gist (geo_point) where verified;

-- The homes a request can be offered, nearest first, at most p_limit of them:
-- verified (so listed) and not marked unavailable; within the request's search radius of its origin;
-- from the request's pool (live requests: real homes only; sandbox requests: real and test homes);
-- available by the target move-in and free that day in the request's environment (the calendar that
-- placing the home checks: availability of one environment never shows in the other); and owned by
-- a provider whose payout account in the request's environment takes charges (a sandbox placement
-- is paid through the provider's sandbox account, even for a real home).
-- Reads other organisations' homes, so it runs as its owner; it answers only for a request of the
-- calling tenant. Needs are read from the request at call time, so a changed need applies at once.
--
-- The plan must be the ordered GiST scan (index condition: the radius's box; order: distance),
-- which stops after p_limit eligible homes. The planner's estimate for cube containment is a fixed
-- guess of a few rows, so left alone it prefers a bitmap scan that reads every home of the area and
-- sorts them: 10x the homes nearby made matching 10x slower. Bitmap scans and sorts are therefore
-- switched off for this function's own queries.
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
           earth_distance(p.geo_point, v_origin) / 1609.344
      from app.properties p
     where p.verified
       and earth_box(v_origin, v_radius_m) @> p.geo_point
       and earth_distance(p.geo_point, v_origin) <= v_radius_m
       and p.status <> 'unavailable'
       and (c.environment = 'sandbox' or p.environment = 'live')
       and p.available_from <= c.target_move_in
       and not exists (
         select 1 from app.availability_blocks b
          where b.property_id = p.id and b.environment = c.environment
            and b.start_date <= c.target_move_in and b.end_date >= c.target_move_in)
       and app.can_take_charges(p.org_id, c.environment)
     order by p.geo_point <-> v_origin
     limit p_limit;
end $$;
grant execute on function app.match_candidates(uuid, integer) to svc_api;

-- Later migrations in the same transaction get the default search_path back.
set local search_path to default;
