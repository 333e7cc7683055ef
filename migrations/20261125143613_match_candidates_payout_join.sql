-- Whether a home's provider can take charges was a subquery run for every candidate row. As a left
-- join on the payout account's primary key the planner joins the accounts instead (over 100,000
-- homes of one provider it reads the account once): about an eighth of the function's time. The
-- same rule (the account in the request's environment decides; without one, sandbox takes charges
-- and live does not), the same homes, order and distances (tests/claims/matching-equivalence.test.ts).
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
     where p.verified
       and earth_box(v_origin, v_radius_m) @> p.geo_point
       and g.metres <= v_radius_m
       and p.status <> 'unavailable'
       and (c.environment = 'sandbox' or p.environment = 'live')
       and p.available_from <= c.target_move_in
       and not exists (
         select 1 from app.availability_blocks b
          where b.property_id = p.id and b.environment = c.environment
            and b.start_date <= c.target_move_in and b.end_date >= c.target_move_in)
       and coalesce(a.charges_enabled, c.environment = 'sandbox')
     order by p.geo_point <-> v_origin
     limit p_limit;
end $$;
