-- POST options put a home on a request whatever its calendar: a home whose nights another stay
-- holds was placed without complaint, and the carrier learnt only at POST dates (409
-- dates_unavailable). Putting a home on a request now reads the holds of other requests' stays over
-- the nights the request wants (400 could_not_place with them as conflicts[]).
--
-- - Only the service's holds count (a stay's dates set, signed or booked), not the provider's own
--   blocks: a block may be lifted, and POST dates still judges the whole range against every block.
-- - The holds of the calling request's own stays are left out: placing its own home again is a retry.
-- - A conflict shows what dates_unavailable's does, and nothing of whose stay it is: its reason comes
--   from one definition, app.conflict_reason, which app.range_conflicts now reads too.

create function app.conflict_reason(p_source text) returns text
language sql immutable set search_path = app, pg_temp as $$
  select case when p_source = 'service' then 'held for another placement' else 'blocked by the provider' end
$$;
comment on function app.conflict_reason(text) is
  'What a conflict says of a block: that another placement holds it, or the provider; never the provider''s own reason or whose stay it is.';

create or replace function app.range_conflicts(p_property uuid, p_env text, p_start date, p_end date)
returns table (start_date date, end_date date, reason text)
language sql stable security definer set search_path = app, pg_temp as $$
  select b.start_date, b.end_date, app.conflict_reason(b.source)
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
   order by b.start_date
$$;

create function app.stay_conflicts(p_property uuid, p_env text, p_claim uuid, p_start date, p_end date)
returns table (start_date date, end_date date, reason text)
language sql stable security definer set search_path = app, pg_temp as $$
  select b.start_date, b.end_date, app.conflict_reason(b.source)
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env and b.source = 'service'
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
     and not exists (select 1 from app.lease_agreements l
                      where l.id = b.lease_agreement_id and l.claim_id = p_claim and l.org_id = app.current_org())
   order by b.start_date
$$;
grant execute on function app.stay_conflicts(uuid, text, uuid, date, date) to svc_api;
comment on function app.stay_conflicts(uuid, text, uuid, date, date) is
  'The holds of other requests'' stays on a home that overlap a date range (first and last night) in an environment: the conflicts[] of could_not_place. The calling tenant''s request p_claim''s own holds and the provider''s blocks are left out.';
