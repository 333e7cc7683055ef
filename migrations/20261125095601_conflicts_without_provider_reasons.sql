-- dates_unavailable's conflicts[] showed a provider's own reason for its block ("Owner's family
-- visiting") to whichever carrier asked for the dates: another organisation's words. A conflict now
-- says only what holds the range: another placement, or the provider.
create or replace function app.range_conflicts(p_property uuid, p_env text, p_start date, p_end date)
returns table (start_date date, end_date date, reason text)
language sql stable security definer set search_path = app, pg_temp as $$
  select b.start_date, b.end_date,
         case when b.source = 'service' then 'held for another placement' else 'blocked by the provider' end
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
   order by b.start_date
$$;
comment on function app.range_conflicts(uuid, text, date, date) is
  'The blocks of a home that overlap a date range in an environment: the conflicts[] of dates_unavailable, without the provider''s own reasons.';
