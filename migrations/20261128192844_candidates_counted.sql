-- How many homes a request can be offered, counted up to a limit without ranking them: the sourcing
-- round's matches_found (shared/claims/sourcing-repository.ts) and an amended request's "has it a
-- home" were counted with app.match_candidates, which ranks the eligible homes by distance and
-- hands every column of each back through its result set, for a number that depends on neither.
-- Each request opened is counted once, so counting is most of matching's work in a surge (2,000 of
-- 2,500 calls in `npm run surge`).
--
-- app.count_candidates asks the same question of the same rows: the query of app.match_candidates
-- (20261128105316) with its eligibility written out again, word for word, and only the ranking
-- (order by distance), the columns and the result set left out. The limit still ends the walk at
-- `p_limit` eligible homes, so the count is min(eligible, p_limit), as before. On 4,000 homes
-- around the loss (the surge's metro area), one call at a time with its transaction: 1,000 µs of
-- the database's CPU a call before, 675 after.
--
-- Two texts of one rule: app.match_candidates and app.count_candidates must change together.
-- tests/claims/matching-equivalence.test.ts holds the count equal to match_candidates' rows, for
-- every case that excludes a home, in both environments and at several limits.
create function app.count_candidates(p_claim uuid, p_limit integer)
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
  v_origin := ll_to_earth(c.origin_lat, c.origin_lng);
  v_radius_m := c.search_radius_miles * 1609.344;
  -- The eligibility of app.match_candidates, word for word (see above).
  return (
    select count(*)::integer from (
      select 1
        from app.properties p
       cross join lateral (select cube_distance(p.geo_point, v_origin) as chord) k
       cross join lateral (
         select case when k.chord < 0 then 0::float8
                     when k.chord / (2 * earth()) > 1 then pi() * earth()
                     else 2 * earth() * asin(k.chord / (2 * earth())) end as metres) g
       left join app.payout_accounts a on a.org_id = p.org_id and a.environment = c.environment
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
       limit p_limit) eligible);
end $$;
comment on function app.count_candidates(uuid, integer) is 'How many homes a request of the calling tenant can be offered, up to p_limit: the rows app.match_candidates would return, counted without ranking them.';
grant execute on function app.count_candidates(uuid, integer) to svc_api;
comment on function app.match_candidates(uuid, integer) is 'The homes a request of the calling tenant can be offered, nearest first: verified, available, within the radius, from a provider that takes charges. app.count_candidates counts the same homes with this rule written out again: change both together.';
