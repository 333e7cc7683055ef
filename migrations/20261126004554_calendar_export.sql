-- A home's calendar as an iCalendar feed for the other channels it is listed on (Airbnb, Vrbo, channel
-- managers). The channels poll the feed's address without headers, so the address itself is the
-- credential: a random token in the path, of which only the SHA-256 hash is kept, looked up as API
-- keys are. One feed per home and environment; issuing a new address replaces the old one (rotation),
-- deleting the row revokes it.
create table app.calendar_exports (
  property_id uuid not null,
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  token_hash text not null unique,
  created_at timestamptz not null default clock_timestamp(),
  changed_at timestamptz not null default clock_timestamp(),
  primary key (property_id, environment),
  foreign key (property_id, org_id) references app.properties (id, org_id) on delete cascade
);
comment on table app.calendar_exports is 'The iCalendar export address of a home in an environment (one at most): what the other channels poll to learn the nights it is taken.';
comment on column app.calendar_exports.token_hash is 'SHA-256 (hex) of the token in the feed''s address; the token itself is shown once, when issued.';
comment on column app.calendar_exports.changed_at is 'When the home''s calendar in this environment last changed (a block added, moved or removed): the feed''s Last-Modified.';
select app.enable_tenant_isolation('app.calendar_exports');
grant select, insert, update, delete on app.calendar_exports to svc_api;

-- Any change to a home's blocks moves its feed's Last-Modified, whoever made it (the provider, a
-- placement's hold, a shortening): pollers then fetch the new calendar instead of a 304. Security
-- definer: a carrier's placement moves the holds on a provider's home.
create or replace function app.calendar_export_touch() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  update app.calendar_exports e set changed_at = clock_timestamp()
   where (e.property_id, e.environment) in (select property_id, environment from changed_blocks);
  return null;
end $$;
comment on function app.calendar_export_touch() is 'Moves the Last-Modified of the feeds of the homes whose blocks a statement changed.';
create trigger availability_blocks_calendar_export_ins after insert on app.availability_blocks
  referencing new table as changed_blocks for each statement execute function app.calendar_export_touch();
create trigger availability_blocks_calendar_export_upd after update on app.availability_blocks
  referencing new table as changed_blocks for each statement execute function app.calendar_export_touch();
create trigger availability_blocks_calendar_export_del after delete on app.availability_blocks
  referencing old table as changed_blocks for each statement execute function app.calendar_export_touch();

-- The feed behind a token: null for an unknown or revoked one; else its Last-Modified and its
-- events, one per night range the home is not free in the feed's environment: a stay's holds (its
-- lease, its dates changes and its extensions) as one event named by the stay (its placement of the
-- home), so that a channel moves the event as the stay is shortened or extended; and each provider
-- block. Nothing about the household or the request leaves here. Security definer: the caller has
-- only the token.
create or replace function app.calendar_export_feed(p_token_hash text) returns jsonb
language sql stable security definer set search_path = app, pg_temp as $$
  select jsonb_build_object(
    'changed_at', e.changed_at,
    'events', coalesce((
      select jsonb_agg(jsonb_build_object('uid', f.uid, 'kind', f.kind, 'start_date', f.start_date, 'end_date', f.end_date)
                       order by f.start_date, f.uid)
        from (
          select 'stay-' || l.claim_home_id as uid,
                 case when bool_or(b.held_for in ('booking', 'completed')) then 'booked' else 'held' end as kind,
                 min(b.start_date) as start_date, max(b.end_date) as end_date
            from app.availability_blocks b
            join app.lease_agreements l on l.id = b.lease_agreement_id
           where b.property_id = e.property_id and b.environment = e.environment and b.source = 'service'
           group by l.claim_home_id
          union all
          select 'block-' || b.id, 'blocked', b.start_date, b.end_date
            from app.availability_blocks b
           where b.property_id = e.property_id and b.environment = e.environment and b.source = 'provider'
        ) f), '[]'::jsonb))
    from app.calendar_exports e
   where e.token_hash = p_token_hash
$$;
comment on function app.calendar_export_feed(text) is 'The iCalendar feed behind a token hash: its Last-Modified and its events (stays and provider blocks), or null.';
revoke all on function app.calendar_export_feed(text) from public;
grant execute on function app.calendar_export_feed(text) to svc_api;
