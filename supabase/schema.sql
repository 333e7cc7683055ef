-- The current schema, generated from a freshly migrated database by `npm run schema:dump`.
-- Do not edit: change the schema with a new file in migrations/, then regenerate this one.
-- A reading copy grouped by object; a database is built by applying migrations/ in order.

-- ==============================================================================================
-- Extensions
-- ==============================================================================================

create extension if not exists btree_gist with schema public;
create extension if not exists cube with schema extensions;
create extension if not exists earthdistance with schema extensions;
create extension if not exists pgcrypto with schema public;

-- ==============================================================================================
-- Roles (global to the server; the migrations create them when missing)
-- ==============================================================================================

-- role service_role: nosuperuser nologin nobypassrls inherit
-- role supabase_admin: nosuperuser nologin nobypassrls inherit
-- role svc_api: nosuperuser nologin nobypassrls inherit

-- ==============================================================================================
-- Schemas
-- ==============================================================================================

create schema app;
comment on schema app is 'The service''s private schema: not exposed by the REST API, no grants to anon/authenticated. The API runs as svc_api under row-level security (one organisation and environment per transaction); Studio reads it as the owner and sees every tenant. Every tenant row carries org_id and environment (live or sandbox).';
grant usage on schema app to svc_api;
create schema extensions;
grant usage on schema extensions to svc_api;
create schema staff;
comment on schema staff is 'Read-only views for the service''s staff (Supabase Studio): open requests, placements in flight, failing webhook deliveries, homes not listed. Every tenant, both environments. Not readable by the API (svc_api) or anon/authenticated.';
grant usage on schema staff to service_role;
grant usage on schema staff to supabase_admin;

alter default privileges for role postgres in schema staff grant select on tables to postgres;
alter default privileges for role postgres in schema staff grant select on tables to service_role;
alter default privileges for role postgres in schema staff grant select on tables to supabase_admin;

-- ==============================================================================================
-- Functions
-- ==============================================================================================

CREATE OR REPLACE FUNCTION app.add_usage(p_counts jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  perform set_config('synchronous_commit', 'off', true);
  insert into app.usage_daily as u (org_id, environment, key_id, day, status_class, count)
  select c.org_id, c.environment, c.key_id, c.day, c.status_class, c.count
    from jsonb_to_recordset(p_counts)
           as c (org_id uuid, environment text, key_id uuid, day date, status_class text, count integer)
   order by c.key_id, c.day, c.status_class
  on conflict (key_id, day, status_class) do update set count = u.count + excluded.count;
end $function$;
comment on function app.add_usage(jsonb) is 'Adds a batch of request counts ([{org_id, environment, key_id, day, status_class, count}]) to usage_daily, committed asynchronously: a crash can lose the last fraction of a second of counts, never other data.';

CREATE OR REPLACE FUNCTION app.advance_clock(p_time timestamp with time zone)
 RETURNS uuid[]
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare v_due uuid[];
begin
  update app.sandbox_clocks set frozen_time = p_time, advanced_at = clock_timestamp()
   where org_id = app.current_org() and environment = 'sandbox' and app.current_env() = 'sandbox' and frozen_time <= p_time;
  if not found then return null; end if;
  with due as (
    update app.jobs set run_at = now(), clock_run_at = null
     where org_id = app.current_org() and environment = 'sandbox' and status = 'pending' and clock_run_at <= p_time
    returning id)
  select coalesce(array_agg(id), '{}') into v_due from due;
  return v_due;
end $function$;
comment on function app.advance_clock(timestamp with time zone) is 'Moves the calling sandbox organisation''s clock forward and makes due the jobs that waited for it.';
grant execute on function app.advance_clock(timestamp with time zone) to svc_api;

CREATE OR REPLACE FUNCTION app.analyze_grown(p_tables text[], p_min_pages integer DEFAULT 8)
 RETURNS text[]
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_table text;
  v_analyzed text[] := '{}';
begin
  for v_table in
    select c.relname
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'app' and c.relkind = 'r' and c.relname = any (p_tables)
       -- relpages is the size at the last analyze or vacuum (0 when never analyzed).
       and pg_relation_size(c.oid) / current_setting('block_size')::integer >= greatest(p_min_pages, 2 * c.relpages)
     order by c.relname
  loop
    if pg_try_advisory_xact_lock(hashtext('app.analyze_grown'), hashtext(v_table)) then
      execute format('analyze app.%I', v_table);
      v_analyzed := v_analyzed || v_table;
    end if;
  end loop;
  return v_analyzed;
end $function$;
comment on function app.analyze_grown(text[],integer) is 'Analyzes those of the named tables of app whose size on disk has doubled since their last analyze or vacuum (or that were never analyzed), from p_min_pages pages; returns the tables analyzed. Called by the bulk paths after their commit, so that plans kept by connections are made again on the tables they loaded.';
revoke execute on function app.analyze_grown(text[],integer) from public;

CREATE OR REPLACE FUNCTION app.authenticate(p_key_hash text, p_address text)
 RETURNS TABLE(key_id uuid, org_id uuid, side text, environment text, scopes text[], rate_limit integer, rate_count integer, rate_reset timestamp with time zone, limiter_ok boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
 SET lock_timeout TO '250ms'
 SET enable_seqscan TO 'off'
AS $function$
declare
  k record;
  v_bucket text;
  v_window timestamptz := date_trunc('minute', now());
  v_counted_in timestamptz;
begin
  -- Local to the transaction of the calling statement, which is this call alone.
  perform set_config('synchronous_commit', 'off', true);

  select a.id, a.org_id, o.side, a.environment, a.scopes,
         coalesce(a.rate_limit_per_minute, app.default_rate_limit(a.environment)) as lim
    into k
    from app.api_keys a join app.organisations o on o.id = a.org_id
   where a.key_hash = p_key_hash and a.revoked_at is null and a.user_email is null;

  if found then
    key_id := k.id; org_id := k.org_id; side := k.side; environment := k.environment;
    scopes := k.scopes; rate_limit := k.lim; v_bucket := 'key:' || k.id;
    -- last_used_at is kept to the minute so that busy keys do not rewrite their row on every call.
    update app.api_keys a set last_used_at = now()
     where a.id = k.id and (a.last_used_at is null or a.last_used_at < now() - interval '1 minute');
  else
    rate_limit := 60; v_bucket := 'addr:' || coalesce(p_address, 'unknown');
  end if;

  -- A request whose statement began in a minute the window has already left (it reached the row
  -- after the next minute's first request) counts in the window as it is, never moves it back.
  insert into app.rate_windows as w (bucket, window_start, count)
  values (v_bucket, v_window, 1)
  on conflict (bucket) do update
    set count = case when w.window_start >= excluded.window_start then w.count + 1 else 1 end,
        window_start = greatest(w.window_start, excluded.window_start)
  returning w.count, w.window_start into rate_count, v_counted_in;
  rate_reset := v_counted_in + interval '1 minute';
  limiter_ok := true;
  return next;
end $function$;
comment on function app.authenticate(text,text) is 'Per request, in one statement: finds the live organisation key by hash and counts the request in its rate-limit window (or the address''s window when the key is unknown); a window never moves back to an earlier minute. Commits asynchronously, into an unlogged table: a crash restarts every current window from zero. Fails after 250 ms waiting for a lock; the caller then uses app.authenticate_uncounted.';

CREATE OR REPLACE FUNCTION app.authenticate_uncounted(p_key_hash text)
 RETURNS TABLE(key_id uuid, org_id uuid, side text, environment text, scopes text[], rate_limit integer, rate_count integer, rate_reset timestamp with time zone, limiter_ok boolean)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select k.id, k.org_id, o.side, k.environment, k.scopes,
         coalesce(k.lim, 60), 0, date_trunc('minute', now()) + interval '1 minute', false
    from (select 1) one
    left join lateral (
      select a.id, a.org_id, a.environment, a.scopes,
             coalesce(a.rate_limit_per_minute, app.default_rate_limit(a.environment)) as lim
        from app.api_keys a
       where a.key_hash = p_key_hash and a.revoked_at is null and a.user_email is null
    ) k on true
    left join app.organisations o on o.id = k.org_id
$function$;
comment on function app.authenticate_uncounted(text) is 'The rate limiter''s fault path: app.authenticate''s answer for a key (or none) without counting the request (limiter_ok false), used when app.authenticate fails so that a limiter fault lets the request pass.';

CREATE OR REPLACE FUNCTION app.availability_via(p app.properties)
 RETURNS text[]
 LANGUAGE sql
 STABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select array_remove(array[
    case when p.listed then 'complete_profile' end,
    case when p.calendar_synced_at is not null then 'calendar_synced' end,
    case when exists (select 1 from app.availability_blocks b
                       where b.property_id = p.id and b.environment = p.environment and b.source = 'provider')
         then 'manual_blocks' end,
    case when p.available_from is not null then 'available_dates' end
  ], null)
$function$;
comment on function app.availability_via(app.properties) is 'How a home''s availability is read: complete_profile, calendar_synced, manual_blocks, available_dates.';
grant execute on function app.availability_via(app.properties) to svc_api;

CREATE OR REPLACE FUNCTION app.book_holds(p_lease_agreement uuid, p_env text)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  with booked as (
    update app.availability_blocks set held_for = 'booking'
     where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service'
    returning 1)
  select count(*)::integer from booked
$function$;
comment on function app.book_holds(uuid,text) is 'Turns the lease holds of a contract into booking holds when the payment clears.';
grant execute on function app.book_holds(uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.calendar_export_feed(p_token_hash text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select jsonb_build_object(
    'changed_at', e.changed_at,
    'events', coalesce((
      select jsonb_agg(jsonb_build_object('uid', f.uid, 'kind', f.kind, 'start_date', f.start_date, 'end_date', f.end_date)
                       order by f.start_date, f.uid)
        from (
          select 'stay-' || l.claim_option_id as uid,
                 case when bool_or(b.held_for in ('booking', 'completed')) then 'booked' else 'held' end as kind,
                 min(b.start_date) as start_date, max(b.end_date) as end_date
            from app.availability_blocks b
            join app.lease_agreements l on l.id = b.lease_agreement_id
           where b.property_id = e.property_id and b.environment = e.environment and b.source = 'service'
           group by l.claim_option_id
          union all
          select 'block-' || b.id, 'blocked', b.start_date, b.end_date
            from app.availability_blocks b
           where b.property_id = e.property_id and b.environment = e.environment and b.source = 'provider'
        ) f), '[]'::jsonb))
    from app.calendar_exports e
   where e.token_hash = p_token_hash
$function$;
comment on function app.calendar_export_feed(text) is 'The iCalendar feed behind a token hash: its Last-Modified and its events (stays and provider blocks), or null.';
revoke execute on function app.calendar_export_feed(text) from public;
grant execute on function app.calendar_export_feed(text) to svc_api;

CREATE OR REPLACE FUNCTION app.calendar_export_touch()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  update app.calendar_exports e set changed_at = clock_timestamp()
   where (e.property_id, e.environment) in (select property_id, environment from changed_blocks);
  return null;
end $function$;
comment on function app.calendar_export_touch() is 'Moves the Last-Modified of the feeds of the homes whose blocks a statement changed.';

CREATE OR REPLACE FUNCTION app.calendar_own_event_uids(p_property_id uuid, p_uids text[])
 RETURNS SETOF text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select u.uid
    from unnest(p_uids) as u (uid)
   where exists (select 1 from app.properties p
                  where p.id = p_property_id and p.org_id = app.current_org() and p.environment = app.current_env())
     and ((u.uid ~* '^stay-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@'
           and exists (select 1 from app.claim_options h
                        where h.id = substring(u.uid from 6 for 36)::uuid and h.property_id = p_property_id))
       or (u.uid ~* '^block-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@'
           and exists (select 1 from app.availability_blocks b
                        where b.id = substring(u.uid from 7 for 36)::uuid and b.property_id = p_property_id and b.source = 'provider')))
$function$;
comment on function app.calendar_own_event_uids(uuid,text[]) is 'Which of the UIDs read from an imported calendar are this service''s own events of that home (its stays, its provider blocks): an import leaves them out. Answers only for a home of the calling tenant.';
revoke execute on function app.calendar_own_event_uids(uuid,text[]) from public;
grant execute on function app.calendar_own_event_uids(uuid,text[]) to svc_api;

CREATE OR REPLACE FUNCTION app.call_dispatcher()
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_missing text := app.dispatcher_vault_gap();
  v_url text;
  v_secret text;
begin
  if v_missing is not null then
    raise exception 'webhook dispatch not called: %; store them in Vault (see docs/webhooks.md)', v_missing
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  execute 'select decrypted_secret from vault.decrypted_secrets where name = $1' into v_url using 'webhook_dispatcher_url';
  execute 'select decrypted_secret from vault.decrypted_secrets where name = $1' into v_secret using 'webhook_dispatcher_secret';
  return net.http_post(url := v_url, body := '{}'::jsonb, timeout_milliseconds := 30000,
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret));
end $function$;
comment on function app.call_dispatcher() is 'Calls the dispatcher function through pg_net when webhook deliveries or durable jobs are due (pg_cron on Supabase).';
revoke execute on function app.call_dispatcher() from public;

CREATE OR REPLACE FUNCTION app.can_take_charges(p_org uuid, p_env text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  return (app.payout_status(p_org, p_env)).charges_enabled;
end $function$;
comment on function app.can_take_charges(uuid,text) is 'Whether a provider''s payout account takes charges in an environment (needed to place a family in its homes).';
grant execute on function app.can_take_charges(uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.cancel_waiting_deliveries()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  update app.webhook_deliveries
     set status = 'cancelled', next_attempt_at = null, signing_secret = null, completed_at = now()
   where endpoint_id = new.id and status = 'pending';
  return null;
end $function$;
comment on function app.cancel_waiting_deliveries() is 'Trigger: cancels the waiting deliveries of an endpoint that is deactivated.';
revoke execute on function app.cancel_waiting_deliveries() from public;

CREATE OR REPLACE FUNCTION app.claim_processor_event(p_event text, p_type text, p_account text, p_outcome text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare v_claimed integer;
begin
  insert into app.processor_events (event_id, type, connected_account, environment, outcome)
  values (p_event, p_type, p_account, app.current_env(), p_outcome)
  on conflict (event_id) do nothing;
  get diagnostics v_claimed = row_count;
  return v_claimed > 0;
end $function$;
comment on function app.claim_processor_event(text,text,text,text) is 'Records a payment processor notification by its event id once; false when it was already processed.';
grant execute on function app.claim_processor_event(text,text,text,text) to svc_api;

CREATE OR REPLACE FUNCTION app.claims_touch()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  new.updated_at := clock_timestamp();
  return new;
end $function$;
comment on function app.claims_touch() is 'Trigger: sets a request''s updated_at on every change.';

CREATE OR REPLACE FUNCTION app.clock_now()
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  return coalesce((select frozen_time from app.sandbox_clocks where org_id = app.current_org() and environment = app.current_env()), now());
end $function$;
comment on function app.clock_now() is 'Now for the calling tenant: its sandbox clock''s frozen time, else the wall clock.';
grant execute on function app.clock_now() to svc_api;

CREATE OR REPLACE FUNCTION app.complete_holds(p_lease_agreement uuid, p_env text)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  with done as (
    update app.availability_blocks set held_for = 'completed'
     where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service'
    returning 1)
  select count(*)::integer from done
$function$;
comment on function app.complete_holds(uuid,text) is 'Marks a closed-out stay''s holds completed (the home''s past calendar).';
grant execute on function app.complete_holds(uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.conflict_reason(p_source text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select case when p_source = 'service' then 'held for another placement' else 'blocked by the provider' end
$function$;
comment on function app.conflict_reason(text) is 'What a conflict says of a block: that another placement holds it, or the provider; never the provider''s own reason or whose stay it is.';

CREATE OR REPLACE FUNCTION app.coordinator_of(p app.claims)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  if p.environment = 'sandbox' then
    return 'sandbox-coordinator@sandbox.invalid';
  end if;
  return coalesce(p.coordinator_email, (select o.email from app.org_coordinators o where o.org_id = p.org_id));
end $function$;
comment on function app.coordinator_of(app.claims) is 'Who sources a request: its own coordinator, else the organisation''s; sandbox requests have the sandbox coordinator.';
grant execute on function app.coordinator_of(app.claims) to svc_api;

CREATE OR REPLACE FUNCTION app.count_candidates(p_claim uuid, p_limit integer)
 RETURNS integer
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'extensions', 'public', 'pg_temp'
 SET enable_bitmapscan TO 'off'
 SET enable_sort TO 'off'
 SET enable_seqscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
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
end $function$;
comment on function app.count_candidates(uuid,integer) is 'How many homes a request of the calling tenant can be offered (app.eligible_homes), up to p_limit: the rows app.match_candidates would return, counted without ranking them.';
grant execute on function app.count_candidates(uuid,integer) to svc_api;

CREATE OR REPLACE FUNCTION app.current_env()
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$ select nullif(current_setting('app.env', true), '') $function$;
comment on function app.current_env() is 'The environment of the current transaction (setting app.env): live or sandbox.';
grant execute on function app.current_env() to svc_api;

CREATE OR REPLACE FUNCTION app.current_org()
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$ select nullif(current_setting('app.org_id', true), '')::uuid $function$;
comment on function app.current_org() is 'The organisation of the current transaction (setting app.org_id); null: sees nothing.';
grant execute on function app.current_org() to svc_api;

CREATE OR REPLACE FUNCTION app.default_rate_limit(p_environment text)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$ select case p_environment when 'live' then 600 else 120 end $function$;
comment on function app.default_rate_limit(text) is 'Default per-minute rate limit of a key in an environment (600 live, 120 sandbox); a key''s rate_limit_per_minute overrides it.';

CREATE OR REPLACE FUNCTION app.dispatcher_vault_gap()
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_missing text;
begin
  if to_regclass('vault.decrypted_secrets') is null then
    return 'Supabase Vault is not enabled (it holds webhook_dispatcher_url and webhook_dispatcher_secret)';
  end if;
  execute $q$
    select string_agg(wanted, ' and ' order by wanted) from unnest(array['webhook_dispatcher_secret', 'webhook_dispatcher_url']) wanted
    where not exists (select 1 from vault.decrypted_secrets s where s.name = wanted and coalesce(s.decrypted_secret, '') <> '')
  $q$ into v_missing;
  return case when v_missing is not null then format('Vault lacks %s', v_missing) end;
end $function$;
comment on function app.dispatcher_vault_gap() is 'What Vault lacks for pg_cron''s call of the webhook-dispatcher function (Vault itself, webhook_dispatcher_url, webhook_dispatcher_secret); null when nothing.';
revoke execute on function app.dispatcher_vault_gap() from public;

CREATE OR REPLACE FUNCTION app.eligible_homes(p_env text, p_origin extensions.cube, p_radius_m double precision, p_move_in date)
 RETURNS TABLE(property_id uuid, name text, city text, state text, zip_code text, currency text, monthly_rate_cents bigint, bedrooms integer, bathrooms numeric, sqft integer, furnished_status text, amenities text[], pet_policy text, geo_point extensions.cube, metres double precision)
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
comment on function app.eligible_homes(text,extensions.cube,double precision,date) is 'The homes a request in p_env, from p_origin within p_radius_m metres, moving in on p_move_in, can be offered: verified, available, not blocked, from a provider that takes charges; with each one''s distance in metres. Inlined into app.match_candidates and app.count_candidates, its only callers.';
revoke execute on function app.eligible_homes(text,extensions.cube,double precision,date) from public;

CREATE OR REPLACE FUNCTION app.enable_tenant_isolation(p_table regclass)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  execute format('alter table %s enable row level security', p_table);
  execute format($p$create policy tenant_isolation on %s to svc_api
    using (org_id = app.current_org() and environment = app.current_env())
    with check (org_id = app.current_org() and environment = app.current_env())$p$, p_table);
end $function$;
comment on function app.enable_tenant_isolation(regclass) is 'Turns on row-level security for a tenant table: svc_api sees and writes only the transaction''s organisation and environment.';

CREATE OR REPLACE FUNCTION app.fan_out_events()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, signing_secret, next_attempt_at)
  select e.org_id, e.environment, w.id, e.id, e.event, w.secret, now()
    from recorded e
    join app.webhook_endpoints w
      on w.org_id = e.org_id and w.environment = e.environment and w.is_active
     and (w.events is null or e.event = any (w.events))
     for key share of w;
  return null;
end $function$;
comment on function app.fan_out_events() is 'Trigger: queues every recorded event to the subscribed active endpoints of its organisation and environment.';
revoke execute on function app.fan_out_events() from public;

CREATE OR REPLACE FUNCTION app.has_function(p_schema text, p_name text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select exists (
    select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = p_schema and p.proname = p_name)
$function$;
comment on function app.has_function(text,text) is 'Whether a function of that schema and name exists; how the scheduling code detects pg_cron, pg_net and Vault.';
revoke execute on function app.has_function(text,text) from public;

CREATE OR REPLACE FUNCTION app.home_for_request(p_claim uuid, p_property uuid)
 RETURNS TABLE(id uuid, org_id uuid, environment text, name text, address text, city text, state text, zip_code text, currency text, monthly_rate_cents bigint, rent_1_3_months_cents bigint, rent_4_6_months_cents bigint, rent_7_9_months_cents bigint, rent_10_12_months_cents bigint, security_deposit_cents bigint, cleaning_fee_cents bigint, application_fee_cents bigint, pet_fee_cents bigint, pet_rent_cents bigint, pet_deposit_cents bigint, utilities_included boolean, utilities_monthly_cents bigint, contract_template text, charges_enabled boolean, owner_contact_email text, available_from date)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  return query
  select p.id, p.org_id, p.environment, p.name, p.address, p.city, p.state, p.zip_code, p.currency,
         p.monthly_rate_cents, p.rent_1_3_months_cents, p.rent_4_6_months_cents, p.rent_7_9_months_cents,
         p.rent_10_12_months_cents, p.security_deposit_cents, p.cleaning_fee_cents, p.application_fee_cents,
         p.pet_fee_cents, p.pet_rent_cents, p.pet_deposit_cents, p.utilities_included, p.utilities_monthly_cents,
         p.contract_template, app.can_take_charges(p.org_id, c.environment), o.contact_email, p.available_from
    from app.claims c
    join app.properties p on p.id = p_property
    join app.organisations o on o.id = p.org_id
   where c.id = p_claim and c.org_id = app.current_org() and c.environment = app.current_env()
     and p.verified and p.status <> 'unavailable'
     and (c.environment = 'sandbox' or p.environment = 'live');
end $function$;
comment on function app.home_for_request(uuid,uuid) is 'The home a request may price or place (verified, same environment or a real home for sandbox, charges enabled), read across organisations; with the day it is available from.';
grant execute on function app.home_for_request(uuid,uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.home_label(p_property uuid)
 RETURNS TABLE(name text, external_id text)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  return query
  select p.name, p.external_id from app.properties p
   where p.id = p_property
     and exists (select 1 from app.claim_options h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env());
end $function$;
comment on function app.home_label(uuid) is 'Name and external_id of a home, for payloads and pages that name it across organisations.';
grant execute on function app.home_label(uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.home_listing(p_claim uuid, p_property uuid)
 RETURNS TABLE(name text, address text, city text, state text, zip_code text, bedrooms integer, bathrooms numeric, sqft integer, furnished_status text, image_urls text[], description text, amenities text[], pet_policy text, landlord_contact text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select p.name, p.address, p.city, p.state, p.zip_code, p.bedrooms, p.bathrooms, p.sqft, p.furnished_status, p.image_urls,
         p.description, p.amenities, p.pet_policy, o.contact_email
    from app.claim_options h
    join app.properties p on p.id = h.property_id
    join app.organisations o on o.id = p.org_id
   where h.claim_id = p_claim and h.property_id = p_property
     and h.org_id = app.current_org() and h.environment = app.current_env()
$function$;
comment on function app.home_listing(uuid,uuid) is 'The listing of a home on one of the calling tenant''s requests, as the household''s page shows it.';
grant execute on function app.home_listing(uuid,uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.homes_on_request(p_claim uuid)
 RETURNS TABLE(id uuid, name text, address text, city text, state text, currency text, monthly_rate_cents bigint)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  return query
  select p.id, p.name, p.address, p.city, p.state, p.currency, p.monthly_rate_cents
    from app.claim_options h join app.properties p on p.id = h.property_id
   where h.claim_id = p_claim and h.org_id = app.current_org() and h.environment = app.current_env();
end $function$;
comment on function app.homes_on_request(uuid) is 'Name, address and rate of the homes on a request, read across organisations for the placement read.';
grant execute on function app.homes_on_request(uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.invoke_webhook_dispatcher()
 RETURNS bigint
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select case when exists (select 1 from app.webhook_deliveries where status = 'pending' and next_attempt_at <= now())
                or exists (select 1 from app.jobs where status = 'pending' and run_at <= now())
              then app.call_dispatcher() end
$function$;
comment on function app.invoke_webhook_dispatcher() is 'On Supabase, called by pg_cron: calls the internal webhook-dispatcher function through pg_net.';
revoke execute on function app.invoke_webhook_dispatcher() from public;

CREATE OR REPLACE FUNCTION app.lease_status_follow()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  update app.claim_options h
     set lease_status = case when new.status in ('superseded', 'withdrawn') then null else new.status end,
         move_in_date = new.move_in_date, move_out_date = new.move_out_date, updated_at = clock_timestamp()
   where h.current_lease_id = new.id;
  return null;
end $function$;
comment on function app.lease_status_follow() is 'Keeps the option''s lease_status equal to the status of its live contract version.';

CREATE OR REPLACE FUNCTION app.lease_terms_frozen()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if old.terms is not null and new.terms is distinct from old.terms then
    raise exception 'the terms of a contract version never change (lease %)', old.id using errcode = '23514';
  end if;
  return new;
end $function$;
comment on function app.lease_terms_frozen() is 'Trigger: refuses a change of a contract version''s terms once they are written (what was agreed stays agreed).';

CREATE OR REPLACE FUNCTION app.listing_missing_fields(p app.properties)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select coalesce(array_agg(field order by ord), '{}')
    from (values
      (1, 'address', coalesce(btrim(p.address), '') = ''),
      (2, 'bedrooms', p.bedrooms is null),
      (3, 'bathrooms', p.bathrooms is null),
      (4, 'sqft', p.sqft is null),
      (5, 'monthly_rate', coalesce(p.monthly_rate_cents, 0) <= 0),
      (6, 'image_url', coalesce(cardinality(p.image_urls), 0) = 0),
      (7, 'description', coalesce(btrim(p.description), '') = ''),
      (8, 'amenities', coalesce(cardinality(p.amenities), 0) = 0),
      (9, 'pet_policy', coalesce(btrim(p.pet_policy), '') = ''),
      (10, 'available_from', p.available_from is null),
      (11, 'security_deposit', p.security_deposit_cents is null),
      (12, 'cleaning_fee', p.cleaning_fee_cents is null),
      (13, 'application_fee', p.application_fee_cents is null),
      (14, 'pet_fee', p.pet_fee_cents is null),
      (15, 'furnished_status', p.furnished_status is null)
    ) as rule (ord, field, missing)
   where missing
$function$;
comment on function app.listing_missing_fields(app.properties) is 'The listing-completeness rule: API field names a home still lacks, in the specification''s order.';
grant execute on function app.listing_missing_fields(app.properties) to svc_api;

CREATE OR REPLACE FUNCTION app.lock_calendar(p_property uuid)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  perform 1 from app.properties where id = p_property for update;
end $function$;
comment on function app.lock_calendar(uuid) is 'Locks a home''s calendar for the calling transaction (placements of one home queue for it).';
grant execute on function app.lock_calendar(uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.match_candidates(p_claim uuid, p_limit integer)
 RETURNS TABLE(property_id uuid, name text, city text, state text, zip_code text, currency text, monthly_rate_cents bigint, bedrooms integer, bathrooms numeric, sqft integer, furnished_status text, amenities text[], pet_policy text, distance_miles double precision)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'extensions', 'public', 'pg_temp'
 SET enable_bitmapscan TO 'off'
 SET enable_sort TO 'off'
 SET enable_seqscan TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
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
end $function$;
comment on function app.match_candidates(uuid,integer) is 'The homes a request of the calling tenant can be offered (app.eligible_homes), nearest first.';
grant execute on function app.match_candidates(uuid,integer) to svc_api;

CREATE OR REPLACE FUNCTION app.own_home_labels(p_ids uuid[])
 RETURNS TABLE(id uuid, name text, external_id text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select p.id, p.name, p.external_id from app.properties p
   where p.id = any(p_ids) and p.org_id = app.current_org()
$function$;
comment on function app.own_home_labels(uuid[]) is 'Name and reference of the caller''s own homes in any environment (a sandbox booking of a real home).';
grant execute on function app.own_home_labels(uuid[]) to svc_api;

CREATE OR REPLACE FUNCTION app.payee_of(p_property uuid, p_env text)
 RETURNS TABLE(org_id uuid, name text, processor_account_id text, charges_enabled boolean, contact_email text)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  return query
  select o.id, o.name, s.processor_account_id, s.charges_enabled, o.contact_email
    from app.properties p join app.organisations o on o.id = p.org_id
   cross join lateral app.payout_status(o.id, p_env) s
   where p.id = p_property
     and exists (select 1 from app.claim_options h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env());
end $function$;
comment on function app.payee_of(uuid,text) is 'The landlord a payment for a home goes to: organisation, processor account, whether it can take charges, contact address.';
grant execute on function app.payee_of(uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.payout_status(p_org uuid, p_env text)
 RETURNS app.payout_accounts
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_account app.payout_accounts;
begin
  select * into v_account from app.payout_accounts a where a.org_id = p_org and a.environment = p_env;
  if found then
    return v_account;
  end if;
  return jsonb_populate_record(null::app.payout_accounts, jsonb_build_object(
    'org_id', p_org, 'environment', p_env,
    'connected', p_env = 'sandbox', 'charges_enabled', p_env = 'sandbox', 'payouts_enabled', p_env = 'sandbox',
    'onboarding_status', case when p_env = 'sandbox' then 'complete' else 'not_started' end,
    'bank_account_last4', case when p_env = 'sandbox' then '6789' end,
    'updated_at', now()));
end $function$;
comment on function app.payout_status(uuid,text) is 'A provider''s payout account in an environment, or the environment''s starting state when none is recorded.';
grant execute on function app.payout_status(uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.properties_locate()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'app', 'extensions', 'public', 'pg_temp'
AS $function$
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
end $function$;
comment on function app.properties_locate() is 'Trigger: keeps a home''s geo_point from its coordinates, else its ZIP centroid.';

CREATE OR REPLACE FUNCTION app.properties_readiness()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  new.missing_fields := app.listing_missing_fields(new);
  new.listed := cardinality(new.missing_fields) = 0;
  new.verified := new.listed and new.available_from is not null;
  if tg_op = 'UPDATE' then
    new.updated_at := clock_timestamp();
  end if;
  return new;
end $function$;
comment on function app.properties_readiness() is 'Trigger: keeps a home''s missing_fields, listed and verified from the row itself.';

CREATE OR REPLACE FUNCTION app.provider_applications(p_status text, p_limit integer, p_after uuid, p_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(id uuid, carrier_org_id uuid, claim_id uuid, reference text, property_id uuid, application_status text, applied_at timestamp with time zone, application_approved_at timestamp with time zone, application_declined_at timestamp with time zone, application_decline_reason text, target_move_in date, est_length_months integer, adults integer, children integer, has_pets boolean, number_of_pets integer, proposed_move_in date, proposed_move_out date)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select h.id, h.org_id, h.claim_id, c.claim_ref, h.property_id, h.application_status, h.applied_at,
         h.application_approved_at, h.application_declined_at, h.application_decline_reason,
         c.target_move_in, c.est_length_months, c.adults, c.children, c.has_pets, c.number_of_pets,
         h.proposed_move_in, h.proposed_move_out
    from app.claim_options h
    join app.properties p on p.id = h.property_id
    join app.claims c on c.id = h.claim_id
   where p.org_id = app.current_org() and h.environment = app.current_env() and h.applied_at is not null
     and (p_id is null or h.id = p_id)
     and (p_status is null or h.application_status = p_status)
     and (p_after is null or (h.applied_at, h.id) < (select a.applied_at, a.id from app.claim_options a where a.id = p_after))
   order by h.applied_at desc, h.id desc
   limit p_limit
$function$;
comment on function app.provider_applications(text,integer,uuid,uuid) is 'The applications on the calling provider''s homes in its environment, newest first, keyset-paged after an application id; or the one named by p_id.';
grant execute on function app.provider_applications(text,integer,uuid,uuid) to svc_api;

CREATE OR REPLACE PROCEDURE app.purge_expired(IN p_batch integer DEFAULT 250, IN p_give_way double precision DEFAULT 3)
 LANGUAGE plpgsql
AS $procedure$
declare
  v_batch record;
  v_started timestamptz;
begin
  loop
    v_started := clock_timestamp();
    select * into v_batch from app.purge_expired_batch(p_batch);
    commit;
    -- Fewer than a batch of every kind: nothing is left.
    exit when greatest(v_batch.events, v_batch.pings, v_batch.idempotency_keys, v_batch.rate_windows) < p_batch;
    perform pg_sleep(p_give_way * extract(epoch from clock_timestamp() - v_started));
    commit;
  end loop;
end $procedure$;
comment on procedure app.purge_expired(integer,double precision) is 'The hourly retention (pg_cron job event-retention): app.purge_expired_batch until nothing is left, committing after each batch, then waiting p_give_way times as long as the batch took, so that it takes at most 1 / (1 + p_give_way) of one core. Call it on its own, outside a transaction block.';
revoke execute on procedure app.purge_expired(integer,double precision) from public;

CREATE OR REPLACE FUNCTION app.purge_expired_batch(p_batch integer DEFAULT 250, OUT events integer, OUT pings integer, OUT idempotency_keys integer, OUT rate_windows integer)
 RETURNS record
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_cutoff timestamptz := now() - interval '90 days';
begin
  -- Only this batch's transaction: a crash loses deletions the next purge makes again.
  perform set_config('synchronous_commit', 'off', true);
  -- Events by age, tenant by tenant through events_feed; each takes its deliveries with it (on
  -- delete cascade, through webhook_deliveries_event), about 2.5 an event.
  delete from app.events where id in (
    select e.id
      from app.organisations o
     cross join (values ('live'), ('sandbox')) as v (environment)
     cross join lateral (
       select x.id from app.events x
        where x.org_id = o.id and x.environment = v.environment and x.created_at < v_cutoff
        limit p_batch) e
     limit p_batch);
  get diagnostics events = row_count;
  delete from app.webhook_deliveries
   where id in (select id from app.webhook_deliveries where event_id is null and created_at < v_cutoff limit p_batch);
  get diagnostics pings = row_count;
  delete from app.idempotency_keys
   where (org_id, environment, key) in (
     select org_id, environment, key from app.idempotency_keys where created_at < now() - interval '48 hours' limit p_batch);
  get diagnostics idempotency_keys = row_count;
  delete from app.rate_windows
   where bucket in (select bucket from app.rate_windows where window_start < now() - interval '1 hour' limit p_batch);
  get diagnostics rate_windows = row_count;
end $function$;
comment on function app.purge_expired_batch(integer) is 'One batch of the hourly retention, at most p_batch rows of each kind: events past 90 days (their deliveries by cascade; found tenant by tenant through events_feed), pings as old, Idempotency-Keys past 48 hours, rate windows unused for an hour. Call until every count is under p_batch, each call its own transaction: it commits without waiting for the disk (synchronous_commit off to the end of the transaction; a lost batch is purged again).';
revoke execute on function app.purge_expired_batch(integer) from public;

CREATE OR REPLACE FUNCTION app.queue_ping(p_endpoint_id uuid)
 RETURNS uuid
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, signing_secret, next_attempt_at)
  select w.org_id, w.environment, w.id, 'ping', w.secret, now() from app.webhook_endpoints w
   where w.id = p_endpoint_id and w.org_id = app.current_org() and w.environment = app.current_env()
     for key share
  returning id
$function$;
comment on function app.queue_ping(uuid) is 'Queues a test ping to one endpoint of the current tenant; returns the delivery id.';
revoke execute on function app.queue_ping(uuid) from public;
grant execute on function app.queue_ping(uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.queue_replay(p_event_id uuid)
 RETURNS TABLE(subscribed integer, queued integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  if not exists (select 1 from app.events where id = p_event_id and org_id = app.current_org() and environment = app.current_env()) then
    return;
  end if;
  return query select r.subscribed, r.queued from app.queue_replays(array[p_event_id]) r;
end $function$;
comment on function app.queue_replay(uuid) is 'Queues an event of the current tenant again to its subscribed active endpoints; returns subscribed and queued counts.';
revoke execute on function app.queue_replay(uuid) from public;
grant execute on function app.queue_replay(uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.queue_replays(p_event_ids uuid[], p_endpoint_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(subscribed integer, queued integer)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  with targets as (
    select e.org_id, e.environment, w.id as endpoint_id, e.id as event_id, e.event, w.secret
      from app.events e
      join app.webhook_endpoints w
        on w.org_id = e.org_id and w.environment = e.environment and w.is_active
       and (w.events is null or e.event = any (w.events))
     where e.id = any (p_event_ids) and e.org_id = app.current_org() and e.environment = app.current_env()
       and (p_endpoint_id is null or w.id = p_endpoint_id)
       for key share of w
  ), inserted as (
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, replay, signing_secret, next_attempt_at)
    select org_id, environment, endpoint_id, event_id, event, true, secret, now() from targets
    on conflict (event_id, endpoint_id) where replay and status = 'pending' do nothing
    returning 1
  )
  select (select count(*) from targets)::integer, (select count(*) from inserted)::integer
$function$;
comment on function app.queue_replays(uuid[],uuid) is 'Queues events of the current tenant again (replay: true) to its active endpoints subscribed now, or to the one endpoint named; a replay already waiting is not queued twice. Returns subscribed pairs and queued deliveries.';
revoke execute on function app.queue_replays(uuid[],uuid) from public;

CREATE OR REPLACE FUNCTION app.range_conflicts(p_property uuid, p_env text, p_start date, p_end date)
 RETURNS TABLE(start_date date, end_date date, reason text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select b.start_date, b.end_date, app.conflict_reason(b.source)
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
   order by b.start_date
$function$;
comment on function app.range_conflicts(uuid,text,date,date) is 'The blocks of a home that overlap a date range in an environment: the conflicts[] of dates_unavailable, without the provider''s own reasons.';
grant execute on function app.range_conflicts(uuid,text,date,date) to svc_api;

CREATE OR REPLACE FUNCTION app.range_is_free(p_property uuid, p_env text, p_start date, p_end date)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  perform 1 from app.properties where id = p_property for update;
  return not exists (
    select 1 from app.availability_blocks b
     where b.property_id = p_property and b.environment = p_env
       and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]'));
end $function$;
comment on function app.range_is_free(uuid,text,date,date) is 'Whether no block touches the dates in an environment; locks the home until the end of the transaction so a hold can rely on the answer.';
grant execute on function app.range_is_free(uuid,text,date,date) to svc_api;

CREATE OR REPLACE FUNCTION app.record_event(p_event text, p_payload jsonb, p_org uuid DEFAULT NULL::uuid, p_env text DEFAULT NULL::text, p_simulated boolean DEFAULT false)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare v_id uuid;
begin
  if app.current_org() is not null then
    if p_env is not null and p_env <> app.current_env() then
      raise exception 'an event of environment % is not the calling tenant''s to record', p_env using errcode = 'insufficient_privilege';
    end if;
    -- The cheap tests alone first (see the top of this file); the subquery only for another organisation.
    if p_org is not null and p_org <> app.current_org() then
      if not exists (
        select 1 from app.claim_options h join app.properties p on p.id = h.property_id
         where h.org_id = app.current_org() and h.environment = app.current_env() and p.org_id = p_org) then
        raise exception 'an event for organisation % is not the calling tenant''s to record', p_org using errcode = 'insufficient_privilege';
      end if;
    end if;
  end if;
  insert into app.events (org_id, environment, event, payload, simulated)
  values (coalesce(p_org, app.current_org()), coalesce(p_env, app.current_env()), p_event, p_payload, p_simulated)
  returning id into v_id;
  return v_id;
end $function$;
comment on function app.record_event(text,jsonb,uuid,text,boolean) is 'Records an event in the outbox (app.events) for the calling tenant, or for the provider of a home on one of its requests; fanned out to webhooks by trigger.';
grant execute on function app.record_event(text,jsonb,uuid,text,boolean) to svc_api;

CREATE OR REPLACE FUNCTION app.record_payment_failure()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  if tg_op = 'UPDATE' and old.status = 'failed' then return null; end if;
  -- Without a processor reference no charge was made: the service closed the attempt itself
  -- (isReplacedCheckout in shared/placements/money-repository.ts).
  if new.provider_ref is null or new.claim_id is null or new.carrier_org_id is null then return null; end if;
  insert into app.payment_failures (org_id, environment, claim_id, property_id, payment_id, charge_type, payer, amount_cents, currency, failure_reason)
  values (new.carrier_org_id, new.environment, new.claim_id, new.property_id, new.id, new.charge_type, new.payer, new.gross_cents, new.currency,
          new.failure_reason);
  return null;
end $function$;
comment on function app.record_payment_failure() is 'Trigger: files a failed charge in app.payment_failures when a payment becomes failed (not an attempt the service replaced).';

CREATE OR REPLACE FUNCTION app.recover_deliveries(p_endpoint_id uuid, p_since timestamp with time zone)
 RETURNS TABLE(active boolean, abandoned integer, queued integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_active boolean;
  v_events uuid[];
begin
  select w.is_active into v_active from app.webhook_endpoints w
   where w.id = p_endpoint_id and w.org_id = app.current_org() and w.environment = app.current_env();
  if not found then return; end if;
  select coalesce(array_agg(distinct d.event_id), '{}') into v_events
    from app.webhook_deliveries d
   where d.endpoint_id = p_endpoint_id and d.status = 'abandoned' and d.event_id is not null and d.created_at > p_since
     and not exists (select 1 from app.webhook_deliveries s
                      where s.endpoint_id = d.endpoint_id and s.event_id = d.event_id and s.status = 'succeeded');
  if not v_active then
    return query select false, cardinality(v_events), 0;
    return;
  end if;
  return query select true, cardinality(v_events), coalesce((select r.queued from app.queue_replays(v_events, p_endpoint_id) r), 0);
end $function$;
comment on function app.recover_deliveries(uuid,timestamp with time zone) is 'POST /webhooks/{id}/recover: replays to one endpoint of the current tenant the events whose delivery to it, queued after p_since, was abandoned and never succeeded. Returns whether the endpoint is active, how many such events and how many replays were queued; no rows when the endpoint is not the tenant''s.';
revoke execute on function app.recover_deliveries(uuid,timestamp with time zone) from public;
grant execute on function app.recover_deliveries(uuid,timestamp with time zone) to svc_api;

CREATE OR REPLACE FUNCTION app.refresh_grown_statistics(p_min_rows integer DEFAULT 200)
 RETURNS text[]
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_table text;
  v_analyzed text[] := '{}';
begin
  for v_table in
    select s.relname
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     where s.schemaname = 'app'
       -- reltuples is -1 before the first analyze: the rows' count alone decides then.
       and s.n_live_tup >= greatest(p_min_rows, 2 * c.reltuples)
  loop
    execute format('analyze app.%I', v_table);
    v_analyzed := v_analyzed || v_table;
  end loop;
  return v_analyzed;
end $function$;
comment on function app.refresh_grown_statistics(integer) is 'Analyzes the tables of app whose live rows have doubled since their last analyze (and number at least p_min_rows), so that plans kept by connections follow a table growing from empty faster than autovacuum looks; returns the tables analyzed. Run every few seconds by the local server''s background thread, and by pg_cron job grown-statistics where pg_cron is.';
revoke execute on function app.refresh_grown_statistics(integer) from public;

CREATE OR REPLACE FUNCTION app.refund_request_asked()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  insert into app.refund_request_changes (request_id, status, moved_by, changed_at)
  values (new.id, 'pending_owner_approval', case when new.automatic then 'service' else 'carrier' end, new.created_at);
  return null;
end $function$;
comment on function app.refund_request_asked() is 'Trigger: appends a refund request''s first step (asked) when it is asked.';

CREATE OR REPLACE FUNCTION app.refund_request_change_follows()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_ask record;
  v_last record;
begin
  select org_id, environment, provider_org_id into v_ask from app.refund_request_asks where id = new.request_id;
  if not found then
    raise exception 'no refund request %', new.request_id using errcode = '23503';
  end if;
  -- One step at a time per request, whoever appends it (the commands also hold the placement's lock).
  perform pg_advisory_xact_lock(hashtextextended('refund_request_changes:' || new.request_id::text, 0));
  select seq, status into v_last from app.refund_request_changes where request_id = new.request_id order by seq desc limit 1;
  if not (coalesce(v_last.status, 'none') || ' > ' || new.status) = any (array[
      'none > pending_owner_approval',
      'pending_owner_approval > approved', 'pending_owner_approval > declined',
      'approved > refunded', 'approved > failed',
      -- The console's retry of an abandoned refund job issues it after all.
      'failed > refunded']) then
    raise exception 'a refund request that is % cannot become % (request %)', coalesce(v_last.status, 'not asked'), new.status, new.request_id
      using errcode = '23514';
  end if;
  new.seq := coalesce(v_last.seq, 0) + 1;
  new.org_id := v_ask.org_id;
  new.environment := v_ask.environment;
  new.provider_org_id := v_ask.provider_org_id;
  return new;
end $function$;
comment on function app.refund_request_change_follows() is 'Trigger: places a refund request''s new step after its last one (seq, tenant, landlord), and refuses a step the last one does not lead to.';

CREATE OR REPLACE FUNCTION app.refund_request_history_frozen()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  raise exception '% is append-only: a refund request''s % is never %d', tg_table_name,
    case when tg_table_name = 'refund_request_asks' then 'ask' else 'history' end, lower(tg_op)
    using errcode = '55000';
end $function$;
comment on function app.refund_request_history_frozen() is 'Trigger: refuses any update or delete of a refund request as asked (app.refund_request_asks) or of a step of its life (app.refund_request_changes).';

CREATE OR REPLACE FUNCTION app.refund_request_one_open()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  if new.automatic then return new; end if;
  perform pg_advisory_xact_lock(hashtextextended('refund_request_open:' || new.claim_option_id::text, 0));
  if exists (select 1 from app.refund_requests r
              where r.claim_option_id = new.claim_option_id and not r.automatic and r.status in ('pending_owner_approval', 'approved')) then
    raise exception 'a refund request is already open on placement %', new.claim_option_id
      using errcode = '23505', constraint = 'refund_requests_one_open';
  end if;
  return new;
end $function$;
comment on function app.refund_request_one_open() is 'Trigger: refuses a carrier''s refund request on a placement that has one pending or approved (unique_violation), asks serialised per placement.';

CREATE OR REPLACE FUNCTION app.refund_request_reference(p_refund uuid)
 RETURNS TABLE(claim_ref text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select c.claim_ref from app.refund_requests r join app.claims c on c.id = r.claim_id
   where r.id = p_refund and r.provider_org_id = app.current_org() and r.environment = app.current_env()
$function$;
comment on function app.refund_request_reference(uuid) is 'The request and home a refund request belongs to, for the landlord''s answer read across organisations.';
grant execute on function app.refund_request_reference(uuid) to svc_api;

CREATE OR REPLACE FUNCTION app.release_background_lease(p_name text, p_holder text)
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from app.background_leases where name = p_name and holder = p_holder
$function$;
comment on function app.release_background_lease(text,text) is 'Gives the background lease p_name up if p_holder holds it (a process stopping), so that the next process to ask takes it.';
revoke execute on function app.release_background_lease(text,text) from public;

CREATE OR REPLACE FUNCTION app.release_holds(p_lease_agreement uuid, p_env text)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  with gone as (
    delete from app.availability_blocks
     where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service'
    returning 1)
  select count(*)::integer from gone
$function$;
comment on function app.release_holds(uuid,text) is 'Releases a lease''s service holds (cancellation); returns how many were removed.';
grant execute on function app.release_holds(uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.remove_clock()
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  delete from app.sandbox_clocks where org_id = app.current_org() and environment = 'sandbox' and app.current_env() = 'sandbox';
  if not found then return false; end if;
  update app.jobs set run_at = greatest(clock_run_at, now()), clock_run_at = null
   where org_id = app.current_org() and environment = 'sandbox' and status = 'pending' and clock_run_at is not null;
  return true;
end $function$;
comment on function app.remove_clock() is 'Removes the calling sandbox organisation''s clock; its waiting jobs fall due on the wall clock.';
grant execute on function app.remove_clock() to svc_api;

CREATE OR REPLACE FUNCTION app.schedule_webhook_jobs()
 RETURNS boolean
 LANGUAGE plpgsql
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_extension text;
  v_schema text;
  v_errors text[] := '{}';
  v_missing text;
  v_command constant text := 'select app.invoke_webhook_dispatcher()';
begin
  -- Each extension in a subtransaction of its own: one's absence never undoes the other. The schemas
  -- Supabase installs them in.
  for v_extension, v_schema in values ('pg_cron', 'pg_catalog'), ('pg_net', 'extensions') loop
    begin
      execute format('create extension if not exists %I with schema %I', v_extension, v_schema);
    exception when others then
      v_errors := v_errors || format('%s: %s', v_extension, sqlerrm);
    end;
  end loop;
  select string_agg(format('%s (fix: %s)', g.missing, g.fix), '; ') into v_missing
    from unnest(array['pg_cron', 'pg_net']) e, app.scheduling_extension_gap(e) g
   where g.missing is not null;
  if v_missing is not null then
    raise warning 'webhook scheduling not set up: %; webhooks are delivered only by the local server''s timer', v_missing
      using detail = array_to_string(v_errors, '; ');
    return false;
  end if;
  begin
    -- cron.schedule replaces a job of the same name, so running this again changes nothing.
    perform cron.schedule('webhook-dispatch', '10 seconds', v_command);
  exception when others then
    -- Seconds schedules arrived in pg_cron 1.5; older versions refuse them ("invalid schedule").
    raise warning 'webhook dispatch scheduled every minute: pg_cron refused a 10-second schedule (%; seconds need pg_cron 1.5 or later)', sqlerrm;
    perform cron.schedule('webhook-dispatch', '* * * * *', v_command);
  end;
  -- A procedure, called on its own (pg_cron runs a job's command as one statement): it commits after
  -- each batch, which only a CALL outside any transaction block may do.
  perform cron.schedule('event-retention', '17 * * * *', 'call app.purge_expired()');
  begin
    perform cron.schedule('grown-statistics', '10 seconds', 'select app.refresh_grown_statistics()');
  exception when others then
    perform cron.schedule('grown-statistics', '* * * * *', 'select app.refresh_grown_statistics()');
  end;
  return true;
exception when others then
  raise warning 'webhook scheduling not set up: % (no pg_cron job was created)', sqlerrm;
  return false;
end $function$;
comment on function app.schedule_webhook_jobs() is 'Enables pg_cron and pg_net (each on its own) and schedules pg_cron jobs webhook-dispatch (every 10 seconds, every minute before pg_cron 1.5), event-retention (hourly: call app.purge_expired()) and grown-statistics (every 10 seconds, every minute before pg_cron 1.5: app.refresh_grown_statistics()); never raises: returns false with a WARNING naming what is missing and the fix when nothing was scheduled.';
revoke execute on function app.schedule_webhook_jobs() from public;

CREATE OR REPLACE FUNCTION app.scheduling_extension_gap(p_extension text, OUT missing text, OUT fix text)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_cron_database text := current_setting('cron.database_name', true);
begin
  if (p_extension = 'pg_cron' and app.has_function('cron', 'schedule'))
     or (p_extension = 'pg_net' and app.has_function('net', 'http_post')) then
    return;
  end if;
  if not exists (select 1 from pg_available_extensions where name = p_extension) then
    missing := format('%s is not installed on this database server', p_extension);
    fix := format('install %s on the database server (Supabase ships it%s), add it to shared_preload_libraries, restart PostgreSQL, then run select app.schedule_webhook_jobs()',
      p_extension, case p_extension when 'pg_cron' then '; Debian: apt-get install postgresql-<major>-cron' else '' end);
  elsif p_extension = 'pg_cron' and v_cron_database is null then
    -- pg_cron's settings exist only once its library is loaded at server start.
    missing := 'pg_cron is installed but not loaded at server start';
    fix := 'add pg_cron to shared_preload_libraries, restart PostgreSQL, then run select app.schedule_webhook_jobs()';
  elsif p_extension = 'pg_cron' and v_cron_database <> current_database() then
    missing := format('pg_cron keeps its jobs in database %s, not in this one', v_cron_database);
    fix := format('set cron.database_name = ''%s'' in postgresql.conf, restart PostgreSQL, then run select app.schedule_webhook_jobs()', current_database());
  else
    missing := format('%s is available but not enabled in this database', p_extension);
    fix := format('run select app.schedule_webhook_jobs() (it enables %s; on Supabase also Database > Extensions > %s)', p_extension, p_extension);
  end if;
end $function$;
comment on function app.scheduling_extension_gap(text) is 'What pg_cron or pg_net lacks on this database (not installed, not preloaded, another cron.database_name, not enabled) and the fix; nulls when it is enabled.';
revoke execute on function app.scheduling_extension_gap(text) from public;

CREATE OR REPLACE FUNCTION app.shorten_holds(p_lease_agreement uuid, p_env text, p_last_day date)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare v_count integer;
begin
  delete from app.availability_blocks
   where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service' and start_date > p_last_day;
  update app.availability_blocks set end_date = p_last_day
   where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service' and end_date > p_last_day;
  get diagnostics v_count = row_count;
  return v_count;
end $function$;
comment on function app.shorten_holds(uuid,text,date) is 'Releases the tail of a booking hold after its new last day (a stay shortened after move-in).';
grant execute on function app.shorten_holds(uuid,text,date) to svc_api;

CREATE OR REPLACE FUNCTION app.stay_conflicts(p_property uuid, p_env text, p_claim uuid, p_start date, p_end date)
 RETURNS TABLE(start_date date, end_date date, reason text)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  return query
  select b.start_date, b.end_date, app.conflict_reason(b.source)
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env and b.source = 'service'
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
     and not exists (select 1 from app.lease_agreements l
                      where l.id = b.lease_agreement_id and l.claim_id = p_claim and l.org_id = app.current_org())
   order by b.start_date;
end $function$;
comment on function app.stay_conflicts(uuid,text,uuid,date,date) is 'The holds of other requests'' stays on a home that overlap a date range (first and last night) in an environment: the conflicts[] of could_not_place. The calling tenant''s request p_claim''s own holds and the provider''s blocks are left out.';
grant execute on function app.stay_conflicts(uuid,text,uuid,date,date) to svc_api;

CREATE OR REPLACE FUNCTION app.take_background_lease(p_name text, p_holder text, p_ttl interval)
 RETURNS boolean
 LANGUAGE sql
AS $function$
  with taken as (
    insert into app.background_leases as l (name, holder, expires_at)
    values (p_name, p_holder, clock_timestamp() + p_ttl)
    on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
     where l.holder = excluded.holder or l.expires_at < clock_timestamp()
    returning 1)
  select exists (select 1 from taken)
$function$;
comment on function app.take_background_lease(text,text,interval) is 'Takes or renews the background lease p_name for p_holder, for p_ttl from the moment it is called; true when p_holder holds it, false while another holds an unexpired one.';
revoke execute on function app.take_background_lease(text,text,interval) from public;

CREATE OR REPLACE FUNCTION app.take_hold(p_property uuid, p_env text, p_start date, p_end date, p_lease_agreement uuid, p_reason text DEFAULT NULL::text)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare v_id uuid;
begin
  if p_env = 'live' and exists (select 1 from app.properties where id = p_property and environment = 'sandbox') then
    raise exception 'a live hold cannot be taken on a sandbox home %', p_property using errcode = 'check_violation';
  end if;
  if not app.range_is_free(p_property, p_env, p_start, p_end) then
    return null;
  end if;
  insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, reason, source, lease_agreement_id)
  select p.id, p.org_id, p_env, p_start, p_end, p_reason, 'service', p_lease_agreement
    from app.properties p where p.id = p_property
  returning id into v_id;
  return v_id;
end $function$;
comment on function app.take_hold(uuid,text,date,date,uuid,text) is 'Takes a service hold for a lease when the dates are free; returns the block id, or null when taken.';
grant execute on function app.take_hold(uuid,text,date,date,uuid,text) to svc_api;

CREATE OR REPLACE FUNCTION app.take_hold_default_kind()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if new.source = 'service' and new.held_for is null then new.held_for := 'lease'; end if;
  return new;
end $function$;
comment on function app.take_hold_default_kind() is 'Fills in the kind of a service hold (lease or booking) when the insert does not name it.';

CREATE OR REPLACE FUNCTION app.verified_via(p app.properties)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select case when p.verified then (array_remove(app.availability_via(p), 'complete_profile'))[1] end
$function$;
comment on function app.verified_via(app.properties) is 'The strongest way a verified home''s availability is read; null when not verified.';
grant execute on function app.verified_via(app.properties) to svc_api;

CREATE OR REPLACE FUNCTION app.webhook_scheduling_status(OUT scheduled boolean, OUT schedule text, OUT reason text, OUT fix text)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare
  v_missing text;
begin
  scheduled := false;
  select string_agg(g.missing, '; '), string_agg(g.fix, '; ') into reason, fix
    from unnest(array['pg_cron', 'pg_net']) e, app.scheduling_extension_gap(e) g
   where g.missing is not null;
  if reason is not null then
    return;
  end if;
  if to_regclass('cron.job') is null then
    reason := 'pg_cron has no cron.job table';
    fix := 'reinstall pg_cron: drop extension pg_cron, then run select app.schedule_webhook_jobs()';
    return;
  end if;
  execute 'select schedule from cron.job where jobname = $1 limit 1' into schedule using 'webhook-dispatch';
  if schedule is null then
    reason := 'no pg_cron job named webhook-dispatch';
    fix := 'run select app.schedule_webhook_jobs()';
    return;
  end if;
  v_missing := app.dispatcher_vault_gap();
  if v_missing is not null then
    reason := v_missing;
    fix := 'store the address and the secret of the webhook-dispatcher function in Vault: select vault.create_secret(''https://<project-ref>.supabase.co/functions/v1/webhook-dispatcher'', ''webhook_dispatcher_url''); select vault.create_secret(''<the WEBHOOK_DISPATCHER_SECRET of the function>'', ''webhook_dispatcher_secret'')';
    return;
  end if;
  scheduled := true;
end $function$;
comment on function app.webhook_scheduling_status() is 'Whether pg_cron delivers webhooks on this database (extensions, the webhook-dispatch job, the Vault secrets), the job''s schedule, and when it does not, the reason and the fix.';
revoke execute on function app.webhook_scheduling_status() from public;

CREATE OR REPLACE FUNCTION app.withdrawal_reason_frozen()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if old.withdrawal_reason is not null and new.withdrawal_reason is distinct from old.withdrawal_reason then
    raise exception 'why a contract version was withdrawn never changes (lease %)', old.id using errcode = '23514';
  end if;
  return new;
end $function$;
comment on function app.withdrawal_reason_frozen() is 'Trigger: refuses a change of why a contract version was withdrawn once it is written.';

-- ==============================================================================================
-- Tables
-- ==============================================================================================

create table app.api_keys (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  key_hash text not null,
  key_prefix text not null,
  name text,
  scopes text[] not null,
  user_email text,
  rate_limit_per_minute integer,
  created_at timestamp with time zone default now() not null,
  last_used_at timestamp with time zone,
  revoked_at timestamp with time zone,
  constraint api_keys_pkey PRIMARY KEY (id),
  constraint api_keys_key_hash_key UNIQUE (key_hash),
  constraint api_keys_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint api_keys_rate_limit_per_minute_check CHECK ((rate_limit_per_minute > 0)),
  constraint api_keys_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.api_keys enable row level security;
comment on table app.api_keys is 'API keys, created and revoked with the operator console. Only the SHA-256 of a key is stored; the key is shown once.';
comment on column app.api_keys.key_hash is 'SHA-256 (hex) of the full key; the API looks keys up by it.';
comment on column app.api_keys.key_prefix is 'First characters of the key (svc_pk_/svc_sk_ plus four), to recognise a key without storing it.';
comment on column app.api_keys.name is 'Operator''s label for the key.';
comment on column app.api_keys.scopes is 'Scopes the key grants (claims:read, webhooks:manage, ...); a route refuses a key without its scope (403).';
comment on column app.api_keys.user_email is 'Set for a key issued to one person; the API refuses such keys (401 invalid_key): integrations use organisation keys.';
comment on column app.api_keys.rate_limit_per_minute is 'The key''s own per-minute limit, set with `admin key limit`; null: the environment''s default (app.default_rate_limit).';
comment on column app.api_keys.last_used_at is 'Last authenticated request, to the minute.';
comment on column app.api_keys.revoked_at is 'When the key was revoked; a revoked key is refused (401 invalid_key).';
CREATE INDEX api_keys_org ON app.api_keys USING btree (org_id);
create policy tenant_isolation on app.api_keys as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select on table app.api_keys to svc_api;
grant update (revoked_at) on table app.api_keys to svc_api;

create table app.availability_blocks (
  id uuid default gen_random_uuid() not null,
  property_id uuid not null,
  org_id uuid not null,
  environment text not null,
  start_date date not null,
  end_date date not null,
  reason text,
  source text not null,
  lease_agreement_id uuid,
  created_at timestamp with time zone default clock_timestamp() not null,
  held_for text,
  calendar_import_id uuid,
  constraint availability_blocks_pkey PRIMARY KEY (id),
  constraint availability_service_holds_disjoint EXCLUDE USING gist (property_id WITH =, environment WITH =, daterange(start_date, end_date, '[]'::text) WITH &&) WHERE ((source = 'service'::text)),
  constraint availability_blocks_check CHECK ((end_date >= start_date)),
  constraint availability_blocks_check1 CHECK (((source = 'service'::text) OR (lease_agreement_id IS NULL))),
  constraint availability_blocks_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint availability_blocks_held_for CHECK ((held_for = ANY (ARRAY['lease'::text, 'booking'::text, 'completed'::text]))),
  constraint availability_blocks_ical_import CHECK (((source = 'ical'::text) = (calendar_import_id IS NOT NULL))),
  constraint availability_blocks_reason_check CHECK ((length(reason) <= 500)),
  constraint availability_blocks_source_check CHECK ((source = ANY (ARRAY['provider'::text, 'service'::text, 'ical'::text]))),
  constraint availability_held_for CHECK (((source = 'service'::text) = (held_for IS NOT NULL))),
  constraint availability_blocks_calendar_import_id_fkey FOREIGN KEY (calendar_import_id) REFERENCES app.calendar_imports(id) ON DELETE CASCADE,
  constraint availability_blocks_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint availability_blocks_property_id_org_id_fkey FOREIGN KEY (property_id, org_id) REFERENCES app.properties(id, org_id)
);
alter table app.availability_blocks enable row level security;
comment on table app.availability_blocks is 'Dates a home cannot be booked, per environment: blocks the provider set, and holds the service took for a lease or booking (which never overlap one another).';
comment on column app.availability_blocks.org_id is 'The home''s owner (the provider).';
comment on column app.availability_blocks.environment is 'The block''s own environment, which may differ from the home''s: a sandbox placement may hold a real home. Availability of one environment never shows in the other.';
comment on column app.availability_blocks.start_date is 'First blocked date.';
comment on column app.availability_blocks.end_date is 'Inclusive last day. A service hold ends on the stay''s last night (the day before move-out): the move-out day is free for the next check-in.';
comment on column app.availability_blocks.reason is 'Free-text reason given by the provider, or the service''s note on a hold.';
comment on column app.availability_blocks.source is 'provider: set by the provider; service: a hold the service took for a lease or booking; ical: a range read from another channel''s calendar (calendar_import_id).';
comment on column app.availability_blocks.lease_agreement_id is 'For service holds: the lease agreement the hold is for (released with it).';
comment on column app.availability_blocks.held_for is 'For service holds: lease (dates set, not paid), booking (the first payment cleared), completed (the stay is over; kept as the home''s history).';
comment on column app.availability_blocks.calendar_import_id is 'For ical blocks: the imported calendar they were read from (replaced at each of its successful fetches, removed with it).';
CREATE INDEX availability_blocks_calendar ON app.availability_blocks USING btree (property_id, environment, start_date);
CREATE INDEX availability_blocks_ending ON app.availability_blocks USING btree (property_id, end_date, start_date);
CREATE INDEX availability_blocks_import ON app.availability_blocks USING btree (calendar_import_id) WHERE (calendar_import_id IS NOT NULL);
CREATE INDEX availability_blocks_lease ON app.availability_blocks USING btree (lease_agreement_id) WHERE (lease_agreement_id IS NOT NULL);
CREATE INDEX availability_blocks_tenant ON app.availability_blocks USING btree (org_id, environment);
CREATE TRIGGER availability_blocks_calendar_export_del AFTER DELETE ON app.availability_blocks REFERENCING OLD TABLE AS changed_blocks FOR EACH STATEMENT EXECUTE FUNCTION app.calendar_export_touch();
CREATE TRIGGER availability_blocks_calendar_export_ins AFTER INSERT ON app.availability_blocks REFERENCING NEW TABLE AS changed_blocks FOR EACH STATEMENT EXECUTE FUNCTION app.calendar_export_touch();
CREATE TRIGGER availability_blocks_calendar_export_upd AFTER UPDATE ON app.availability_blocks REFERENCING NEW TABLE AS changed_blocks FOR EACH STATEMENT EXECUTE FUNCTION app.calendar_export_touch();
CREATE TRIGGER availability_blocks_held_for BEFORE INSERT ON app.availability_blocks FOR EACH ROW EXECUTE FUNCTION app.take_hold_default_kind();
create policy tenant_isolation on app.availability_blocks as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, delete on table app.availability_blocks to svc_api;

create table app.background_leases (
  name text not null,
  holder text not null,
  expires_at timestamp with time zone not null,
  constraint background_leases_pkey PRIMARY KEY (name)
);
alter table app.background_leases enable row level security;
comment on table app.background_leases is 'Which local server process runs the timed background work (job runner, webhook dispatcher, retention, statistics) for this database; renewed every few seconds, taken over once expired. Bookkeeping: no API role reads it.';
comment on column app.background_leases.holder is 'The process holding the lease: its host and the port it serves (a process started again on the same port renews it at once).';
comment on column app.background_leases.expires_at is 'When the lease lapses unless its holder renews it; after that, the next process to ask takes it.';

create table app.bookings (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  property_id uuid not null,
  carrier_org_id uuid,
  claim_id uuid,
  lease_agreement_id uuid,
  booking_status text default 'confirmed'::text not null,
  check_in date not null,
  check_out date not null,
  move_in_confirmed_at timestamp with time zone,
  cancelled_at timestamp with time zone,
  currency text default 'usd'::text not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  updated_at timestamp with time zone default clock_timestamp() not null,
  claim_option_id uuid,
  cancel_reason text,
  completed_at timestamp with time zone,
  constraint bookings_pkey PRIMARY KEY (id),
  constraint bookings_booking_status CHECK ((booking_status = ANY (ARRAY['confirmed'::text, 'cancelled'::text, 'completed'::text]))),
  constraint bookings_cancel_reason_check CHECK ((length(cancel_reason) <= 2000)),
  constraint bookings_check CHECK ((check_out > check_in)),
  constraint bookings_check1 CHECK (((booking_status = 'cancelled'::text) = (cancelled_at IS NOT NULL))),
  constraint bookings_completed CHECK (((booking_status = 'completed'::text) = (completed_at IS NOT NULL))),
  constraint bookings_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint bookings_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint bookings_carrier_org_id_fkey FOREIGN KEY (carrier_org_id) REFERENCES app.organisations(id),
  constraint bookings_claim FOREIGN KEY (claim_id) REFERENCES app.claims(id),
  constraint bookings_claim_option FOREIGN KEY (claim_option_id, carrier_org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint bookings_lease FOREIGN KEY (lease_agreement_id) REFERENCES app.lease_agreements(id),
  constraint bookings_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint bookings_property_id_org_id_fkey FOREIGN KEY (property_id, org_id) REFERENCES app.properties(id, org_id)
);
alter table app.bookings enable row level security;
comment on table app.bookings is 'A family booked into a provider''s home. org_id is the provider; the carrier that placed the family (carrier_org_id) reads it too.';
comment on column app.bookings.org_id is 'The provider (the home''s owner).';
comment on column app.bookings.environment is 'The placement''s environment: a sandbox booking of a real home stays in sandbox.';
comment on column app.bookings.carrier_org_id is 'The carrier whose request placed the family.';
comment on column app.bookings.lease_agreement_id is 'The lease agreement the booking comes from.';
comment on column app.bookings.booking_status is 'confirmed, cancelled, or completed (the stay reached its move-out date).';
comment on column app.bookings.check_in is 'Move-in date.';
comment on column app.bookings.check_out is 'Move-out date (after check_in).';
comment on column app.bookings.move_in_confirmed_at is 'When the move-in was confirmed.';
comment on column app.bookings.cancelled_at is 'Set exactly when booking_status is cancelled.';
comment on column app.bookings.claim_option_id is 'The option (home on a request, app.claim_options) that was booked.';
comment on column app.bookings.cancel_reason is 'The carrier''s reason for cancelling, read by the landlord and the household.';
comment on column app.bookings.completed_at is 'When the stay was closed out (its move-out date came); set exactly when booking_status is completed.';
CREATE INDEX bookings_carrier ON app.bookings USING btree (carrier_org_id, environment) WHERE (carrier_org_id IS NOT NULL);
CREATE INDEX bookings_claim ON app.bookings USING btree (claim_id);
CREATE INDEX bookings_lease ON app.bookings USING btree (lease_agreement_id) WHERE (lease_agreement_id IS NOT NULL);
CREATE UNIQUE INDEX bookings_one_per_lease ON app.bookings USING btree (lease_agreement_id) WHERE (booking_status = 'confirmed'::text);
CREATE INDEX bookings_option ON app.bookings USING btree (claim_option_id, created_at DESC) WHERE (claim_option_id IS NOT NULL);
CREATE INDEX bookings_provider ON app.bookings USING btree (org_id, environment, created_at DESC, id DESC);
create policy counterpart_insert on app.bookings as permissive for insert to svc_api
  with check (((carrier_org_id = app.current_org()) AND (environment = app.current_env())));
create policy counterpart_read on app.bookings as permissive for select to svc_api
  using (((carrier_org_id = app.current_org()) AND (environment = app.current_env())));
create policy counterpart_update on app.bookings as permissive for update to svc_api
  using (((carrier_org_id = app.current_org()) AND (environment = app.current_env())));
create policy tenant_isolation on app.bookings as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.bookings to svc_api;

create table app.budget_approvals (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  property_id uuid not null,
  approved boolean not null,
  approved_at timestamp with time zone,
  figures jsonb not null,
  updated_at timestamp with time zone default clock_timestamp() not null,
  constraint budget_approvals_pkey PRIMARY KEY (id),
  constraint budget_approvals_claim_id_property_id_key UNIQUE (claim_id, property_id),
  constraint budget_approvals_check CHECK ((approved = (approved_at IS NOT NULL))),
  constraint budget_approvals_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint budget_approvals_figures_check CHECK ((jsonb_typeof(figures) = 'object'::text)),
  constraint budget_approvals_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint budget_approvals_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint budget_approvals_property_id_fkey FOREIGN KEY (property_id) REFERENCES app.properties(id)
);
alter table app.budget_approvals enable row level security;
comment on table app.budget_approvals is 'The carrier''s approval of one home''s budget on one request (POST budget or POST options with approve_budget). Withdrawing keeps the row with approved false.';
comment on column app.budget_approvals.approved is 'True: the carrier approved the budget of this home for this request; false: approval withdrawn.';
comment on column app.budget_approvals.approved_at is 'When the budget was last approved (null while withdrawn).';
comment on column app.budget_approvals.figures is 'The budget review that was approved or withdrawn, as returned by the API (major units).';
create policy tenant_isolation on app.budget_approvals as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.budget_approvals to svc_api;

create table app.calendar_conflicts (
  id uuid default gen_random_uuid() not null,
  calendar_import_id uuid not null,
  property_id uuid not null,
  org_id uuid not null,
  environment text not null,
  lease_agreement_id uuid not null,
  start_date date not null,
  end_date date not null,
  detected_at timestamp with time zone default clock_timestamp() not null,
  resolved_at timestamp with time zone,
  constraint calendar_conflicts_pkey PRIMARY KEY (id),
  constraint calendar_conflicts_calendar_import_id_lease_agreement_id_st_key UNIQUE (calendar_import_id, lease_agreement_id, start_date, end_date),
  constraint calendar_conflicts_check CHECK ((end_date >= start_date)),
  constraint calendar_conflicts_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint calendar_conflicts_calendar_import_id_fkey FOREIGN KEY (calendar_import_id) REFERENCES app.calendar_imports(id) ON DELETE CASCADE,
  constraint calendar_conflicts_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint calendar_conflicts_property_id_org_id_fkey FOREIGN KEY (property_id, org_id) REFERENCES app.properties(id, org_id) ON DELETE CASCADE
);
alter table app.calendar_conflicts enable row level security;
comment on table app.calendar_conflicts is 'Nights an imported calendar takes that a stay booked here holds: the booking stands, a person resolves the clash.';
comment on column app.calendar_conflicts.calendar_import_id is 'The imported calendar whose range overlaps the stay.';
comment on column app.calendar_conflicts.lease_agreement_id is 'The stay here (its lease): the service hold it overlaps, held or booked.';
comment on column app.calendar_conflicts.start_date is 'First night both the feed and the stay take.';
comment on column app.calendar_conflicts.end_date is 'Last night (inclusive) both the feed and the stay take.';
comment on column app.calendar_conflicts.detected_at is 'When a fetch first found the overlap (again, after it was resolved).';
comment on column app.calendar_conflicts.resolved_at is 'When a later fetch no longer found it (the other channel dropped the nights, or the stay moved); null while open.';
CREATE INDEX calendar_conflicts_open ON app.calendar_conflicts USING btree (property_id, environment) WHERE (resolved_at IS NULL);
create policy tenant_isolation on app.calendar_conflicts as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.calendar_conflicts to svc_api;

create table app.calendar_exports (
  property_id uuid not null,
  org_id uuid not null,
  environment text not null,
  token_hash text not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  changed_at timestamp with time zone default clock_timestamp() not null,
  constraint calendar_exports_pkey PRIMARY KEY (property_id, environment),
  constraint calendar_exports_token_hash_key UNIQUE (token_hash),
  constraint calendar_exports_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint calendar_exports_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint calendar_exports_property_id_org_id_fkey FOREIGN KEY (property_id, org_id) REFERENCES app.properties(id, org_id) ON DELETE CASCADE
);
alter table app.calendar_exports enable row level security;
comment on table app.calendar_exports is 'The iCalendar export address of a home in an environment (one at most): what the other channels poll to learn the nights it is taken.';
comment on column app.calendar_exports.token_hash is 'SHA-256 (hex) of the token in the feed''s address; the token itself is shown once, when issued.';
comment on column app.calendar_exports.changed_at is 'When the home''s calendar in this environment last changed (a block added, moved or removed): the feed''s Last-Modified.';
create policy tenant_isolation on app.calendar_exports as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update, delete on table app.calendar_exports to svc_api;

create table app.calendar_imports (
  id uuid default gen_random_uuid() not null,
  property_id uuid not null,
  org_id uuid not null,
  environment text not null,
  url text not null,
  name text,
  created_at timestamp with time zone default clock_timestamp() not null,
  last_fetched_at timestamp with time zone,
  last_success_at timestamp with time zone,
  last_error text,
  consecutive_failures integer default 0 not null,
  refresh_job_id uuid,
  constraint calendar_imports_pkey PRIMARY KEY (id),
  constraint calendar_imports_property_id_environment_url_key UNIQUE (property_id, environment, url),
  constraint calendar_imports_consecutive_failures_check CHECK ((consecutive_failures >= 0)),
  constraint calendar_imports_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint calendar_imports_name_check CHECK ((length(name) <= 200)),
  constraint calendar_imports_url_check CHECK ((length(url) <= 2048)),
  constraint calendar_imports_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint calendar_imports_property_id_org_id_fkey FOREIGN KEY (property_id, org_id) REFERENCES app.properties(id, org_id) ON DELETE CASCADE,
  constraint calendar_imports_refresh_job_id_fkey FOREIGN KEY (refresh_job_id) REFERENCES app.jobs(id) ON DELETE SET NULL
);
alter table app.calendar_imports enable row level security;
comment on table app.calendar_imports is 'iCalendar addresses of a home''s other channels, fetched on a schedule into blocks of source ical.';
comment on column app.calendar_imports.url is 'The https address of the other channel''s export, as registered (normalised); only public addresses are fetched.';
comment on column app.calendar_imports.name is 'The provider''s label for the channel (Airbnb, Vrbo, …).';
comment on column app.calendar_imports.last_fetched_at is 'When a fetch last ended, well or not.';
comment on column app.calendar_imports.last_success_at is 'When the blocks were last replaced by a fetch that read the feed.';
comment on column app.calendar_imports.last_error is 'Why the last fetch failed (null after a success): the blocks of the last success stay in force.';
comment on column app.calendar_imports.consecutive_failures is 'Failed fetches since the last success.';
comment on column app.calendar_imports.refresh_job_id is 'The fetch queued last by a refresh or the registration; a refresh while it has not started queues none.';
CREATE INDEX calendar_imports_home ON app.calendar_imports USING btree (property_id, environment);
create policy tenant_isolation on app.calendar_imports as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update, delete on table app.calendar_imports to svc_api;

create table app.carrier_billing_accounts (
  org_id uuid not null,
  account_ref text not null,
  linked_at timestamp with time zone default clock_timestamp() not null,
  constraint carrier_billing_accounts_pkey PRIMARY KEY (org_id),
  constraint carrier_billing_accounts_account_ref_check CHECK (((length(account_ref) >= 1) AND (length(account_ref) <= 255))),
  constraint carrier_billing_accounts_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.carrier_billing_accounts enable row level security;
comment on table app.carrier_billing_accounts is 'The billing account a live carrier organisation is invoiced through; without one its live placements are refused (no_billing_account).';
comment on column app.carrier_billing_accounts.account_ref is 'The billing system''s reference of the account.';
comment on column app.carrier_billing_accounts.linked_at is 'When an operator linked the carrier organisation to its billing account (console: billing link).';
create policy tenant_isolation on app.carrier_billing_accounts as permissive for all to svc_api
  using ((org_id = app.current_org()));
grant select on table app.carrier_billing_accounts to svc_api;

create table app.claim_amendments (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  fields text[] not null,
  changes jsonb default '{}'::jsonb not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint claim_amendments_pkey PRIMARY KEY (id),
  constraint claim_amendments_changes_check CHECK ((jsonb_typeof(changes) = 'object'::text)),
  constraint claim_amendments_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint claim_amendments_fields_check CHECK ((cardinality(fields) > 0)),
  constraint claim_amendments_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint claim_amendments_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.claim_amendments enable row level security;
comment on table app.claim_amendments is 'Each amendment of a housing request (PATCH) that changed a field: the request.amended timeline entries.';
comment on column app.claim_amendments.fields is 'Names (as the API spells them) of every field the amendment changed, personal ones included.';
comment on column app.claim_amendments.changes is 'For the non-personal changed fields only: {"field": {"from": old, "to": new}} as the API renders them.';
CREATE INDEX claim_amendments_claim ON app.claim_amendments USING btree (claim_id, created_at);
create policy tenant_isolation on app.claim_amendments as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.claim_amendments to svc_api;

create table app.claim_documents (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  kind text not null,
  description text,
  filename text not null,
  content_type text not null,
  size_bytes integer not null,
  sha256 text not null,
  storage_key text not null,
  uploaded_via text not null,
  api_key_id uuid,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint claim_documents_pkey PRIMARY KEY (id),
  constraint claim_documents_storage_key_key UNIQUE (storage_key),
  constraint claim_documents_check CHECK (((uploaded_via = 'api'::text) = (api_key_id IS NOT NULL))),
  constraint claim_documents_description_check CHECK ((length(description) <= 500)),
  constraint claim_documents_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint claim_documents_filename_check CHECK (((length(filename) >= 1) AND (length(filename) <= 255))),
  constraint claim_documents_kind_check CHECK ((kind = ANY (ARRAY['loss_report'::text, 'policy'::text, 'identification'::text, 'lease'::text, 'invoice'::text, 'correspondence'::text, 'photo'::text, 'other'::text]))),
  constraint claim_documents_sha256_check CHECK ((sha256 ~ '^[0-9a-f]{64}$'::text)),
  constraint claim_documents_size_bytes_check CHECK ((size_bytes > 0)),
  constraint claim_documents_uploaded_via_check CHECK ((uploaded_via = ANY (ARRAY['api'::text, 'service'::text]))),
  constraint claim_documents_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES app.api_keys(id),
  constraint claim_documents_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint claim_documents_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.claim_documents enable row level security;
comment on table app.claim_documents is 'Documents filed on a request (loss report, policy, ...). The bytes live in document storage under storage_key.';
comment on column app.claim_documents.kind is 'loss_report, policy, identification, lease, invoice, correspondence, photo or other.';
comment on column app.claim_documents.filename is 'File name as uploaded.';
comment on column app.claim_documents.content_type is 'MIME type of the file.';
comment on column app.claim_documents.size_bytes is 'Size of the file.';
comment on column app.claim_documents.sha256 is 'SHA-256 (hex) of the file''s bytes.';
comment on column app.claim_documents.storage_key is 'Where the bytes are in document storage (Supabase Storage bucket or DATA_DIR/documents).';
comment on column app.claim_documents.uploaded_via is 'api: uploaded by the carrier''s integration (api_key_id set); service: filed by the service''s team.';
comment on column app.claim_documents.api_key_id is 'The key that uploaded it, for uploads through the API.';
CREATE INDEX claim_documents_claim ON app.claim_documents USING btree (claim_id, created_at);
create policy tenant_isolation on app.claim_documents as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.claim_documents to svc_api;

create table app.claim_options (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  property_id uuid not null,
  option_status text not null,
  lease_status text,
  move_in_date date,
  move_out_date date,
  added_at timestamp with time zone default clock_timestamp() not null,
  cancelled_at timestamp with time zone,
  updated_at timestamp with time zone default clock_timestamp() not null,
  application_status text default 'not_applied'::text not null,
  placed_without_recipient boolean default false not null,
  offered_at timestamp with time zone,
  adjuster_placed_at timestamp with time zone,
  committed_at timestamp with time zone,
  recipient_response text,
  decline_reason text,
  applied_at timestamp with time zone,
  application_approved_at timestamp with time zone,
  proposed_move_in date,
  proposed_move_out date,
  proposed_at timestamp with time zone,
  signer_name text,
  signer_email text,
  current_lease_id uuid,
  moved_in_at timestamp with time zone,
  booked_at timestamp with time zone,
  cancel_reason text,
  application_declined_at timestamp with time zone,
  application_decline_reason text,
  household_link_at timestamp with time zone,
  constraint claim_options_pkey PRIMARY KEY (id),
  constraint claim_options_claim_id_property_id_key UNIQUE (claim_id, property_id),
  constraint claim_options_tenant_key UNIQUE (id, org_id, environment),
  constraint claim_options_application_decline_reason_check CHECK (((length(application_decline_reason) >= 1) AND (length(application_decline_reason) <= 2000))),
  constraint claim_options_application_declined CHECK ((((application_status = 'declined'::text) = (application_declined_at IS NOT NULL)) AND ((application_declined_at IS NULL) = (application_decline_reason IS NULL)))),
  constraint claim_options_application_status CHECK ((application_status = ANY (ARRAY['not_applied'::text, 'applied'::text, 'approved_to_lease'::text, 'declined'::text]))),
  constraint claim_options_cancel_reason_check CHECK ((length(cancel_reason) <= 2000)),
  constraint claim_options_check CHECK ((move_out_date > move_in_date)),
  constraint claim_options_decline CHECK (((option_status <> 'declined'::text) OR (decline_reason IS NOT NULL))),
  constraint claim_options_decline_reason_check CHECK ((length(decline_reason) <= 2000)),
  constraint claim_options_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint claim_options_lease_status CHECK ((lease_status = ANY (ARRAY['awaiting_lease'::text, 'sent_for_signature'::text, 'policyholder_signed'::text, 'fully_signed'::text]))),
  constraint claim_options_option_status CHECK ((option_status = ANY (ARRAY['sent'::text, 'saved'::text, 'approved'::text, 'declined'::text, 'cancelled'::text]))),
  constraint claim_options_proposal CHECK ((((proposed_move_in IS NULL) = (proposed_move_out IS NULL)) AND ((proposed_move_in IS NULL) = (proposed_at IS NULL)) AND ((proposed_move_out IS NULL) OR (proposed_move_out > proposed_move_in)))),
  constraint claim_options_recipient_response_check CHECK ((recipient_response = ANY (ARRAY['saved'::text, 'rejected'::text]))),
  constraint claim_options_signer CHECK (((signer_email IS NULL) OR (signer_name IS NOT NULL))),
  constraint claim_options_signer_email_check CHECK ((length(signer_email) <= 255)),
  constraint claim_options_signer_name_check CHECK ((length(signer_name) <= 255)),
  constraint claim_options_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint claim_options_current_lease FOREIGN KEY (current_lease_id) REFERENCES app.lease_agreements(id),
  constraint claim_options_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint claim_options_property_id_fkey FOREIGN KEY (property_id) REFERENCES app.properties(id)
);
alter table app.claim_options enable row level security;
comment on table app.claim_options is 'The options: each home put on a request (POST /claims/{reference}/options), sent to the household or placed, and its way to a placement (dates, lease, booking, move-in). One row per request and home; a placement is an option placed.';
comment on column app.claim_options.option_status is 'Where the option stands with the household and the carrier: sent, saved, approved (placed), declined or cancelled.';
comment on column app.claim_options.lease_status is 'awaiting_lease, sent_for_signature, policyholder_signed or fully_signed; null: no lease started.';
comment on column app.claim_options.move_in_date is 'Agreed move-in date.';
comment on column app.claim_options.move_out_date is 'Agreed move-out date.';
comment on column app.claim_options.added_at is 'When the home was put on the request.';
comment on column app.claim_options.cancelled_at is 'When the option (and its placement, if any) was cancelled; null: still open.';
comment on column app.claim_options.application_status is 'not_applied, applied (with the landlord), approved_to_lease (dates may be set), declined (the landlord turned the application down).';
comment on column app.claim_options.placed_without_recipient is 'True when placed (action place) without involving the household.';
comment on column app.claim_options.offered_at is 'When the home was sent to the household (action send).';
comment on column app.claim_options.adjuster_placed_at is 'When the carrier last sent or placed the home through POST options.';
comment on column app.claim_options.committed_at is 'When the home was committed to this request (placed, or the application approved). The home''s nights are held only once dates are set (service holds, disjoint per home and environment).';
comment on column app.claim_options.recipient_response is 'The household''s last answer to the offer: saved or rejected (declined).';
comment on column app.claim_options.decline_reason is 'Why the household declined, in their words.';
comment on column app.claim_options.applied_at is 'When the household applied for the home it was sent.';
comment on column app.claim_options.application_approved_at is 'When the landlord approved the household''s application (send path); place approves at once.';
comment on column app.claim_options.proposed_move_in is 'Dates the household asked for instead; while set the placement waits for POST dates/approve-proposal.';
comment on column app.claim_options.proposed_move_out is 'Move-out date of the household''s open proposal.';
comment on column app.claim_options.proposed_at is 'When the household proposed different dates; the placement waits until they are approved.';
comment on column app.claim_options.signer_name is 'The named signer of the lease (action place or POST signer); null: the caller''s own team signs.';
comment on column app.claim_options.signer_email is 'The named signer''s address; null sends the lease to the carrier''s own team.';
comment on column app.claim_options.current_lease_id is 'The live contract version; superseded versions stay in app.lease_agreements.';
comment on column app.claim_options.moved_in_at is 'When the carrier confirmed the household moved in (POST confirm-move-in).';
comment on column app.claim_options.booked_at is 'When the first payment cleared and the booking was confirmed.';
comment on column app.claim_options.cancel_reason is 'The reason given with POST cancel-booking.';
comment on column app.claim_options.application_declined_at is 'When the landlord declined the household''s application.';
comment on column app.claim_options.application_decline_reason is 'Why the landlord declined, in the landlord''s words (shown to the carrier).';
comment on column app.claim_options.household_link_at is 'When the household''s link to this home was last issued (POST options with send, or a re-send); links of an earlier issue are refused.';
CREATE INDEX claim_options_applications ON app.claim_options USING btree (property_id, applied_at DESC, id DESC) WHERE (applied_at IS NOT NULL);
CREATE INDEX claim_options_by_tenant_home ON app.claim_options USING btree (org_id, environment, property_id);
CREATE INDEX claim_options_current_lease ON app.claim_options USING btree (current_lease_id) WHERE (current_lease_id IS NOT NULL);
CREATE TRIGGER claim_options_touch BEFORE UPDATE ON app.claim_options FOR EACH ROW EXECUTE FUNCTION app.claims_touch();
create policy tenant_isolation on app.claim_options as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.claim_options to svc_api;

create table app.claims (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_ref text not null,
  opened_via text default 'api'::text not null,
  external_id text,
  external_reference text,
  status_primary text default 'housing_needs_collected'::text not null,
  loss_address text not null,
  loss_city text not null,
  loss_state text not null,
  loss_zip text not null,
  loss_country text default 'US'::text not null,
  loss_lat double precision,
  loss_lng double precision,
  origin_lat double precision not null,
  origin_lng double precision not null,
  policyholder_name text,
  target_move_in date not null,
  est_length_months integer not null,
  max_budget_cents bigint,
  ale_limit_cents bigint,
  rent_payer text not null,
  deposit_payer text not null,
  fees_payer text,
  search_radius_miles integer default 25 not null,
  priority text default 'standard'::text not null,
  household_email text,
  household_phone text,
  adjuster_name text,
  adjuster_email text,
  adjuster_phone text,
  bedrooms integer not null,
  bathrooms numeric(3,1) not null,
  sqft integer not null,
  adults integer not null,
  children integer default 0 not null,
  occupants integer generated always as ((adults + children)) stored,
  property_type text not null,
  furnishing text not null,
  accessibility_needs text[] default '{}'::text[] not null,
  amenities text[] default '{}'::text[] not null,
  laundry_preference text,
  parking_preference text,
  has_pets boolean default false not null,
  number_of_pets integer,
  pet_details text,
  pet_breeds text[],
  coordinator_email text,
  created_at timestamp with time zone default clock_timestamp() not null,
  updated_at timestamp with time zone default clock_timestamp() not null,
  household_language text,
  constraint claims_pkey PRIMARY KEY (id),
  constraint claims_claim_ref_key UNIQUE (claim_ref),
  constraint claims_accessibility_needs_check CHECK ((cardinality(accessibility_needs) <= 20)),
  constraint claims_adjuster_email_check CHECK ((length(adjuster_email) <= 255)),
  constraint claims_adjuster_name_check CHECK ((length(adjuster_name) <= 255)),
  constraint claims_adjuster_phone_check CHECK ((length(adjuster_phone) <= 40)),
  constraint claims_adults_check CHECK (((adults >= 1) AND (adults <= 30))),
  constraint claims_ale_limit_cents_check CHECK ((ale_limit_cents > 0)),
  constraint claims_amenities_check CHECK ((cardinality(amenities) <= 20)),
  constraint claims_bathrooms_check CHECK ((((bathrooms >= (0)::numeric) AND (bathrooms <= (20)::numeric)) AND ((bathrooms * (2)::numeric) = trunc((bathrooms * (2)::numeric))))),
  constraint claims_bedrooms_check CHECK (((bedrooms >= 0) AND (bedrooms <= 20))),
  constraint claims_check CHECK (((has_pets = (number_of_pets IS NOT NULL)) AND (has_pets = (pet_details IS NOT NULL)) AND (has_pets = (pet_breeds IS NOT NULL)))),
  constraint claims_check1 CHECK (((loss_lat IS NULL) = (loss_lng IS NULL))),
  constraint claims_children_check CHECK (((children >= 0) AND (children <= 30))),
  constraint claims_claim_ref_check CHECK ((claim_ref ~ '^REQ-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$'::text)),
  constraint claims_coordinator_email_check CHECK ((length(coordinator_email) <= 255)),
  constraint claims_deposit_payer_check CHECK ((deposit_payer = ANY (ARRAY['carrier'::text, 'tpa'::text, 'policyholder'::text]))),
  constraint claims_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint claims_est_length_months_check CHECK (((est_length_months >= 1) AND (est_length_months <= 36))),
  constraint claims_external_id_check CHECK (((length(external_id) >= 1) AND (length(external_id) <= 255))),
  constraint claims_external_reference_check CHECK ((length(external_reference) <= 255)),
  constraint claims_fees_payer_check CHECK ((fees_payer = ANY (ARRAY['carrier'::text, 'tpa'::text, 'policyholder'::text]))),
  constraint claims_furnishing_check CHECK ((furnishing = ANY (ARRAY['furnished'::text, 'partial'::text, 'unfurnished'::text, 'any'::text]))),
  constraint claims_household_email_check CHECK ((length(household_email) <= 255)),
  constraint claims_household_language_check CHECK (((household_language IS NULL) OR (((length(household_language) >= 2) AND (length(household_language) <= 35)) AND (household_language ~ '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$'::text)))),
  constraint claims_household_phone_check CHECK ((length(household_phone) <= 40)),
  constraint claims_laundry_preference_check CHECK ((laundry_preference = ANY (ARRAY['in_unit'::text, 'on_site'::text, 'no_preference'::text]))),
  constraint claims_loss_address_check CHECK (((length(loss_address) >= 1) AND (length(loss_address) <= 255))),
  constraint claims_loss_city_check CHECK (((length(loss_city) >= 1) AND (length(loss_city) <= 255))),
  constraint claims_loss_country_check CHECK ((loss_country ~ '^[A-Z]{2}$'::text)),
  constraint claims_loss_lat_check CHECK (((loss_lat >= ('-90'::integer)::double precision) AND (loss_lat <= (90)::double precision))),
  constraint claims_loss_lng_check CHECK (((loss_lng >= ('-180'::integer)::double precision) AND (loss_lng <= (180)::double precision))),
  constraint claims_loss_state_check CHECK (((length(loss_state) >= 1) AND (length(loss_state) <= 255))),
  constraint claims_loss_zip_check CHECK (((length(loss_zip) >= 1) AND (length(loss_zip) <= 20))),
  constraint claims_max_budget_cents_check CHECK ((max_budget_cents > 0)),
  constraint claims_number_of_pets_check CHECK (((number_of_pets >= 1) AND (number_of_pets <= 20))),
  constraint claims_opened_via_check CHECK ((opened_via = ANY (ARRAY['api'::text, 'service'::text]))),
  constraint claims_origin_lat_check CHECK (((origin_lat >= ('-90'::integer)::double precision) AND (origin_lat <= (90)::double precision))),
  constraint claims_origin_lng_check CHECK (((origin_lng >= ('-180'::integer)::double precision) AND (origin_lng <= (180)::double precision))),
  constraint claims_parking_preference_check CHECK ((parking_preference = ANY (ARRAY['garage'::text, 'dedicated'::text, 'street'::text, 'no_preference'::text]))),
  constraint claims_pet_breeds_check CHECK (((cardinality(pet_breeds) >= 1) AND (cardinality(pet_breeds) <= 20))),
  constraint claims_pet_details_check CHECK ((length(pet_details) <= 2000)),
  constraint claims_policyholder_name_check CHECK ((length(policyholder_name) <= 255)),
  constraint claims_priority_check CHECK ((priority = ANY (ARRAY['standard'::text, 'high'::text, 'urgent'::text]))),
  constraint claims_property_type_check CHECK ((property_type = ANY (ARRAY['apartment'::text, 'condo'::text, 'townhouse'::text, 'house'::text, 'duplex'::text, 'any'::text]))),
  constraint claims_rent_payer_check CHECK ((rent_payer = ANY (ARRAY['carrier'::text, 'tpa'::text, 'policyholder'::text]))),
  constraint claims_search_radius_miles_check CHECK (((search_radius_miles >= 1) AND (search_radius_miles <= 150))),
  constraint claims_sqft_check CHECK (((sqft >= 100) AND (sqft <= 20000))),
  constraint claims_status_primary_check CHECK ((status_primary = ANY (ARRAY['housing_needs_collected'::text, 'housing_options_found'::text, 'options_sent'::text, 'awaiting_approval'::text, 'landlord_approval'::text, 'lease_execution'::text, 'lease_signed'::text, 'payment_setup'::text, 'booking_confirmed'::text, 'move_in_complete'::text, 'in_stay'::text, 'move_out_closeout'::text]))),
  constraint claims_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.claims enable row level security;
comment on table app.claims is 'Housing requests (the API''s /claims): a carrier''s request to house a displaced household, with the loss, the commercials and the household''s needs. Requests opened inside the service (opened_via = service) are invisible to the API.';
comment on column app.claims.claim_ref is 'The public reference, REQ- and six characters; unique across all tenants.';
comment on column app.claims.opened_via is 'api: opened by the carrier''s integration; service: opened by a coordinator inside the service (never shown by the API).';
comment on column app.claims.external_id is 'The caller''s external_id given at creation (returned as api_external_id); unique per organisation and environment.';
comment on column app.claims.external_reference is 'The carrier''s claim number or other reference.';
comment on column app.claims.status_primary is 'Where the request stands, from housing_needs_collected to move_out_closeout (shared/claims/status.ts).';
comment on column app.claims.loss_address is 'Address of the damaged home; never changes (another address is another request).';
comment on column app.claims.loss_city is 'City of the damaged home.';
comment on column app.claims.loss_state is 'State of the damaged home.';
comment on column app.claims.loss_zip is 'ZIP of the damaged home; its centroid is the origin when no coordinates are given.';
comment on column app.claims.loss_country is 'ISO country code of the damaged home.';
comment on column app.claims.loss_lat is 'Given latitude of the damaged home (with loss_lng, or neither).';
comment on column app.claims.loss_lng is 'Given longitude of the damaged home (with loss_lat, or neither).';
comment on column app.claims.origin_lat is 'Where matching measures distance from: loss_lat, else the loss ZIP''s centroid.';
comment on column app.claims.origin_lng is 'Where matching measures distance from: loss_lng, else the loss ZIP''s centroid.';
comment on column app.claims.policyholder_name is 'Name of the insured household''s policyholder.';
comment on column app.claims.target_move_in is 'Date the household needs to move in.';
comment on column app.claims.est_length_months is 'Estimated stay in months (1 to 36).';
comment on column app.claims.max_budget_cents is 'Highest monthly rent the carrier accepts, in cents.';
comment on column app.claims.ale_limit_cents is 'The policy''s Additional Living Expense limit, in cents.';
comment on column app.claims.rent_payer is 'Who pays rent: carrier, tpa or policyholder.';
comment on column app.claims.deposit_payer is 'Who pays the deposit: carrier, tpa or policyholder.';
comment on column app.claims.fees_payer is 'Who pays one-off fees: carrier, tpa or policyholder; null: not said.';
comment on column app.claims.search_radius_miles is 'Matching radius around the origin, in miles.';
comment on column app.claims.priority is 'standard, high or urgent.';
comment on column app.claims.household_email is 'Contact email of the household.';
comment on column app.claims.household_phone is 'Contact phone of the household.';
comment on column app.claims.adjuster_name is 'The carrier''s adjuster on the claim.';
comment on column app.claims.adjuster_email is 'The adjuster''s email.';
comment on column app.claims.adjuster_phone is 'The adjuster''s phone.';
comment on column app.claims.bedrooms is 'Bedrooms the household needs.';
comment on column app.claims.bathrooms is 'Bathrooms the household needs (halves allowed).';
comment on column app.claims.sqft is 'Living space the household needs, in square feet.';
comment on column app.claims.occupants is 'Computed: adults + children.';
comment on column app.claims.property_type is 'apartment, condo, townhouse, house, duplex or any.';
comment on column app.claims.furnishing is 'furnished, partial, unfurnished or any.';
comment on column app.claims.accessibility_needs is 'Accessibility needs of the household.';
comment on column app.claims.amenities is 'Amenities the household asks for.';
comment on column app.claims.laundry_preference is 'in_unit, on_site or no_preference.';
comment on column app.claims.parking_preference is 'garage, dedicated, street or no_preference.';
comment on column app.claims.has_pets is 'The household has pets; then number_of_pets, pet_details and pet_breeds are all set.';
comment on column app.claims.number_of_pets is 'Set exactly when has_pets.';
comment on column app.claims.pet_details is 'Set exactly when has_pets.';
comment on column app.claims.pet_breeds is 'Set exactly when has_pets.';
comment on column app.claims.coordinator_email is 'The coordinator assigned to this request alone; null: the organisation''s (see app.coordinator_of).';
comment on column app.claims.household_language is 'BCP 47 tag of the household''s language (es, es-PR, en-US), canonicalised by the API; null when the carrier did not state it (English emails, the page follows the browser).';
CREATE UNIQUE INDEX claims_external_id ON app.claims USING btree (org_id, environment, external_id);
CREATE INDEX claims_feed ON app.claims USING btree (org_id, environment, created_at DESC, id DESC);
CREATE UNIQUE INDEX claims_tenant_key ON app.claims USING btree (id, org_id, environment);
CREATE INDEX claims_updated ON app.claims USING btree (org_id, environment, updated_at);
CREATE TRIGGER claims_touch BEFORE UPDATE ON app.claims FOR EACH ROW EXECUTE FUNCTION app.claims_touch();
create policy tenant_isolation on app.claims as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env()) AND (opened_via = 'api'::text)))
  with check (((org_id = app.current_org()) AND (environment = app.current_env()) AND (opened_via = 'api'::text)));
grant select, insert, update on table app.claims to svc_api;

create table app.event_forwarding_cursors (
  org_id uuid not null,
  environment text not null,
  forward_to text not null,
  started_at text not null,
  "position" text not null,
  recent jsonb default '[]'::jsonb not null,
  forwarded bigint default 0 not null,
  updated_at timestamp with time zone default clock_timestamp() not null,
  constraint event_forwarding_cursors_pkey PRIMARY KEY (org_id, environment, forward_to),
  constraint event_forwarding_cursors_environment_check CHECK ((environment = 'sandbox'::text)),
  constraint event_forwarding_cursors_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id) ON DELETE CASCADE
);
alter table app.event_forwarding_cursors enable row level security;
comment on table app.event_forwarding_cursors is 'How far the console''s listen has forwarded an organisation''s sandbox event log to one local address: a restart resumes here, without loss or repeat.';
comment on column app.event_forwarding_cursors.org_id is 'The organisation whose sandbox events are forwarded.';
comment on column app.event_forwarding_cursors.environment is 'Always sandbox.';
comment on column app.event_forwarding_cursors.forward_to is 'The local address events are POSTed to, as given to listen --forward-to.';
comment on column app.event_forwarding_cursors.started_at is 'The first run''s start (the event log''s exact timestamp text): events recorded before it are never forwarded.';
comment on column app.event_forwarding_cursors."position" is 'The recording time (exact timestamp text) of the newest event forwarded, or started_at before the first.';
comment on column app.event_forwarding_cursors.recent is 'The ids and recording times of the events forwarded in the look-back before position: read again, they are not forwarded twice.';
comment on column app.event_forwarding_cursors.forwarded is 'How many events were forwarded to this address in all.';
create policy tenant_isolation on app.event_forwarding_cursors as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));

create table app.event_forwarding_secrets (
  org_id uuid not null,
  environment text not null,
  signing_secret text not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint event_forwarding_secrets_pkey PRIMARY KEY (org_id, environment),
  constraint event_forwarding_secrets_environment_check CHECK ((environment = 'sandbox'::text)),
  constraint event_forwarding_secrets_signing_secret_check CHECK ((signing_secret ~ '^whsec_[A-Za-z0-9]{32,}$'::text)),
  constraint event_forwarding_secrets_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id) ON DELETE CASCADE
);
alter table app.event_forwarding_secrets enable row level security;
comment on table app.event_forwarding_secrets is 'The signing secret the console''s listen signs an organisation''s sandbox events with when it forwards them to a local address (listen --print-secret prints it).';
comment on column app.event_forwarding_secrets.org_id is 'The organisation whose sandbox events are forwarded.';
comment on column app.event_forwarding_secrets.environment is 'Always sandbox: the forwarder never sends live events.';
comment on column app.event_forwarding_secrets.signing_secret is 'whsec_ and 32 random characters; used exactly as an endpoint''s secret is (the X-Service-Signature key).';
create policy tenant_isolation on app.event_forwarding_secrets as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));

create table app.events (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  event text not null,
  payload jsonb not null,
  simulated boolean default false not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint events_pkey PRIMARY KEY (id),
  constraint events_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint events_event_check CHECK ((event ~ '^[a-z_]+(\.[a-z_]+)*$'::text)),
  constraint events_simulated_in_sandbox CHECK (((NOT simulated) OR (environment = 'sandbox'::text))),
  constraint events_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
) with (autovacuum_vacuum_scale_factor=0.02, autovacuum_vacuum_insert_scale_factor=0.02, autovacuum_analyze_scale_factor=0.01);
alter table app.events enable row level security;
comment on table app.events is 'The events outbox and event log: everything the service announces (GET /events, webhooks). Written in the transaction of the change; kept 90 days (app.purge_expired_events).';
comment on column app.events.event is 'Event type, e.g. claim.created, placement.lease_signed (see the event registry in docs).';
comment on column app.events.payload is 'The event''s data object, as delivered in webhooks.';
comment on column app.events.simulated is 'Raised by the sandbox simulate endpoint, not by a real change; only ever in sandbox.';
CREATE INDEX events_by_type ON app.events USING btree (org_id, environment, event, created_at DESC, id DESC);
CREATE INDEX events_feed ON app.events USING btree (org_id, environment, created_at DESC, id DESC);
CREATE UNIQUE INDEX events_tenant_key ON app.events USING btree (id, org_id, environment);
CREATE TRIGGER events_fan_out AFTER INSERT ON app.events REFERENCING NEW TABLE AS recorded FOR EACH STATEMENT EXECUTE FUNCTION app.fan_out_events();
create policy tenant_isolation on app.events as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select on table app.events to svc_api;

create table app.household_responses (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_option_id uuid not null,
  action text not null,
  reason text,
  move_in date,
  move_out date,
  resolved_at timestamp with time zone,
  resolution text,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint household_responses_pkey PRIMARY KEY (id),
  constraint household_responses_action_check CHECK ((action = ANY (ARRAY['save'::text, 'decline'::text, 'apply'::text, 'propose_dates'::text]))),
  constraint household_responses_check CHECK ((((action = 'propose_dates'::text) = (move_in IS NOT NULL)) AND ((move_in IS NULL) = (move_out IS NULL)))),
  constraint household_responses_check1 CHECK (((action = 'decline'::text) = (reason IS NOT NULL))),
  constraint household_responses_check2 CHECK (((resolved_at IS NULL) = (resolution IS NULL))),
  constraint household_responses_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint household_responses_reason_check CHECK ((length(reason) <= 2000)),
  constraint household_responses_resolution_check CHECK ((resolution = ANY (ARRAY['approved'::text, 'replaced'::text]))),
  constraint household_responses_claim_option_id_org_id_environment_fkey FOREIGN KEY (claim_option_id, org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint household_responses_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.household_responses enable row level security;
comment on table app.household_responses is 'Every answer of the household to a home on its request: save, decline (with reason), apply, propose_dates.';
comment on column app.household_responses.claim_option_id is 'The option (home on the request, app.claim_options) answered.';
comment on column app.household_responses.action is 'What the household did: save, decline, apply or propose_dates.';
comment on column app.household_responses.reason is 'The household''s reason in their own words (decline).';
comment on column app.household_responses.move_in is 'Proposed move-in date (propose_dates only).';
comment on column app.household_responses.move_out is 'Proposed move-out date (propose_dates only).';
comment on column app.household_responses.resolved_at is 'When a proposal was answered (approved, or superseded by new dates).';
comment on column app.household_responses.resolution is 'How a date proposal was answered: approved (POST dates/approve-proposal) or replaced (the carrier set other dates).';
CREATE INDEX household_responses_home ON app.household_responses USING btree (claim_option_id, created_at);
create policy tenant_isolation on app.household_responses as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.household_responses to svc_api;

create table app.idempotency_keys (
  org_id uuid not null,
  environment text not null,
  key text not null,
  fingerprint text not null,
  state text not null,
  locked_until timestamp with time zone,
  response_status integer,
  response_content_type text,
  response_body text,
  created_at timestamp with time zone default now() not null,
  constraint idempotency_keys_pkey PRIMARY KEY (org_id, environment, key),
  constraint idempotency_keys_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint idempotency_keys_state CHECK ((state = ANY (ARRAY['in_progress'::text, 'applied'::text, 'done'::text])))
) with (autovacuum_vacuum_scale_factor=0.02, autovacuum_vacuum_insert_scale_factor=0.02, autovacuum_analyze_scale_factor=0.02);
alter table app.idempotency_keys enable row level security;
comment on table app.idempotency_keys is 'Idempotency-Key records of writes: the first response is stored and replayed to retries with the same key and body for 48 hours, per organisation and environment.';
comment on column app.idempotency_keys.key is 'The Idempotency-Key header sent by the caller.';
comment on column app.idempotency_keys.fingerprint is 'Method, path and hash of the body, whichever API key of the organisation and environment sent it; a retry with another one is refused (409 idempotency_key_reused).';
comment on column app.idempotency_keys.state is 'in_progress while the first request runs; applied once a write of it committed (in that write''s transaction); done once its response is stored.';
comment on column app.idempotency_keys.locked_until is 'While in_progress: until when the first request holds the key; a claim left by a worker that died is taken over after it.';
comment on column app.idempotency_keys.response_status is 'HTTP status of the stored response.';
comment on column app.idempotency_keys.response_content_type is 'Content-Type of the stored response.';
comment on column app.idempotency_keys.response_body is 'Body of the stored response, replayed to retries.';
CREATE INDEX idempotency_keys_created ON app.idempotency_keys USING btree (created_at);
create policy tenant_isolation on app.idempotency_keys as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update, delete on table app.idempotency_keys to svc_api;

create table app.jobs (
  id uuid default gen_random_uuid() not null,
  kind text not null,
  org_id uuid not null,
  environment text not null,
  payload jsonb default '{}'::jsonb not null,
  status text default 'pending'::text not null,
  attempts integer default 0 not null,
  max_attempts integer default 8 not null,
  run_at timestamp with time zone default now() not null,
  locked_until timestamp with time zone,
  lease_token uuid,
  last_error text,
  result jsonb,
  dedupe_key text,
  created_at timestamp with time zone default clock_timestamp() not null,
  completed_at timestamp with time zone,
  clock_run_at timestamp with time zone,
  constraint jobs_pkey PRIMARY KEY (id),
  constraint jobs_attempts_check CHECK ((attempts >= 0)),
  constraint jobs_check CHECK (((lease_token IS NULL) = (locked_until IS NULL))),
  constraint jobs_check1 CHECK (((status = 'pending'::text) = (completed_at IS NULL))),
  constraint jobs_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint jobs_kind_check CHECK ((kind ~ '^[a-z][a-z0-9_.]*$'::text)),
  constraint jobs_max_attempts_check CHECK ((max_attempts >= 1)),
  constraint jobs_payload_check CHECK ((jsonb_typeof(payload) = 'object'::text)),
  constraint jobs_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'abandoned'::text]))),
  constraint jobs_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.jobs enable row level security;
comment on table app.jobs is 'Durable job queue (send_contract, withdraw_contract, send_email, ...): written with the operation, drained by the scheduler that delivers webhooks, retried with backoff.';
comment on column app.jobs.kind is 'Which handler runs the job (the registry in shared/jobs/).';
comment on column app.jobs.payload is 'The job kind''s input (ids only; the handler reads the rest when it runs).';
comment on column app.jobs.status is 'pending (due at run_at), succeeded or abandoned.';
comment on column app.jobs.attempts is 'Attempts started. A failed attempt n waits the n-th step of the backoff schedule.';
comment on column app.jobs.max_attempts is 'Attempts before the job is abandoned.';
comment on column app.jobs.run_at is 'When the job is next due; while a runner holds it, when its lease runs out.';
comment on column app.jobs.locked_until is 'Set while a runner holds the job: its lease. A result is recorded only with the lease_token of the claim.';
comment on column app.jobs.lease_token is 'Identifies the runner holding the job while it runs; a runner whose lease expired cannot record an outcome.';
comment on column app.jobs.last_error is 'The error of the last failed attempt.';
comment on column app.jobs.result is 'What the handler returned (for example the provider''s message id).';
comment on column app.jobs.dedupe_key is 'A job of one kind with one key is queued once.';
comment on column app.jobs.completed_at is 'When the job succeeded or was abandoned.';
comment on column app.jobs.clock_run_at is 'For a job of an organisation on a sandbox clock: when it falls due on that clock. Until the clock reaches it, run_at is infinity.';
CREATE INDEX jobs_due ON app.jobs USING btree (run_at) WHERE (status = 'pending'::text);
CREATE INDEX jobs_on_clock ON app.jobs USING btree (org_id, clock_run_at) WHERE ((status = 'pending'::text) AND (clock_run_at IS NOT NULL));
CREATE UNIQUE INDEX jobs_once ON app.jobs USING btree (kind, dedupe_key) WHERE (dedupe_key IS NOT NULL);
CREATE INDEX jobs_tenant ON app.jobs USING btree (org_id, environment, created_at);
create policy tenant_isolation on app.jobs as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.jobs to svc_api;

create table app.lease_agreements (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_option_id uuid not null,
  claim_id uuid not null,
  property_id uuid not null,
  version integer not null,
  status text default 'awaiting_lease'::text not null,
  move_in_date date not null,
  move_out_date date not null,
  signer_name text,
  signer_email text,
  issued_by text not null,
  template text not null,
  provider_ref text,
  sent_at timestamp with time zone,
  policyholder_signed_at timestamp with time zone,
  owner_signed_at timestamp with time zone,
  superseded_at timestamp with time zone,
  superseded_by uuid,
  withdrawn_at timestamp with time zone,
  created_at timestamp with time zone default clock_timestamp() not null,
  updated_at timestamp with time zone default clock_timestamp() not null,
  terms jsonb,
  kind text default 'lease'::text not null,
  extends_lease_id uuid,
  effective_at timestamp with time zone,
  withdrawal_reason text,
  constraint lease_agreements_pkey PRIMARY KEY (id),
  constraint lease_agreements_claim_option_id_version_key UNIQUE (claim_option_id, version),
  constraint lease_agreements_addendum CHECK (((kind = 'addendum'::text) = (extends_lease_id IS NOT NULL))),
  constraint lease_agreements_check CHECK ((move_out_date > move_in_date)),
  constraint lease_agreements_check1 CHECK (((status = 'superseded'::text) = (superseded_at IS NOT NULL))),
  constraint lease_agreements_check2 CHECK (((status = 'withdrawn'::text) = (withdrawn_at IS NOT NULL))),
  constraint lease_agreements_check3 CHECK (((status = ANY (ARRAY['awaiting_lease'::text, 'superseded'::text, 'withdrawn'::text])) OR (sent_at IS NOT NULL))),
  constraint lease_agreements_check4 CHECK (((status <> ALL (ARRAY['policyholder_signed'::text, 'fully_signed'::text])) OR (policyholder_signed_at IS NOT NULL))),
  constraint lease_agreements_check5 CHECK (((status <> 'fully_signed'::text) OR (owner_signed_at IS NOT NULL))),
  constraint lease_agreements_effective CHECK (((effective_at IS NULL) OR ((kind = 'addendum'::text) AND (status = 'fully_signed'::text)))),
  constraint lease_agreements_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint lease_agreements_issued_by CHECK (((issued_by = ANY (ARRAY['dates'::text, 'approve_proposal'::text, 'signer'::text, 'extension'::text])) AND ((issued_by = 'extension'::text) = (kind = 'addendum'::text)))),
  constraint lease_agreements_kind_check CHECK ((kind = ANY (ARRAY['lease'::text, 'addendum'::text]))),
  constraint lease_agreements_status_check CHECK ((status = ANY (ARRAY['awaiting_lease'::text, 'sent_for_signature'::text, 'policyholder_signed'::text, 'fully_signed'::text, 'superseded'::text, 'withdrawn'::text]))),
  constraint lease_agreements_template_check CHECK ((template = ANY (ARRAY['standard'::text, 'own'::text]))),
  constraint lease_agreements_version_check CHECK ((version >= 1)),
  constraint lease_agreements_withdrawal_reason CHECK (((withdrawal_reason IS NULL) OR (status = 'withdrawn'::text))),
  constraint lease_agreements_withdrawal_reason_check CHECK ((withdrawal_reason = ANY (ARRAY['declined'::text, 'lapsed'::text, 'cancelled'::text, 'stay_shortened'::text]))),
  constraint lease_agreements_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint lease_agreements_claim_option_id_org_id_environment_fkey FOREIGN KEY (claim_option_id, org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint lease_agreements_extends_lease_id_fkey FOREIGN KEY (extends_lease_id) REFERENCES app.lease_agreements(id),
  constraint lease_agreements_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint lease_agreements_property_id_fkey FOREIGN KEY (property_id) REFERENCES app.properties(id),
  constraint lease_agreements_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES app.lease_agreements(id)
);
alter table app.lease_agreements enable row level security;
comment on table app.lease_agreements is 'Contract versions of a placement. status follows the lease state machine (shared/placements/states.ts); superseded and withdrawn versions are kept.';
comment on column app.lease_agreements.claim_option_id is 'The option (app.claim_options) this contract version places.';
comment on column app.lease_agreements.version is '1 for the first contract of the placement, then 2, 3, ... for each version that supersedes the previous one.';
comment on column app.lease_agreements.status is 'awaiting_lease, sent_for_signature, policyholder_signed, fully_signed; superseded or withdrawn for versions no longer live.';
comment on column app.lease_agreements.move_in_date is 'Move-in date written into this contract version.';
comment on column app.lease_agreements.move_out_date is 'Move-out date written into this contract version.';
comment on column app.lease_agreements.signer_name is 'Who signs first: the named signer, or the carrier''s own team (null name: the team).';
comment on column app.lease_agreements.signer_email is 'Address the contract goes to for the first signature.';
comment on column app.lease_agreements.issued_by is 'The call that issued this version: dates (POST dates), approve_proposal, signer, extension (an addendum).';
comment on column app.lease_agreements.template is 'The home''s contract template when issued: standard goes out automatically; own waits for the landlord''s own lease.';
comment on column app.lease_agreements.provider_ref is 'The e-signature provider''s id of the envelope; callbacks are matched by it.';
comment on column app.lease_agreements.sent_at is 'When the e-signature provider sent this version to the first signer.';
comment on column app.lease_agreements.policyholder_signed_at is 'First signature (the household or the named signer).';
comment on column app.lease_agreements.owner_signed_at is 'The landlord''s countersignature.';
comment on column app.lease_agreements.superseded_at is 'When new dates, a proposal or a signer change replaced this version.';
comment on column app.lease_agreements.superseded_by is 'The version that replaced this one.';
comment on column app.lease_agreements.withdrawn_at is 'When the version was withdrawn by a cancellation (its signature links stop).';
comment on column app.lease_agreements.terms is 'The priced terms this version was issued with (home: rates per tier, fees, deposits, utilities, pets policy, currency, name; request: has_pets), frozen: every charge of the version is priced from them. Null on versions issued before terms were recorded.';
comment on column app.lease_agreements.kind is 'lease: a contract version of the stay; addendum: an extension of the signed lease, covering the added nights.';
comment on column app.lease_agreements.extends_lease_id is 'For an addendum: the signed lease it extends.';
comment on column app.lease_agreements.effective_at is 'For an addendum: when its payment cleared and the stay took its move-out. Null: not (yet) in effect.';
comment on column app.lease_agreements.withdrawal_reason is 'For a withdrawn addendum: declined (by the landlord), lapsed (unsigned or unpaid when the stay ended), cancelled (the placement was) or stay_shortened (the stay was shortened before the extension took effect). Set with the withdrawal, never changed; null before it was recorded.';
CREATE INDEX lease_agreements_claim ON app.lease_agreements USING btree (claim_id, created_at);
CREATE UNIQUE INDEX lease_agreements_one_live ON app.lease_agreements USING btree (claim_option_id) WHERE ((kind = 'lease'::text) AND (status <> ALL (ARRAY['superseded'::text, 'withdrawn'::text])));
CREATE UNIQUE INDEX lease_agreements_one_open_addendum ON app.lease_agreements USING btree (claim_option_id) WHERE ((kind = 'addendum'::text) AND (effective_at IS NULL) AND (status <> ALL (ARRAY['superseded'::text, 'withdrawn'::text])));
CREATE UNIQUE INDEX lease_agreements_provider_ref ON app.lease_agreements USING btree (provider_ref) WHERE (provider_ref IS NOT NULL);
CREATE TRIGGER lease_agreements_touch BEFORE UPDATE ON app.lease_agreements FOR EACH ROW EXECUTE FUNCTION app.claims_touch();
CREATE TRIGGER lease_status_follow AFTER INSERT OR UPDATE OF status ON app.lease_agreements FOR EACH ROW EXECUTE FUNCTION app.lease_status_follow();
CREATE TRIGGER lease_terms_frozen BEFORE UPDATE OF terms ON app.lease_agreements FOR EACH ROW EXECUTE FUNCTION app.lease_terms_frozen();
CREATE TRIGGER lease_withdrawal_reason_frozen BEFORE UPDATE OF withdrawal_reason ON app.lease_agreements FOR EACH ROW EXECUTE FUNCTION app.withdrawal_reason_frozen();
create policy tenant_isolation on app.lease_agreements as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.lease_agreements to svc_api;

create table app.ledger_entries (
  id uuid default gen_random_uuid() not null,
  "position" bigint generated always as identity not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  claim_option_id uuid not null,
  property_id uuid not null,
  lease_agreement_id uuid not null,
  charge_type text not null,
  period_start date not null,
  part text not null,
  line text not null,
  kind text not null,
  cause text not null,
  adjusts uuid,
  posted_for uuid,
  nights_from date,
  nights_to date,
  monthly_cents bigint,
  billing_start date,
  billing_days integer,
  amount_cents bigint not null,
  currency text not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  payer text,
  payment_id uuid,
  refund_request_id uuid,
  debit_account text generated always as (
CASE
    WHEN (kind = 'fee'::text) THEN 'landlord_rent'::text
    ELSE ('payer_'::text || part)
END) stored not null,
  credit_account text generated always as (
CASE
    WHEN (kind = 'fee'::text) THEN 'service_fee'::text
    WHEN (kind = ANY (ARRAY['payment'::text, 'refund'::text])) THEN 'processor'::text
    WHEN (part = 'deposit'::text) THEN 'deposits_held'::text
    ELSE ('landlord_'::text || part)
END) stored not null,
  posted_on date,
  constraint ledger_entries_pkey PRIMARY KEY (id),
  constraint ledger_entries_adjusts CHECK (((kind = ANY (ARRAY['charge'::text, 'payment'::text, 'refund'::text, 'fee'::text])) = (adjusts IS NULL))),
  constraint ledger_entries_cause_check CHECK ((cause = ANY (ARRAY['signed'::text, 'shortened'::text, 'extended'::text, 'lapsed'::text, 'cancelled'::text, 'paid'::text, 'refunded'::text, 'duplicate'::text, 'deposit_returned'::text, 'goodwill'::text]))),
  constraint ledger_entries_charge_type_check CHECK ((charge_type = ANY (ARRAY['initial'::text, 'rent'::text, 'extension'::text]))),
  constraint ledger_entries_check1 CHECK ((((nights_from IS NULL) = (nights_to IS NULL)) AND ((nights_from IS NULL) OR (nights_from < nights_to)))),
  constraint ledger_entries_check2 CHECK (((nights_from IS NULL) OR ((monthly_cents IS NOT NULL) AND (billing_start IS NOT NULL) AND (billing_days > 0)))),
  constraint ledger_entries_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint ledger_entries_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint ledger_entries_kind_check CHECK ((kind = ANY (ARRAY['charge'::text, 'release'::text, 'restore'::text, 'reversal'::text, 'transfer'::text, 'payment'::text, 'refund'::text, 'fee'::text]))),
  constraint ledger_entries_part_check CHECK ((part = ANY (ARRAY['rent'::text, 'deposit'::text, 'fees'::text]))),
  constraint ledger_entries_payer_check CHECK ((payer = ANY (ARRAY['carrier'::text, 'tpa'::text, 'policyholder'::text]))),
  constraint ledger_entries_settlement CHECK ((((kind = ANY (ARRAY['payment'::text, 'refund'::text, 'fee'::text])) = (payment_id IS NOT NULL)) AND ((kind = ANY (ARRAY['payment'::text, 'refund'::text])) = (payer IS NOT NULL)) AND (((kind = 'refund'::text) OR ((kind = 'release'::text) AND (cause = ANY (ARRAY['deposit_returned'::text, 'goodwill'::text]))) OR ((kind = 'fee'::text) AND (cause = ANY (ARRAY['refunded'::text, 'duplicate'::text])) AND (amount_cents < 0))) = (refund_request_id IS NOT NULL)) AND ((kind <> 'payment'::text) OR (amount_cents <= 0)) AND ((kind <> 'refund'::text) OR (amount_cents >= 0)) AND ((kind <> 'fee'::text) OR ((part = 'rent'::text) AND (amount_cents <> 0))))),
  constraint ledger_entries_sign CHECK (
CASE
    WHEN (kind = ANY (ARRAY['charge'::text, 'restore'::text])) THEN (amount_cents >= 0)
    WHEN (kind = 'release'::text) THEN (amount_cents <= 0)
    WHEN (kind = 'reversal'::text) THEN ((amount_cents <= 0) OR (cause = 'cancelled'::text))
    ELSE true
END),
  constraint ledger_entries_adjusts_fkey FOREIGN KEY (adjusts) REFERENCES app.ledger_entries(id),
  constraint ledger_entries_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint ledger_entries_claim_option_id_org_id_environment_fkey FOREIGN KEY (claim_option_id, org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint ledger_entries_lease_agreement_id_fkey FOREIGN KEY (lease_agreement_id) REFERENCES app.lease_agreements(id),
  constraint ledger_entries_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint ledger_entries_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES app.payments(id),
  constraint ledger_entries_posted_for_fkey FOREIGN KEY (posted_for) REFERENCES app.lease_agreements(id),
  constraint ledger_entries_property_id_fkey FOREIGN KEY (property_id) REFERENCES app.properties(id),
  constraint ledger_entries_refund_request_id_fkey FOREIGN KEY (refund_request_id) REFERENCES app.refund_request_asks(id)
) with (autovacuum_vacuum_insert_scale_factor=0.02, autovacuum_analyze_scale_factor=0.02);
alter table app.ledger_entries enable row level security;
comment on table app.ledger_entries is 'The posted money of a stay (shared/placements/ledger.ts): charges when a contract version is signed by both, releases when a stay is shortened or an extension lapses, restores (and transfers) when it is extended over nights released before, reversals when a placement is cancelled. Append-only.';
comment on column app.ledger_entries."position" is 'Posting order: the statement lists entries by it, and the nights an entry still charges follow its adjustments in it.';
comment on column app.ledger_entries.claim_option_id is 'The option (home on a request, app.claim_options) whose stay the entry belongs to.';
comment on column app.ledger_entries.lease_agreement_id is 'The contract version whose charge this entry belongs to, and whose signed terms priced it.';
comment on column app.ledger_entries.charge_type is 'initial (the first payment), rent (a later billing period) or extension (an addendum''s added nights).';
comment on column app.ledger_entries.period_start is 'With lease_agreement_id and charge_type, the charge a payer pays (app.payments.period_start).';
comment on column app.ledger_entries.part is 'The part of the charge (rent, deposit, fees), each paid by the request''s payer of it.';
comment on column app.ledger_entries.line is 'What the amount is: Rent, Pet rent, Utilities, a one-off fee or a deposit.';
comment on column app.ledger_entries.kind is 'charge (posted when signed), release (nights given back; a deposit returned; goodwill given), restore (released nights taken back by an extension), reversal (a cancellation), transfer (what a restore put on a part already paid beyond what was settled for it, moved to the extension''s charge, and moved back when those nights go again), payment (a payer paid the part: negative), refund (money returned to the payer on the part: positive), fee (the service''s fee on rent: taken with a payment, positive; returned with a refund, negative).';
comment on column app.ledger_entries.cause is 'What posted it: signed, shortened, extended, lapsed, cancelled; paid (a payment), refunded (a refund), duplicate (a second charge and its automatic refund), deposit_returned and goodwill (what a refund of those gives back).';
comment on column app.ledger_entries.adjusts is 'The charge entry a release, restore or reversal changes.';
comment on column app.ledger_entries.posted_for is 'The contract version whose signing posted the entry (its charges, and the restores and transfers of an extension); null for a release or reversal.';
comment on column app.ledger_entries.nights_from is 'The first night covered; null for a one-off fee or a deposit.';
comment on column app.ledger_entries.nights_to is 'The day after the last night covered (nights are [nights_from, nights_to)); null for a one-off fee or a deposit.';
comment on column app.ledger_entries.monthly_cents is 'The monthly amount the nights were priced from (the signed tier''s rent, pet rent or utilities).';
comment on column app.ledger_entries.billing_start is 'The first day of the billing period the nights were priced in.';
comment on column app.ledger_entries.billing_days is 'The days of that billing period''s whole month: n of its nights cost round(monthly_cents * n / billing_days).';
comment on column app.ledger_entries.amount_cents is 'Positive: owed by the payer; negative: given back.';
comment on column app.ledger_entries.payer is 'Who paid, or was refunded (a payment or refund entry).';
comment on column app.ledger_entries.payment_id is 'The processor payment a payment or refund entry moved money on.';
comment on column app.ledger_entries.refund_request_id is 'The refund request a refund entry (and a release for a deposit returned or goodwill) belongs to.';
comment on column app.ledger_entries.debit_account is 'The account the entry debits with amount_cents (generated from kind and part): payer_rent, payer_fees, payer_deposit (what that part''s payer owes), landlord_rent (the service fee).';
comment on column app.ledger_entries.credit_account is 'The account the entry credits with amount_cents (generated from kind and part): landlord_rent, landlord_fees, deposits_held, processor, service_fee.';
comment on column app.ledger_entries.posted_on is 'The day the entry was posted on the organisation''s clock (app.clock_now(), in UTC): the day of the change that posted it. Null for entries posted before the column existed (then created_at''s day).';
CREATE UNIQUE INDEX ledger_entries_fee_returned_once ON app.ledger_entries USING btree (refund_request_id) WHERE (kind = 'fee'::text);
CREATE UNIQUE INDEX ledger_entries_fee_taken_once ON app.ledger_entries USING btree (payment_id) WHERE ((kind = 'fee'::text) AND (refund_request_id IS NULL));
CREATE UNIQUE INDEX ledger_entries_paid_once ON app.ledger_entries USING btree (payment_id, part) WHERE (kind = 'payment'::text);
CREATE INDEX ledger_entries_placement ON app.ledger_entries USING btree (claim_option_id, "position");
CREATE UNIQUE INDEX ledger_entries_posted_once ON app.ledger_entries USING btree (lease_agreement_id, period_start, line, billing_start) NULLS NOT DISTINCT WHERE ((kind = 'charge'::text) AND (cause = 'signed'::text));
CREATE UNIQUE INDEX ledger_entries_refunded_once ON app.ledger_entries USING btree (refund_request_id, lease_agreement_id, charge_type, period_start, part) WHERE (kind = 'refund'::text);
CREATE UNIQUE INDEX ledger_entries_released_once ON app.ledger_entries USING btree (refund_request_id, adjusts) WHERE ((kind = 'release'::text) AND (cause = ANY (ARRAY['deposit_returned'::text, 'goodwill'::text])));
create policy tenant_isolation on app.ledger_entries as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.ledger_entries to svc_api;

create table app.org_coordinators (
  org_id uuid not null,
  email text not null,
  assigned_at timestamp with time zone default clock_timestamp() not null,
  constraint org_coordinators_pkey PRIMARY KEY (org_id),
  constraint org_coordinators_email_check CHECK (((length(email) >= 3) AND (length(email) <= 255))),
  constraint org_coordinators_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.org_coordinators enable row level security;
comment on table app.org_coordinators is 'Each carrier''s default coordinator for its live requests: the service''s staff member who sources homes (set with `admin coordinator assign`).';
comment on column app.org_coordinators.email is 'The coordinator''s email.';
comment on column app.org_coordinators.assigned_at is 'When the coordinator was assigned.';
create policy tenant_isolation on app.org_coordinators as permissive for all to svc_api
  using ((org_id = app.current_org()));
grant select on table app.org_coordinators to svc_api;

create table app.organisations (
  id uuid default gen_random_uuid() not null,
  name text not null,
  side text not null,
  created_at timestamp with time zone default now() not null,
  contact_email text,
  constraint organisations_pkey PRIMARY KEY (id),
  constraint organisations_contact_email_check CHECK (((length(contact_email) >= 3) AND (length(contact_email) <= 255))),
  constraint organisations_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200))),
  constraint organisations_side_check CHECK ((side = ANY (ARRAY['carrier'::text, 'provider'::text])))
);
alter table app.organisations enable row level security;
comment on table app.organisations is 'Customers of the service: carriers (insurers and their TPAs, who open housing requests) and providers (landlords, who list homes). Created with the operator console.';
comment on column app.organisations.side is 'carrier (opens housing requests) or provider (lists homes); decides which scopes its keys may have.';
comment on column app.organisations.contact_email is 'Where the service writes to the organisation: landlord notices for a provider, the signer of a lease placed without a named signer for a carrier. Set with the operator console (org contact).';
create policy tenant_isolation on app.organisations as permissive for all to svc_api
  using ((id = app.current_org()));
grant select on table app.organisations to svc_api;

create table app.payment_failures (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  property_id uuid not null,
  payment_id uuid not null,
  charge_type text not null,
  payer text,
  amount_cents bigint not null,
  currency text not null,
  failure_reason text,
  failed_at timestamp with time zone default clock_timestamp() not null,
  constraint payment_failures_pkey PRIMARY KEY (id),
  constraint payment_failures_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint payment_failures_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint payment_failures_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint payment_failures_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES app.payments(id)
);
alter table app.payment_failures enable row level security;
comment on table app.payment_failures is 'Every charge that failed at the processor (or in the sandbox helper), as it failed; written by trigger with the payment''s move to failed. Append-only: the payment may later settle (the same processor payment retried), this row stays.';
comment on column app.payment_failures.org_id is 'The carrier organisation whose request the charge was for.';
comment on column app.payment_failures.payment_id is 'The payment record (its status now may be succeeded: a later success of the same processor payment).';
comment on column app.payment_failures.charge_type is 'The charge the failed payment was for: initial, rent or extension.';
comment on column app.payment_failures.payer is 'Whose share the failed payment was (null on payments recorded before charges were split by payer).';
comment on column app.payment_failures.amount_cents is 'What the failed charge was for.';
comment on column app.payment_failures.failure_reason is 'Why it failed, as the processor said.';
comment on column app.payment_failures.failed_at is 'When the failure was recorded.';
CREATE INDEX payment_failures_claim ON app.payment_failures USING btree (claim_id, failed_at);
create policy tenant_isolation on app.payment_failures as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select on table app.payment_failures to svc_api;

create table app.payments (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  property_id uuid not null,
  booking_id uuid,
  carrier_org_id uuid,
  claim_id uuid,
  lease_agreement_id uuid,
  charge_type text default 'initial'::text not null,
  status text not null,
  rent_cents bigint default 0 not null,
  deposit_cents bigint default 0 not null,
  fees_cents bigint default 0 not null,
  gross_cents bigint generated always as (((rent_cents + deposit_cents) + fees_cents)) stored,
  platform_fee_cents bigint default 0 not null,
  processing_fee_cents bigint default 0 not null,
  net_cents bigint generated always as (((((rent_cents + deposit_cents) + fees_cents) - platform_fee_cents) - processing_fee_cents)) stored,
  currency text default 'usd'::text not null,
  paid_at timestamp with time zone,
  failure_reason text,
  created_at timestamp with time zone default clock_timestamp() not null,
  provider_ref text,
  claim_option_id uuid,
  covers_rent boolean generated always as ((rent_cents > 0)) stored,
  covers_deposit boolean generated always as ((deposit_cents > 0)) stored,
  period_start date,
  period_end date,
  refunded_cents bigint default 0 not null,
  refunded_at timestamp with time zone,
  payer text,
  checkout_ref text,
  checkout_url text,
  checkout_expires_at timestamp with time zone,
  duplicate_of uuid,
  constraint payments_pkey PRIMARY KEY (id),
  constraint payments_charge_type CHECK ((charge_type = ANY (ARRAY['initial'::text, 'rent'::text, 'deposit'::text, 'fee'::text, 'extension'::text]))),
  constraint payments_check CHECK (((platform_fee_cents >= 0) AND (platform_fee_cents <= rent_cents))),
  constraint payments_checkout_ref_check CHECK (((length(checkout_ref) >= 1) AND (length(checkout_ref) <= 255))),
  constraint payments_checkout_url_check CHECK (((length(checkout_url) >= 1) AND (length(checkout_url) <= 2048))),
  constraint payments_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint payments_deposit_cents_check CHECK ((deposit_cents >= 0)),
  constraint payments_duplicate_settled CHECK (((duplicate_of IS NULL) OR (status = ANY (ARRAY['succeeded'::text, 'refunded'::text])))),
  constraint payments_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint payments_fees_cents_check CHECK ((fees_cents >= 0)),
  constraint payments_paid_when_settled CHECK (((status = ANY (ARRAY['pending'::text, 'failed'::text])) = (paid_at IS NULL))),
  constraint payments_payer_check CHECK ((payer = ANY (ARRAY['carrier'::text, 'tpa'::text, 'policyholder'::text]))),
  constraint payments_period CHECK ((((period_start IS NULL) = (period_end IS NULL)) AND ((period_end IS NULL) OR (period_end >= period_start)))),
  constraint payments_processing_fee_cents_check CHECK ((processing_fee_cents >= 0)),
  constraint payments_provider_ref_check CHECK (((length(provider_ref) >= 1) AND (length(provider_ref) <= 255))),
  constraint payments_refund CHECK (((refunded_cents <= ((rent_cents + deposit_cents) + fees_cents)) AND ((status = 'refunded'::text) = (refunded_at IS NOT NULL)))),
  constraint payments_refunded_cents_check CHECK ((refunded_cents >= 0)),
  constraint payments_rent_cents_check CHECK ((rent_cents >= 0)),
  constraint payments_status CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text, 'refunded'::text]))),
  constraint payments_booking_id_fkey FOREIGN KEY (booking_id) REFERENCES app.bookings(id),
  constraint payments_carrier_org_id_fkey FOREIGN KEY (carrier_org_id) REFERENCES app.organisations(id),
  constraint payments_claim FOREIGN KEY (claim_id) REFERENCES app.claims(id),
  constraint payments_claim_option FOREIGN KEY (claim_option_id, carrier_org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint payments_duplicate_of_fkey FOREIGN KEY (duplicate_of) REFERENCES app.payments(id),
  constraint payments_lease FOREIGN KEY (lease_agreement_id) REFERENCES app.lease_agreements(id),
  constraint payments_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint payments_property_id_org_id_fkey FOREIGN KEY (property_id, org_id) REFERENCES app.properties(id, org_id)
);
alter table app.payments enable row level security;
comment on table app.payments is 'Each charge on the provider''s own processor account for a booking. Amounts in cents; gross and net are computed.';
comment on column app.payments.org_id is 'The provider paid.';
comment on column app.payments.carrier_org_id is 'The carrier whose placement the charge is for; it reads the payment too.';
comment on column app.payments.lease_agreement_id is 'The lease agreement charged for.';
comment on column app.payments.charge_type is 'initial (first charge at placement), rent, deposit, fee, or extension (the added nights of an extended stay, with its addendum as lease_agreement_id).';
comment on column app.payments.status is 'succeeded, failed or refunded.';
comment on column app.payments.rent_cents is 'Rent part of the charge.';
comment on column app.payments.deposit_cents is 'Deposit part of the charge.';
comment on column app.payments.fees_cents is 'One-off fees part of the charge.';
comment on column app.payments.gross_cents is 'Computed: rent + deposit + fees.';
comment on column app.payments.platform_fee_cents is 'The service''s fee, taken from rent only.';
comment on column app.payments.processing_fee_cents is 'The card processor''s fee on the whole charge.';
comment on column app.payments.net_cents is 'Computed: gross minus platform and processing fees; what reaches the provider.';
comment on column app.payments.paid_at is 'When the charge succeeded; null exactly when it failed.';
comment on column app.payments.failure_reason is 'The processor''s reason for a failed charge.';
comment on column app.payments.provider_ref is 'The processor''s id of the payment (a PaymentIntent); sandbox payments get a sandbox_ reference.';
comment on column app.payments.claim_option_id is 'The option (home on a request, app.claim_options) the charge pays for.';
comment on column app.payments.covers_rent is 'Whether the charge includes rent (the platform fee is taken from rent only).';
comment on column app.payments.covers_deposit is 'Whether the charge includes refundable deposits.';
comment on column app.payments.period_start is 'First day of the stay the charge pays for (the first payment: move-in).';
comment on column app.payments.period_end is 'Last day of the stay the charge pays for.';
comment on column app.payments.refunded_cents is 'How much of the charge was refunded on the landlord''s account (with the platform fee).';
comment on column app.payments.refunded_at is 'When the refund was issued; set together with status refunded.';
comment on column app.payments.payer is 'Who paid this share of the charge (the request''s payer of its parts); null on payments recorded before charges were split by payer.';
comment on column app.payments.checkout_ref is 'The processor''s checkout of a pay-page attempt (cs_...).';
comment on column app.payments.checkout_url is 'Where the payer pays the attempt; a second submission while it is open is sent here again.';
comment on column app.payments.checkout_expires_at is 'When the attempt''s checkout stops taking payment.';
comment on column app.payments.duplicate_of is 'A charge that cleared for parts of a period this other payment had already paid: kept, counted for nothing, refunded automatically.';
CREATE INDEX payments_booking ON app.payments USING btree (booking_id, created_at);
CREATE INDEX payments_claim ON app.payments USING btree (claim_id) WHERE (claim_id IS NOT NULL);
CREATE INDEX payments_claim_option ON app.payments USING btree (claim_option_id, created_at) WHERE (claim_option_id IS NOT NULL);
CREATE INDEX payments_lease ON app.payments USING btree (lease_agreement_id) WHERE (lease_agreement_id IS NOT NULL);
CREATE UNIQUE INDEX payments_one_open_checkout ON app.payments USING btree (claim_option_id, period_start, payer) WHERE (status = 'pending'::text);
CREATE UNIQUE INDEX payments_one_per_charge_deposit ON app.payments USING btree (claim_option_id, lease_agreement_id, charge_type, period_start) NULLS NOT DISTINCT WHERE ((status = ANY (ARRAY['succeeded'::text, 'refunded'::text])) AND (claim_option_id IS NOT NULL) AND (deposit_cents > 0) AND (duplicate_of IS NULL));
CREATE UNIQUE INDEX payments_one_per_charge_fees ON app.payments USING btree (claim_option_id, lease_agreement_id, charge_type, period_start) NULLS NOT DISTINCT WHERE ((status = ANY (ARRAY['succeeded'::text, 'refunded'::text])) AND (claim_option_id IS NOT NULL) AND (fees_cents > 0) AND (duplicate_of IS NULL));
CREATE UNIQUE INDEX payments_one_per_charge_rent ON app.payments USING btree (claim_option_id, lease_agreement_id, charge_type, period_start) NULLS NOT DISTINCT WHERE ((status = ANY (ARRAY['succeeded'::text, 'refunded'::text])) AND (claim_option_id IS NOT NULL) AND (rent_cents > 0) AND (duplicate_of IS NULL));
CREATE INDEX payments_provider ON app.payments USING btree (org_id, environment, created_at DESC);
CREATE UNIQUE INDEX payments_provider_ref ON app.payments USING btree (environment, provider_ref) WHERE (provider_ref IS NOT NULL);
CREATE TRIGGER payments_failure_recorded AFTER INSERT OR UPDATE OF status ON app.payments FOR EACH ROW WHEN ((new.status = 'failed'::text)) EXECUTE FUNCTION app.record_payment_failure();
create policy counterpart_insert on app.payments as permissive for insert to svc_api
  with check (((carrier_org_id = app.current_org()) AND (environment = app.current_env())));
create policy counterpart_read on app.payments as permissive for select to svc_api
  using (((carrier_org_id = app.current_org()) AND (environment = app.current_env())));
create policy counterpart_update on app.payments as permissive for update to svc_api
  using (((carrier_org_id = app.current_org()) AND (environment = app.current_env())));
create policy tenant_isolation on app.payments as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.payments to svc_api;

create table app.payout_accounts (
  org_id uuid not null,
  environment text not null,
  connected boolean not null,
  charges_enabled boolean not null,
  payouts_enabled boolean not null,
  onboarding_status text not null,
  bank_account_last4 text,
  processor_account_id text,
  updated_at timestamp with time zone default clock_timestamp() not null,
  constraint payout_accounts_pkey PRIMARY KEY (org_id, environment),
  constraint payout_accounts_bank_account_last4_check CHECK ((bank_account_last4 ~ '^[0-9]{4}$'::text)),
  constraint payout_accounts_check CHECK ((connected OR (NOT (charges_enabled OR payouts_enabled)))),
  constraint payout_accounts_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint payout_accounts_onboarding_status_check CHECK ((onboarding_status = ANY (ARRAY['not_started'::text, 'pending'::text, 'complete'::text]))),
  constraint payout_accounts_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.payout_accounts enable row level security;
comment on table app.payout_accounts is 'A provider''s payout account state per environment, as the payment processor reports it. No row: the environment''s starting state (see app.payout_status).';
comment on column app.payout_accounts.connected is 'The provider has connected a processor account.';
comment on column app.payout_accounts.charges_enabled is 'The account can take charges; until then no family is placed in the provider''s homes.';
comment on column app.payout_accounts.payouts_enabled is 'The processor pays out to the provider''s bank account.';
comment on column app.payout_accounts.onboarding_status is 'not_started, pending or complete: the provider''s onboarding with the processor.';
comment on column app.payout_accounts.bank_account_last4 is 'Last four digits of the payout bank account.';
comment on column app.payout_accounts.processor_account_id is 'The payment processor''s id of the connected account.';
create policy tenant_isolation on app.payout_accounts as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.payout_accounts to svc_api;

create table app.processor_events (
  event_id text not null,
  type text not null,
  connected_account text,
  environment text,
  outcome text not null,
  received_at timestamp with time zone default clock_timestamp() not null,
  constraint processor_events_pkey PRIMARY KEY (event_id),
  constraint processor_events_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint processor_events_event_id_check CHECK (((length(event_id) >= 1) AND (length(event_id) <= 255)))
);
alter table app.processor_events enable row level security;
comment on table app.processor_events is 'Every payment-processor notification the service received and verified, once per processor event id (idempotency of the notifications endpoint).';
comment on column app.processor_events.event_id is 'The processor''s event id (evt_...): the deduplication key.';
comment on column app.processor_events.type is 'The processor''s event type (payment_intent.succeeded, charge.refunded, ...).';
comment on column app.processor_events.connected_account is 'The landlord''s connected account the event is about, when it is about one.';
comment on column app.processor_events.outcome is 'What the service did: applied, ignored (and why), or the state that made it a no-op.';
comment on column app.processor_events.received_at is 'When the payment processor''s notification was first processed; a repeat is ignored.';

create table app.properties (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  external_id text,
  name text,
  address text not null,
  city text not null,
  state text not null,
  zip_code text not null,
  latitude double precision,
  longitude double precision,
  currency text default 'usd'::text not null,
  monthly_rate_cents bigint not null,
  rent_1_3_months_cents bigint,
  rent_4_6_months_cents bigint,
  rent_7_9_months_cents bigint,
  rent_10_12_months_cents bigint,
  bedrooms integer not null,
  bathrooms numeric(4,1) not null,
  sqft integer,
  furnished_status text,
  available_from date,
  security_deposit_cents bigint,
  cleaning_fee_cents bigint,
  application_fee_cents bigint,
  pet_fee_cents bigint,
  pet_rent_cents bigint,
  pet_deposit_cents bigint,
  utilities_included boolean,
  utilities_monthly_cents bigint,
  contract_template text default 'standard'::text not null,
  image_urls text[] default '{}'::text[] not null,
  description text,
  amenities text[],
  pet_policy text,
  status text default 'available'::text not null,
  listed boolean default false not null,
  verified boolean default false not null,
  missing_fields text[] default '{}'::text[] not null,
  calendar_synced_at timestamp with time zone,
  created_at timestamp with time zone default clock_timestamp() not null,
  updated_at timestamp with time zone default clock_timestamp() not null,
  geo_point extensions.cube,
  constraint properties_pkey PRIMARY KEY (id),
  constraint properties_application_fee_cents_check CHECK ((application_fee_cents >= 0)),
  constraint properties_bathrooms_check CHECK ((bathrooms >= (0)::numeric)),
  constraint properties_bedrooms_check CHECK ((bedrooms >= 0)),
  constraint properties_cleaning_fee_cents_check CHECK ((cleaning_fee_cents >= 0)),
  constraint properties_contract_template_check CHECK ((contract_template = ANY (ARRAY['standard'::text, 'own'::text]))),
  constraint properties_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint properties_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint properties_external_id_check CHECK (((length(external_id) >= 1) AND (length(external_id) <= 255))),
  constraint properties_furnished_status_check CHECK ((furnished_status = ANY (ARRAY['furnished'::text, 'partial'::text, 'unfurnished'::text]))),
  constraint properties_latitude_check CHECK (((latitude >= ('-90'::integer)::double precision) AND (latitude <= (90)::double precision))),
  constraint properties_longitude_check CHECK (((longitude >= ('-180'::integer)::double precision) AND (longitude <= (180)::double precision))),
  constraint properties_monthly_rate_cents_check CHECK ((monthly_rate_cents > 0)),
  constraint properties_pet_deposit_cents_check CHECK ((pet_deposit_cents >= 0)),
  constraint properties_pet_fee_cents_check CHECK ((pet_fee_cents >= 0)),
  constraint properties_pet_rent_cents_check CHECK ((pet_rent_cents >= 0)),
  constraint properties_rent_10_12_months_cents_check CHECK ((rent_10_12_months_cents > 0)),
  constraint properties_rent_1_3_months_cents_check CHECK ((rent_1_3_months_cents > 0)),
  constraint properties_rent_4_6_months_cents_check CHECK ((rent_4_6_months_cents > 0)),
  constraint properties_rent_7_9_months_cents_check CHECK ((rent_7_9_months_cents > 0)),
  constraint properties_security_deposit_cents_check CHECK ((security_deposit_cents >= 0)),
  constraint properties_sqft_check CHECK ((sqft > 0)),
  constraint properties_status_check CHECK ((status = ANY (ARRAY['available'::text, 'pending'::text, 'unavailable'::text]))),
  constraint properties_utilities_monthly_cents_check CHECK ((utilities_monthly_cents >= 0)),
  constraint properties_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.properties enable row level security;
comment on table app.properties is 'Homes listed by providers (the API''s /properties). Listing readiness (listed, verified, missing_fields) is kept by a trigger from the row itself.';
comment on column app.properties.external_id is 'The provider''s own reference for the home; unique per organisation and environment.';
comment on column app.properties.name is 'Display name of the home.';
comment on column app.properties.latitude is 'Given coordinates; without them the home is located at its ZIP''s centroid (geo_point).';
comment on column app.properties.longitude is 'Given coordinates; without them the home is located at its ZIP''s centroid (geo_point).';
comment on column app.properties.monthly_rate_cents is 'Monthly rent in cents of currency.';
comment on column app.properties.rent_1_3_months_cents is 'Monthly rent for stays of 1 to 3 months, in cents; null: monthly_rate applies.';
comment on column app.properties.rent_4_6_months_cents is 'Monthly rent for stays of 4 to 6 months, in cents; null: monthly_rate applies.';
comment on column app.properties.rent_7_9_months_cents is 'Monthly rent for stays of 7 to 9 months, in cents; null: monthly_rate applies.';
comment on column app.properties.rent_10_12_months_cents is 'Monthly rent for stays of 10 to 12 months, in cents; null: monthly_rate applies.';
comment on column app.properties.furnished_status is 'furnished, partial or unfurnished; null: not said (missing for listing).';
comment on column app.properties.available_from is 'First date the home can be moved into.';
comment on column app.properties.security_deposit_cents is 'In cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.cleaning_fee_cents is 'In cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.application_fee_cents is 'In cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.pet_fee_cents is 'One-off pet fee in cents; 0: none, null: not said (missing for listing).';
comment on column app.properties.pet_rent_cents is 'Monthly pet rent in cents (not required for listing).';
comment on column app.properties.pet_deposit_cents is 'Refundable pet deposit in cents (not required for listing).';
comment on column app.properties.utilities_included is 'Whether rent includes utilities; null: not said.';
comment on column app.properties.utilities_monthly_cents is 'Monthly utilities estimate in cents when not included.';
comment on column app.properties.contract_template is 'standard: the service''s lease template; own: the provider''s own lease.';
comment on column app.properties.image_urls is 'Photos of the home (at least one needed for listing).';
comment on column app.properties.amenities is 'Amenity names (at least one needed for listing).';
comment on column app.properties.pet_policy is 'The provider''s pet policy in words (needed for listing).';
comment on column app.properties.status is 'Provider-set: available, pending or unavailable (unavailable homes are never matched).';
comment on column app.properties.listed is 'Kept by trigger: the listing is complete (missing_fields is empty). Never written by callers.';
comment on column app.properties.verified is 'Kept by trigger: listed and availability readable; only verified homes are matched.';
comment on column app.properties.missing_fields is 'Kept by trigger: API field names the listing still lacks, in the specification''s order (app.listing_missing_fields).';
comment on column app.properties.calendar_synced_at is 'Last write of the home''s calendar by the bulk sync (POST /properties/availability).';
comment on column app.properties.geo_point is 'Kept by trigger: the home''s point on the earth (earthdistance cube) from its coordinates, else its ZIP centroid; null: cannot be matched by distance.';
CREATE UNIQUE INDEX properties_external_id ON app.properties USING btree (org_id, environment, external_id);
CREATE INDEX properties_near ON app.properties USING gist (geo_point) WHERE verified;
CREATE UNIQUE INDEX properties_owner_key ON app.properties USING btree (id, org_id);
CREATE INDEX properties_portfolio ON app.properties USING btree (org_id, environment, created_at DESC, id DESC);
CREATE TRIGGER properties_locate BEFORE INSERT OR UPDATE OF latitude, longitude, zip_code ON app.properties FOR EACH ROW EXECUTE FUNCTION app.properties_locate();
CREATE TRIGGER properties_readiness BEFORE INSERT OR UPDATE ON app.properties FOR EACH ROW EXECUTE FUNCTION app.properties_readiness();
create policy tenant_isolation on app.properties as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.properties to svc_api;

create unlogged table app.rate_windows (
  bucket text not null,
  window_start timestamp with time zone not null,
  count integer not null,
  constraint rate_windows_pkey PRIMARY KEY (bucket)
);
comment on table app.rate_windows is 'Rate limiter state: one fixed one-minute window per bucket (a key, or an address that failed authentication). Bookkeeping, overwritten every minute.';
comment on column app.rate_windows.bucket is 'key:<api key id> or addr:<client address> (failed authentications).';
comment on column app.rate_windows.window_start is 'Start of the current one-minute window.';
comment on column app.rate_windows.count is 'Requests counted in the window so far.';

create table app.refund_request_asks (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  claim_option_id uuid not null,
  property_id uuid not null,
  provider_org_id uuid not null,
  payment_id uuid not null,
  amount_cents bigint not null,
  currency text not null,
  covers_deposit boolean not null,
  reason text,
  created_at timestamp with time zone default clock_timestamp() not null,
  automatic boolean default false not null,
  purpose text default 'owed_back'::text not null,
  goodwill boolean default false not null,
  constraint refund_requests_pkey PRIMARY KEY (id),
  constraint refund_requests_amount_cents_check CHECK ((amount_cents > 0)),
  constraint refund_requests_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint refund_requests_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint refund_requests_purpose_check CHECK ((purpose = ANY (ARRAY['owed_back'::text, 'deposit'::text]))),
  constraint refund_requests_reason_check CHECK ((length(reason) <= 2000)),
  constraint refund_requests_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint refund_requests_claim_option_id_org_id_environment_fkey FOREIGN KEY (claim_option_id, org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint refund_requests_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint refund_requests_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES app.payments(id),
  constraint refund_requests_property_id_fkey FOREIGN KEY (property_id) REFERENCES app.properties(id),
  constraint refund_requests_provider_org_id_fkey FOREIGN KEY (provider_org_id) REFERENCES app.organisations(id)
);
alter table app.refund_request_asks enable row level security;
comment on table app.refund_request_asks is 'A carrier''s request to the landlord to refund a settled payment of a home (POST refund-request), or the service''s own refund of a duplicate charge, as asked: never changed. Its life is in app.refund_request_changes; app.refund_requests reads both.';
comment on column app.refund_request_asks.org_id is 'The carrier organisation that asked.';
comment on column app.refund_request_asks.claim_option_id is 'The option (app.claim_options) whose payment is to be refunded.';
comment on column app.refund_request_asks.provider_org_id is 'The landlord (provider organisation) that approves or declines.';
comment on column app.refund_request_asks.payment_id is 'The settled payment to refund: the most recent one on the home when asked.';
comment on column app.refund_request_asks.amount_cents is 'The amount asked back: the most recent settled payment on the home.';
comment on column app.refund_request_asks.covers_deposit is 'Whether the payment refunded included deposits (timeline deposit.refund_requested).';
comment on column app.refund_request_asks.reason is 'The carrier''s reason, read by the landlord.';
comment on column app.refund_request_asks.automatic is 'Issued by the service itself (a duplicate charge), approved when made; not the carrier''s request.';
comment on column app.refund_request_asks.purpose is 'What the refund returns: owed_back (what the ledger owes the payer back) or deposit (the deposit held).';
comment on column app.refund_request_asks.goodwill is 'Asked beyond what is owed back: what it gives beyond it is posted as goodwill.';
CREATE INDEX refund_request_asks_placement ON app.refund_request_asks USING btree (claim_option_id, created_at);
CREATE INDEX refund_requests_claim ON app.refund_request_asks USING btree (claim_id, created_at);
CREATE UNIQUE INDEX refund_requests_one_automatic ON app.refund_request_asks USING btree (payment_id) WHERE automatic;
CREATE INDEX refund_requests_provider ON app.refund_request_asks USING btree (provider_org_id, environment, created_at);
CREATE TRIGGER refund_request_asks_asked AFTER INSERT ON app.refund_request_asks FOR EACH ROW EXECUTE FUNCTION app.refund_request_asked();
CREATE TRIGGER refund_request_asks_frozen BEFORE DELETE OR UPDATE ON app.refund_request_asks FOR EACH ROW EXECUTE FUNCTION app.refund_request_history_frozen();
CREATE TRIGGER refund_request_asks_one_open BEFORE INSERT ON app.refund_request_asks FOR EACH ROW EXECUTE FUNCTION app.refund_request_one_open();
create policy provider_read on app.refund_request_asks as permissive for select to svc_api
  using (((provider_org_id = app.current_org()) AND (environment = app.current_env())));
create policy tenant_isolation on app.refund_request_asks as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.refund_request_asks to svc_api;

create table app.refund_request_changes (
  id uuid default gen_random_uuid() not null,
  request_id uuid not null,
  seq integer not null,
  org_id uuid not null,
  environment text not null,
  provider_org_id uuid not null,
  status text not null,
  moved_by text not null,
  changed_at timestamp with time zone default clock_timestamp() not null,
  provider_ref text,
  failure_reason text,
  constraint refund_request_changes_pkey PRIMARY KEY (id),
  constraint refund_request_changes_request_id_seq_key UNIQUE (request_id, seq),
  constraint refund_request_changes_check CHECK (((seq = 1) = (status = 'pending_owner_approval'::text))),
  constraint refund_request_changes_check1 CHECK (((failure_reason IS NULL) OR (status = 'failed'::text))),
  constraint refund_request_changes_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint refund_request_changes_failure_reason_check CHECK ((length(failure_reason) <= 2000)),
  constraint refund_request_changes_moved_by_check CHECK ((moved_by = ANY (ARRAY['carrier'::text, 'landlord'::text, 'service'::text, 'processor'::text]))),
  constraint refund_request_changes_provider_ref_check CHECK (((length(provider_ref) >= 1) AND (length(provider_ref) <= 255))),
  constraint refund_request_changes_seq_check CHECK ((seq > 0)),
  constraint refund_request_changes_status_check CHECK ((status = ANY (ARRAY['pending_owner_approval'::text, 'approved'::text, 'declined'::text, 'refunded'::text, 'failed'::text]))),
  constraint refund_request_changes_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint refund_request_changes_provider_org_id_fkey FOREIGN KEY (provider_org_id) REFERENCES app.organisations(id),
  constraint refund_request_changes_request_id_fkey FOREIGN KEY (request_id) REFERENCES app.refund_request_asks(id)
);
alter table app.refund_request_changes enable row level security;
comment on table app.refund_request_changes is 'Each step of a refund request''s life, appended in order and never changed: asked (pending_owner_approval), approved or declined, refunded or failed (a failed one may be refunded by a retry). app.refund_requests derives a request''s status from its last step.';
comment on column app.refund_request_changes.request_id is 'The refund request (app.refund_request_asks).';
comment on column app.refund_request_changes.seq is 'The step''s place in the request''s life: 1 the ask, then one more per step.';
comment on column app.refund_request_changes.org_id is 'The carrier organisation that asked (the request''s).';
comment on column app.refund_request_changes.provider_org_id is 'The landlord that answers (the request''s).';
comment on column app.refund_request_changes.status is 'The status the request moved to.';
comment on column app.refund_request_changes.moved_by is 'Who or what moved it: carrier (asked), landlord (approved, declined), service (a duplicate charge''s automatic refund, asked and approved at once), processor (refunded, failed).';
comment on column app.refund_request_changes.changed_at is 'When it moved.';
comment on column app.refund_request_changes.provider_ref is 'The processor''s refund id, on the step that issued it.';
comment on column app.refund_request_changes.failure_reason is 'Why the refund was not issued, on a failed step (for staff; never shown to the API).';
CREATE INDEX refund_request_changes_provider ON app.refund_request_changes USING btree (provider_org_id, environment);
CREATE TRIGGER refund_request_changes_follow BEFORE INSERT ON app.refund_request_changes FOR EACH ROW EXECUTE FUNCTION app.refund_request_change_follows();
CREATE TRIGGER refund_request_changes_frozen BEFORE DELETE OR UPDATE ON app.refund_request_changes FOR EACH ROW EXECUTE FUNCTION app.refund_request_history_frozen();
create policy provider_read on app.refund_request_changes as permissive for select to svc_api
  using (((provider_org_id = app.current_org()) AND (environment = app.current_env())));
create policy tenant_isolation on app.refund_request_changes as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.refund_request_changes to svc_api;

create table app.sandbox_clocks (
  org_id uuid not null,
  environment text default 'sandbox'::text not null,
  frozen_time timestamp with time zone not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  advanced_at timestamp with time zone,
  constraint sandbox_clocks_pkey PRIMARY KEY (org_id),
  constraint sandbox_clocks_environment_check CHECK ((environment = 'sandbox'::text)),
  constraint sandbox_clocks_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.sandbox_clocks enable row level security;
comment on table app.sandbox_clocks is 'A sandbox organisation''s own time (POST /sandbox/clock): its requests'' date rules and scheduled jobs follow it. Live keys never see it.';
comment on column app.sandbox_clocks.frozen_time is 'The time the organisation''s sandbox sees; moves only when advanced.';
comment on column app.sandbox_clocks.advanced_at is 'When it was last advanced (wall clock).';
create policy tenant_isolation on app.sandbox_clocks as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update, delete on table app.sandbox_clocks to svc_api;

create table app.sourcing_rounds (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  trigger text not null,
  coordinator_email text,
  matches_found integer not null,
  crawl_postcode text not null,
  crawl_request jsonb not null,
  crawl_status text default 'pending'::text not null,
  crawl_detail text,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint sourcing_rounds_pkey PRIMARY KEY (id),
  constraint sourcing_rounds_crawl_status_check CHECK ((crawl_status = ANY (ARRAY['pending'::text, 'sent'::text, 'recorded'::text, 'not_configured'::text, 'failed'::text]))),
  constraint sourcing_rounds_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint sourcing_rounds_matches_found_check CHECK ((matches_found >= 0)),
  constraint sourcing_rounds_trigger_check CHECK ((trigger = ANY (ARRAY['opened'::text, 'source_more'::text]))),
  constraint sourcing_rounds_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint sourcing_rounds_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.sourcing_rounds enable row level security;
comment on table app.sourcing_rounds is 'Each sourcing round of a request: a matching run plus a crawl request for homes around the loss ZIP.';
comment on column app.sourcing_rounds.trigger is 'opened (at creation) or source_more (POST /claims/{reference}/source-more).';
comment on column app.sourcing_rounds.coordinator_email is 'The coordinator responsible when the round ran.';
comment on column app.sourcing_rounds.matches_found is 'Homes matching found in the round.';
comment on column app.sourcing_rounds.crawl_postcode is 'ZIP the crawl searches around.';
comment on column app.sourcing_rounds.crawl_request is 'The crawl request as sent (or as it would be sent).';
comment on column app.sourcing_rounds.crawl_status is 'pending, sent, recorded (sandbox: never sent), not_configured (no SOURCING_CRAWL_URL) or failed.';
comment on column app.sourcing_rounds.crawl_detail is 'The crawler''s answer or the failure.';
CREATE INDEX sourcing_rounds_claim ON app.sourcing_rounds USING btree (claim_id, created_at);
CREATE UNIQUE INDEX sourcing_rounds_opened_once ON app.sourcing_rounds USING btree (claim_id) WHERE (trigger = 'opened'::text);
comment on index app.sourcing_rounds_opened_once is 'A request has at most one opening round (the sourcing job may run twice; it never sources twice).';
create policy tenant_isolation on app.sourcing_rounds as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update on table app.sourcing_rounds to svc_api;

create table app.stay_changes (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  claim_option_id uuid not null,
  property_id uuid not null,
  lease_agreement_id uuid not null,
  previous_move_out date not null,
  move_out date not null,
  refund_due_cents bigint not null,
  currency text not null,
  created_at timestamp with time zone default clock_timestamp() not null,
  constraint stay_changes_pkey PRIMARY KEY (id),
  constraint stay_changes_check CHECK ((move_out < previous_move_out)),
  constraint stay_changes_currency_check CHECK ((currency ~ '^[a-z]{3}$'::text)),
  constraint stay_changes_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint stay_changes_claim_id_org_id_environment_fkey FOREIGN KEY (claim_id, org_id, environment) REFERENCES app.claims(id, org_id, environment),
  constraint stay_changes_claim_option_id_org_id_environment_fkey FOREIGN KEY (claim_option_id, org_id, environment) REFERENCES app.claim_options(id, org_id, environment),
  constraint stay_changes_lease_agreement_id_fkey FOREIGN KEY (lease_agreement_id) REFERENCES app.lease_agreements(id),
  constraint stay_changes_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id),
  constraint stay_changes_property_id_fkey FOREIGN KEY (property_id) REFERENCES app.properties(id)
);
alter table app.stay_changes enable row level security;
comment on table app.stay_changes is 'A stay shortened after move-in (POST dates with an earlier move_out): the signed lease is kept as signed; each change adds a row. Append-only.';
comment on column app.stay_changes.claim_option_id is 'The option (home on a request, app.claim_options) whose stay was shortened.';
comment on column app.stay_changes.lease_agreement_id is 'The signed contract version whose stay was shortened (its own dates are never changed).';
comment on column app.stay_changes.previous_move_out is 'The move-out before this change.';
comment on column app.stay_changes.move_out is 'The new, earlier move-out (the stay''s last night is the day before).';
comment on column app.stay_changes.refund_due_cents is 'What the change does to the money already paid, in cents: positive, rent paid for days no longer covered (to be refunded with a refund request); negative, what the paid months now owe at the shorter stay''s tier.';
CREATE INDEX stay_changes_claim ON app.stay_changes USING btree (claim_id, created_at);
create policy tenant_isolation on app.stay_changes as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.stay_changes to svc_api;

create table app.undelivered_messages (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  claim_id uuid not null,
  property_id uuid not null,
  claim_option_id uuid not null,
  topic text not null,
  reason text not null,
  error text not null,
  attempts integer default 0 not null,
  link_issued_at timestamp with time zone,
  failed_at timestamp with time zone default clock_timestamp() not null,
  constraint undelivered_messages_pkey PRIMARY KEY (id),
  constraint undelivered_messages_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint undelivered_messages_reason_check CHECK ((reason = ANY (ARRAY['not_configured'::text, 'failed'::text]))),
  constraint undelivered_messages_claim_option_id_fkey FOREIGN KEY (claim_option_id) REFERENCES app.claim_options(id),
  constraint undelivered_messages_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.undelivered_messages enable row level security;
comment on table app.undelivered_messages is 'Messages to the household that did not go out (the household''s link), as they failed: not configured (nothing sent) or the send job abandoned. Append-only; the timeline entry household_link.undelivered reads it.';
comment on column app.undelivered_messages.org_id is 'The carrier organisation whose request the message was for.';
comment on column app.undelivered_messages.claim_option_id is 'The option (home on the request, app.claim_options) the message was about.';
comment on column app.undelivered_messages.topic is 'Why the message was to be sent, as the email''s topic (home.offered: the household''s link).';
comment on column app.undelivered_messages.reason is 'not_configured: the deployment has no email settings, nothing was sent; failed: the send job spent its attempts.';
comment on column app.undelivered_messages.error is 'What the carrier is told stopped it: the missing settings (not_configured), or a fixed phrase (failed: the transport''s error is the send job''s last_error, for staff). Rows recorded before this migration may carry the last attempt''s error.';
comment on column app.undelivered_messages.attempts is 'Send attempts made (0 when nothing could be attempted).';
comment on column app.undelivered_messages.link_issued_at is 'The issue of the household''s link the message carried (links of earlier issues no longer work).';
comment on column app.undelivered_messages.failed_at is 'When it was recorded.';
CREATE INDEX undelivered_messages_claim ON app.undelivered_messages USING btree (claim_id, failed_at);
create policy tenant_isolation on app.undelivered_messages as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert on table app.undelivered_messages to svc_api;

create table app.usage_daily (
  org_id uuid not null,
  environment text not null,
  key_id uuid not null,
  day date not null,
  status_class text not null,
  count integer not null,
  constraint usage_daily_pkey PRIMARY KEY (key_id, day, status_class),
  constraint usage_daily_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint usage_daily_status_class_check CHECK ((status_class = ANY (ARRAY['2xx'::text, '3xx'::text, '4xx'::text, '5xx'::text]))),
  constraint usage_daily_key_id_fkey FOREIGN KEY (key_id) REFERENCES app.api_keys(id)
);
alter table app.usage_daily enable row level security;
comment on table app.usage_daily is 'Requests per key, day and status class (2xx/3xx/4xx/5xx): what GET /usage reports.';
comment on column app.usage_daily.key_id is 'The API key that made the requests.';
comment on column app.usage_daily.day is 'UTC day.';
comment on column app.usage_daily.status_class is 'Class of the response status: 2xx, 3xx, 4xx or 5xx.';
comment on column app.usage_daily.count is 'Requests of that key, day and class.';
CREATE INDEX usage_daily_org ON app.usage_daily USING btree (org_id, environment, day);
create policy tenant_isolation on app.usage_daily as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select, insert, update, delete on table app.usage_daily to svc_api;

create table app.webhook_deliveries (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  endpoint_id uuid not null,
  event_id uuid,
  event text not null,
  replay boolean default false not null,
  status text default 'pending'::text not null,
  attempts integer default 0 not null,
  next_attempt_at timestamp with time zone,
  lease_token uuid,
  claimed_at timestamp with time zone,
  signing_secret text,
  history jsonb default '[]'::jsonb not null,
  created_at timestamp with time zone default now() not null,
  completed_at timestamp with time zone,
  constraint webhook_deliveries_pkey PRIMARY KEY (id),
  constraint webhook_deliveries_attempts_check CHECK ((attempts >= 0)),
  constraint webhook_deliveries_check CHECK (((status = 'pending'::text) = (next_attempt_at IS NOT NULL))),
  constraint webhook_deliveries_check1 CHECK (((status = 'pending'::text) = (signing_secret IS NOT NULL))),
  constraint webhook_deliveries_check2 CHECK (((status = 'pending'::text) = (completed_at IS NULL))),
  constraint webhook_deliveries_check3 CHECK (((lease_token IS NULL) = (claimed_at IS NULL))),
  constraint webhook_deliveries_check4 CHECK (((event = 'ping'::text) = (event_id IS NULL))),
  constraint webhook_deliveries_check5 CHECK ((NOT (replay AND (event_id IS NULL)))),
  constraint webhook_deliveries_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint webhook_deliveries_history_check CHECK ((jsonb_typeof(history) = 'array'::text)),
  constraint webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'abandoned'::text, 'cancelled'::text]))),
  constraint webhook_deliveries_endpoint_id_org_id_environment_fkey FOREIGN KEY (endpoint_id, org_id, environment) REFERENCES app.webhook_endpoints(id, org_id, environment) ON DELETE CASCADE,
  constraint webhook_deliveries_event_id_org_id_environment_fkey FOREIGN KEY (event_id, org_id, environment) REFERENCES app.events(id, org_id, environment) ON DELETE CASCADE
) with (autovacuum_vacuum_scale_factor=0.02, autovacuum_vacuum_insert_scale_factor=0.02, autovacuum_analyze_scale_factor=0.01, fillfactor=80);
alter table app.webhook_deliveries enable row level security;
comment on table app.webhook_deliveries is 'The webhook delivery queue and its history: one row per event and endpoint (plus test pings and replays), fanned out from app.events in the same transaction and sent by the dispatcher with retries.';
comment on column app.webhook_deliveries.event_id is 'The event delivered; null only for a test ping.';
comment on column app.webhook_deliveries.event is 'Event type (ping for the test ping).';
comment on column app.webhook_deliveries.replay is 'Queued by a replay (POST /events/{id}/replay), not by the event itself.';
comment on column app.webhook_deliveries.status is 'pending (waiting or being sent), succeeded, abandoned (retries used up) or cancelled (endpoint deactivated).';
comment on column app.webhook_deliveries.attempts is 'Attempts started. Attempt n that fails waits the n-th step of WEBHOOK_RETRY_SCHEDULE.';
comment on column app.webhook_deliveries.next_attempt_at is 'When the delivery is next due; while a dispatcher holds it, when its lease runs out. Null once finished.';
comment on column app.webhook_deliveries.lease_token is 'Set while a dispatcher holds the row; a result is recorded only with the token of its claim.';
comment on column app.webhook_deliveries.claimed_at is 'When the current dispatcher claimed the row.';
comment on column app.webhook_deliveries.signing_secret is 'The endpoint''s secret when queued (kept across a rotation); cleared once the delivery is finished.';
comment on column app.webhook_deliveries.history is 'One entry per attempt: attempt, at, outcome, http_status, response_body (excerpt), error, duration_ms.';
comment on column app.webhook_deliveries.completed_at is 'When the delivery finished (succeeded, abandoned or cancelled).';
CREATE INDEX webhook_deliveries_due ON app.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);
CREATE INDEX webhook_deliveries_endpoint ON app.webhook_deliveries USING btree (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_endpoint_status ON app.webhook_deliveries USING btree (endpoint_id, status, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event ON app.webhook_deliveries USING btree (event_id);
CREATE INDEX webhook_deliveries_feed ON app.webhook_deliveries USING btree (org_id, environment, created_at DESC, id DESC);
CREATE UNIQUE INDEX webhook_deliveries_one_waiting_replay ON app.webhook_deliveries USING btree (event_id, endpoint_id) WHERE (replay AND (status = 'pending'::text));
CREATE INDEX webhook_deliveries_pings ON app.webhook_deliveries USING btree (created_at) WHERE (event_id IS NULL);
create policy tenant_isolation on app.webhook_deliveries as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant select (id) on table app.webhook_deliveries to svc_api;
grant select (org_id) on table app.webhook_deliveries to svc_api;
grant select (environment) on table app.webhook_deliveries to svc_api;
grant select (endpoint_id) on table app.webhook_deliveries to svc_api;
grant select (event_id) on table app.webhook_deliveries to svc_api;
grant select (event) on table app.webhook_deliveries to svc_api;
grant select (replay) on table app.webhook_deliveries to svc_api;
grant select (status) on table app.webhook_deliveries to svc_api;
grant select (attempts) on table app.webhook_deliveries to svc_api;
grant select (next_attempt_at) on table app.webhook_deliveries to svc_api;
grant select (history) on table app.webhook_deliveries to svc_api;
grant select (created_at) on table app.webhook_deliveries to svc_api;
grant select (completed_at) on table app.webhook_deliveries to svc_api;

create table app.webhook_endpoints (
  id uuid default gen_random_uuid() not null,
  org_id uuid not null,
  environment text not null,
  url text not null,
  events text[],
  description text,
  is_active boolean default true not null,
  secret text not null,
  secret_rotated_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  constraint webhook_endpoints_pkey PRIMARY KEY (id),
  constraint webhook_endpoints_id_org_id_environment_key UNIQUE (id, org_id, environment),
  constraint webhook_endpoints_description_check CHECK ((length(description) <= 500)),
  constraint webhook_endpoints_environment_check CHECK ((environment = ANY (ARRAY['live'::text, 'sandbox'::text]))),
  constraint webhook_endpoints_events_check CHECK (((events IS NULL) OR ((cardinality(events) >= 1) AND (cardinality(events) <= 100)))),
  constraint webhook_endpoints_secret_check CHECK ((secret ~ '^whsec_[A-Za-z0-9]{32,}$'::text)),
  constraint webhook_endpoints_url_check CHECK (((url ~ '^https://'::text) AND (length(url) <= 2048))),
  constraint webhook_endpoints_org_id_fkey FOREIGN KEY (org_id) REFERENCES app.organisations(id)
);
alter table app.webhook_endpoints enable row level security;
comment on table app.webhook_endpoints is 'Integrators'' webhook endpoints (the API''s /webhooks), per organisation and environment.';
comment on column app.webhook_endpoints.url is 'HTTPS address deliveries are POSTed to.';
comment on column app.webhook_endpoints.events is 'Event types subscribed to; null: every event of the organisation''s side, including later ones.';
comment on column app.webhook_endpoints.is_active is 'Inactive endpoints receive nothing; deactivating cancels waiting deliveries.';
comment on column app.webhook_endpoints.secret is 'Signing secret (whsec_...). The API role can write but never read it: shown once when issued.';
comment on column app.webhook_endpoints.secret_rotated_at is 'When the secret was last rotated.';
CREATE INDEX webhook_endpoints_feed ON app.webhook_endpoints USING btree (org_id, environment, created_at DESC, id DESC);
CREATE TRIGGER webhook_endpoints_deactivated AFTER UPDATE OF is_active ON app.webhook_endpoints FOR EACH ROW WHEN ((old.is_active AND (NOT new.is_active))) EXECUTE FUNCTION app.cancel_waiting_deliveries();
create policy tenant_isolation on app.webhook_endpoints as permissive for all to svc_api
  using (((org_id = app.current_org()) AND (environment = app.current_env())))
  with check (((org_id = app.current_org()) AND (environment = app.current_env())));
grant insert, delete on table app.webhook_endpoints to svc_api;
grant select (id) on table app.webhook_endpoints to svc_api;
grant select (org_id) on table app.webhook_endpoints to svc_api;
grant select (environment) on table app.webhook_endpoints to svc_api;
grant select (url), update (url) on table app.webhook_endpoints to svc_api;
grant select (events), update (events) on table app.webhook_endpoints to svc_api;
grant select (description), update (description) on table app.webhook_endpoints to svc_api;
grant select (is_active), update (is_active) on table app.webhook_endpoints to svc_api;
grant update (secret) on table app.webhook_endpoints to svc_api;
grant select (secret_rotated_at), update (secret_rotated_at) on table app.webhook_endpoints to svc_api;
grant select (created_at) on table app.webhook_endpoints to svc_api;
grant select (updated_at), update (updated_at) on table app.webhook_endpoints to svc_api;

create table app.zip_centroids (
  zip text not null,
  place text not null,
  state_code text,
  latitude double precision not null,
  longitude double precision not null,
  constraint zip_centroids_pkey PRIMARY KEY (zip),
  constraint zip_centroids_latitude_check CHECK (((latitude >= ('-90'::integer)::double precision) AND (latitude <= (90)::double precision))),
  constraint zip_centroids_longitude_check CHECK (((longitude >= ('-180'::integer)::double precision) AND (longitude <= (180)::double precision))),
  constraint zip_centroids_zip_check CHECK ((zip ~ '^[0-9]{5}$'::text))
);
comment on table app.zip_centroids is 'Reference data, the same for every tenant: US ZIP code centroids (GeoNames, CC BY 4.0), where matching measures from when a request or home has no coordinates. Generated by scripts/claims/generate-zip-centroids.ts.';
comment on column app.zip_centroids.place is 'Place name of the ZIP.';
comment on column app.zip_centroids.state_code is 'Two-letter state code; null for a few military ZIPs.';
comment on column app.zip_centroids.latitude is 'Centroid latitude.';
comment on column app.zip_centroids.longitude is 'Centroid longitude.';
grant select on table app.zip_centroids to svc_api;

-- ==============================================================================================
-- Views
-- ==============================================================================================

create view app.ledger_balances with (security_invoker=true) as
 SELECT org_id,
    environment,
    claim_id,
    claim_option_id,
    currency,
    account,
    sum(amount_cents)::bigint AS balance_cents
   FROM ( SELECT ledger_entries.org_id,
            ledger_entries.environment,
            ledger_entries.claim_id,
            ledger_entries.claim_option_id,
            ledger_entries.currency,
            ledger_entries.debit_account AS account,
            ledger_entries.amount_cents
           FROM app.ledger_entries
        UNION ALL
         SELECT ledger_entries.org_id,
            ledger_entries.environment,
            ledger_entries.claim_id,
            ledger_entries.claim_option_id,
            ledger_entries.currency,
            ledger_entries.credit_account,
            - ledger_entries.amount_cents
           FROM app.ledger_entries) legs
  GROUP BY org_id, environment, claim_id, claim_option_id, currency, account;
comment on view app.ledger_balances is 'Each stay''s ledger accounts and their balances (debits less credits); the balances of a stay sum to zero.';
comment on column app.ledger_balances.claim_option_id is 'The option (app.claim_options) whose stay''s ledger the account belongs to.';
comment on column app.ledger_balances.account is 'payer_rent, payer_fees, payer_deposit (what that part''s payer owes), landlord_rent, landlord_fees (what the stay earns the landlord), deposits_held, processor (taken in from payers less refunded), service_fee.';
comment on column app.ledger_balances.balance_cents is 'Debits less credits over every entry of the stay, in cents; a stay''s balances sum to 0 (a credit balance is negative).';
grant select on table app.ledger_balances to svc_api;

create view app.refund_requests with (security_invoker=true) as
 SELECT a.id,
    a.org_id,
    a.environment,
    a.claim_id,
    a.claim_option_id,
    a.property_id,
    a.provider_org_id,
    a.payment_id,
    a.amount_cents,
    a.currency,
    a.covers_deposit,
    a.reason,
    life.status,
    life.decided_at,
    life.refunded_at,
    life.provider_ref,
    life.failure_reason,
    a.created_at,
    life.updated_at,
    a.automatic,
    a.purpose,
    a.goodwill,
    life.history
   FROM app.refund_request_asks a
     CROSS JOIN LATERAL ( SELECT (array_agg(c.status ORDER BY c.seq DESC))[1] AS status,
            min(c.changed_at) FILTER (WHERE c.status = ANY (ARRAY['approved'::text, 'declined'::text])) AS decided_at,
            max(c.changed_at) FILTER (WHERE c.status = 'refunded'::text) AS refunded_at,
            (array_agg(c.provider_ref ORDER BY c.seq DESC) FILTER (WHERE c.provider_ref IS NOT NULL))[1] AS provider_ref,
            (array_agg(c.failure_reason ORDER BY c.seq DESC))[1] AS failure_reason,
            max(c.changed_at) AS updated_at,
            jsonb_agg(jsonb_build_object('status', c.status, 'at', c.changed_at, 'moved_by', c.moved_by) ORDER BY c.seq) AS history
           FROM app.refund_request_changes c
          WHERE c.request_id = a.id) life;
comment on view app.refund_requests is 'Each refund request as asked (app.refund_request_asks) with its status and times derived from its steps (app.refund_request_changes): status is the last step''s; never written, only read.';
comment on column app.refund_requests.claim_option_id is 'The option (app.claim_options) whose payment is to be refunded.';
comment on column app.refund_requests.provider_org_id is 'The landlord''s organisation, which approves or declines.';
comment on column app.refund_requests.payment_id is 'The processor payment the money goes back on.';
comment on column app.refund_requests.amount_cents is 'The amount asked, in cents; an approval returns at most what is owed back then (the ledger''s refund entries say what was).';
comment on column app.refund_requests.covers_deposit is 'Whether the refunded payment included a deposit.';
comment on column app.refund_requests.reason is 'The carrier''s reason, as given.';
comment on column app.refund_requests.status is 'The last step''s status: pending_owner_approval, approved (refund being issued), declined (a new request may follow), refunded, failed (the processor refused every attempt; a new request may follow, or the console''s retry issues it).';
comment on column app.refund_requests.decided_at is 'When the landlord (or the service, for its own refund) approved or declined: that step''s time.';
comment on column app.refund_requests.refunded_at is 'When the refund was issued: the refunded step''s time.';
comment on column app.refund_requests.provider_ref is 'The processor''s refund id, from the step that issued it.';
comment on column app.refund_requests.failure_reason is 'Why the refund failed, while the request stands failed.';
comment on column app.refund_requests.updated_at is 'When the last step was appended.';
comment on column app.refund_requests.automatic is 'Issued by the service itself (a duplicate charge), approved when made.';
comment on column app.refund_requests.purpose is 'owed_back (settled beyond what the stay now charges) or deposit (the deposits the stay holds of that payer).';
comment on column app.refund_requests.goodwill is 'Asked with goodwill: it may return more than is owed back, released as goodwill.';
comment on column app.refund_requests.history is 'Every step, oldest first: {status, at, moved_by}.';
grant select on table app.refund_requests to svc_api;

create view staff.abandoned_jobs as
 SELECT j.id AS job_id,
    o.name AS organisation,
    j.org_id,
    j.environment,
    j.kind,
        CASE j.kind
            WHEN 'issue_refund'::text THEN 'refund request '::text || (j.payload ->> 'refund_request_id'::text)
            WHEN 'send_email'::text THEN ((j.payload ->> 'topic'::text) || ' email to '::text) || COALESCE(( SELECT string_agg(t.value, ', '::text) AS string_agg
               FROM jsonb_array_elements_text(j.payload -> 'to'::text) t(value)), 'nobody'::text)
            ELSE j.payload::text
        END AS concerns,
    round(r.amount_cents::numeric / 100.0, 2) AS amount,
    r.currency,
    c.claim_ref AS reference,
    j.attempts,
    j.last_error,
    j.completed_at AS abandoned_at,
    j.created_at,
    'admin job retry --id '::text || j.id AS retry
   FROM app.jobs j
     JOIN app.organisations o ON o.id = j.org_id
     LEFT JOIN app.refund_requests r ON j.kind = 'issue_refund'::text AND r.id = ((j.payload ->> 'refund_request_id'::text)::uuid)
     LEFT JOIN app.claims c ON c.id = r.claim_id
  WHERE j.status = 'abandoned'::text
  ORDER BY j.completed_at DESC;
comment on view staff.abandoned_jobs is 'Jobs the service gave up on after their last attempt (a refund never issued: the money is still with the landlord; an email that never went out), newest first. Each was logged at error level; a refund was also announced as payment.refund_failed. Retry one with the console command in retry once its cause is fixed.';
comment on column staff.abandoned_jobs.concerns is 'What the job was for: the refund request, an email''s topic and addresses, else its payload.';
comment on column staff.abandoned_jobs.amount is 'The money at stake, in major units: the refund not issued (null for jobs that move no money).';
comment on column staff.abandoned_jobs.reference is 'The housing request the money belongs to (REQ-XXXXXX), when the job names one.';
comment on column staff.abandoned_jobs.last_error is 'Why the last attempt failed, as the third party or the handler said it.';
comment on column staff.abandoned_jobs.abandoned_at is 'When the last attempt failed.';
comment on column staff.abandoned_jobs.retry is 'The operator console command (npm run --silent admin -- ...) that queues the job again for one more attempt.';
grant select on table staff.abandoned_jobs to service_role;
grant select on table staff.abandoned_jobs to supabase_admin;

create view staff.failing_deliveries_by_endpoint as
 WITH recent AS (
         SELECT d.endpoint_id,
            count(*) FILTER (WHERE d.status = 'pending'::text AND d.attempts > 0)::integer AS retrying,
            count(*) FILTER (WHERE d.status = 'abandoned'::text AND d.completed_at > (now() - '7 days'::interval))::integer AS abandoned_7d,
            count(*) FILTER (WHERE d.status = 'succeeded'::text AND d.completed_at > (now() - '7 days'::interval))::integer AS succeeded_7d,
            min(d.next_attempt_at) FILTER (WHERE d.status = 'pending'::text AND d.attempts > 0) AS next_retry_at
           FROM app.webhook_deliveries d
          WHERE d.status = 'pending'::text OR d.completed_at > (now() - '7 days'::interval)
          GROUP BY d.endpoint_id
        )
 SELECT o.name AS organisation,
    w.org_id,
    w.environment,
    w.id AS endpoint_id,
    w.url,
    w.is_active,
    r.retrying,
    r.abandoned_7d,
    r.succeeded_7d,
    r.next_retry_at,
    last.at AS last_failure_at,
    last.http_status AS last_failure_http_status,
    last.error AS last_failure_error
   FROM recent r
     JOIN app.webhook_endpoints w ON w.id = r.endpoint_id
     JOIN app.organisations o ON o.id = w.org_id
     LEFT JOIN LATERAL ( SELECT (a.value ->> 'at'::text)::timestamp with time zone AS at,
            (a.value ->> 'http_status'::text)::integer AS http_status,
            a.value ->> 'error'::text AS error
           FROM app.webhook_deliveries d,
            LATERAL jsonb_array_elements(d.history) a(value)
          WHERE d.endpoint_id = w.id AND (d.status = 'pending'::text OR d.completed_at > (now() - '7 days'::interval)) AND (a.value ->> 'outcome'::text) <> 'succeeded'::text
          ORDER BY ((a.value ->> 'at'::text)::timestamp with time zone) DESC
         LIMIT 1) last ON true
  WHERE r.retrying > 0 OR r.abandoned_7d > 0
  ORDER BY (r.retrying + r.abandoned_7d) DESC;
comment on view staff.failing_deliveries_by_endpoint is 'Webhook endpoints with deliveries failing now (retrying) or given up in the last 7 days, most failures first, with the last failure.';
comment on column staff.failing_deliveries_by_endpoint.retrying is 'Deliveries waiting for a retry after a failed attempt.';
comment on column staff.failing_deliveries_by_endpoint.abandoned_7d is 'Deliveries abandoned (retry schedule used up) in the last 7 days.';
comment on column staff.failing_deliveries_by_endpoint.succeeded_7d is 'Deliveries that succeeded in the last 7 days, for comparison.';
comment on column staff.failing_deliveries_by_endpoint.next_retry_at is 'When the next retry to this endpoint is due.';
comment on column staff.failing_deliveries_by_endpoint.last_failure_http_status is 'HTTP status of the last failed attempt; null: no answer (see last_failure_error).';
comment on column staff.failing_deliveries_by_endpoint.last_failure_error is 'Error of the last failed attempt (time-out, refused connection, address not allowed, ...).';
grant select on table staff.failing_deliveries_by_endpoint to service_role;
grant select on table staff.failing_deliveries_by_endpoint to supabase_admin;

create view staff.homes_not_listed as
 SELECT o.name AS provider,
    p.org_id,
    p.environment,
    p.id AS property_id,
    p.external_id,
    p.name AS home,
    p.city,
    p.state,
    p.listed,
    p.verified,
    p.status,
    array_remove((ARRAY( SELECT 'missing '::text || f.f
           FROM unnest(p.missing_fields) f(f))) || ARRAY[
        CASE
            WHEN p.status = 'unavailable'::text THEN 'marked unavailable by the provider'::text
            ELSE NULL::text
        END,
        CASE
            WHEN p.geo_point IS NULL THEN 'no location: no coordinates and a ZIP that is not known'::text
            ELSE NULL::text
        END,
        CASE
            WHEN NOT app.can_take_charges(p.org_id, p.environment) THEN 'payout account cannot take charges in '::text || p.environment
            ELSE NULL::text
        END], NULL::text) AS reasons,
    p.missing_fields,
    p.updated_at
   FROM app.properties p
     JOIN app.organisations o ON o.id = p.org_id
  WHERE NOT p.verified OR p.status = 'unavailable'::text OR p.geo_point IS NULL OR NOT app.can_take_charges(p.org_id, p.environment);
comment on view staff.homes_not_listed is 'Homes matching cannot offer, and why: an incomplete listing (each missing field), marked unavailable, no location, or a provider whose payout account cannot take charges.';
comment on column staff.homes_not_listed.reasons is 'Every reason the home is not offered, in words.';
comment on column staff.homes_not_listed.missing_fields is 'API field names the listing still lacks.';
grant select on table staff.homes_not_listed to service_role;
grant select on table staff.homes_not_listed to supabase_admin;

create view staff.ledger_differences as
 WITH stay_payments AS (
         SELECT p.id,
            p.org_id,
            p.environment,
            p.property_id,
            p.booking_id,
            p.carrier_org_id,
            p.claim_id,
            p.lease_agreement_id,
            p.charge_type,
            p.status,
            p.rent_cents,
            p.deposit_cents,
            p.fees_cents,
            p.gross_cents,
            p.platform_fee_cents,
            p.processing_fee_cents,
            p.net_cents,
            p.currency,
            p.paid_at,
            p.failure_reason,
            p.created_at,
            p.provider_ref,
            p.claim_option_id,
            p.covers_rent,
            p.covers_deposit,
            p.period_start,
            p.period_end,
            p.refunded_cents,
            p.refunded_at,
            p.payer,
            p.checkout_ref,
            p.checkout_url,
            p.checkout_expires_at,
            p.duplicate_of,
            p.status = ANY (ARRAY['succeeded'::text, 'refunded'::text]) AS settled
           FROM app.payments p
          WHERE p.claim_option_id IS NOT NULL
        ), paid AS (
         SELECT l.payment_id,
            l.part,
            - sum(l.amount_cents) AS cents
           FROM app.ledger_entries l
          WHERE l.kind = 'payment'::text
          GROUP BY l.payment_id, l.part
        ), returned AS (
         SELECT l.payment_id,
            l.part,
            r.status,
            sum(l.amount_cents) AS cents
           FROM app.ledger_entries l
             JOIN app.refund_requests r ON r.id = l.refund_request_id
          WHERE l.kind = 'refund'::text
          GROUP BY l.payment_id, l.part, r.status
        ), refund_totals AS (
         SELECT returned.payment_id,
            COALESCE(sum(returned.cents) FILTER (WHERE returned.status = 'refunded'::text), 0::numeric) AS refunded,
            COALESCE(sum(returned.cents) FILTER (WHERE returned.status = ANY (ARRAY['approved'::text, 'failed'::text])), 0::numeric) AS in_flight
           FROM returned
          GROUP BY returned.payment_id
        ), found AS (
         SELECT 'payment_not_in_ledger'::text AS kind,
            p.carrier_org_id AS org_id,
            p.org_id AS provider_org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id AS payment_id,
            NULL::uuid AS refund_request_id,
            NULL::text AS part,
            p.payer,
            0::bigint AS ledger_cents,
            p.gross_cents AS processor_cents,
            p.currency,
            (('the processor settled this payment ('::text || p.status) ||
                CASE
                    WHEN p.duplicate_of IS NOT NULL THEN ', a duplicate charge'::text
                    ELSE ''::text
                END) || ') and the ledger has no payment entry for it'::text AS detail
           FROM stay_payments p
          WHERE p.settled AND p.gross_cents > 0 AND NOT (EXISTS ( SELECT 1
                   FROM app.ledger_entries l
                  WHERE l.payment_id = p.id AND l.kind = 'payment'::text))
        UNION ALL
         SELECT 'payment_part_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            part.name,
            p.payer,
            COALESCE(paid.cents, 0::numeric)::bigint AS "coalesce",
            part.cents,
            p.currency,
            (((('the processor says the payment paid '::text || part.cents) || ' cents of '::text) || part.name) || ', its payment entries '::text) || COALESCE(paid.cents, 0::numeric)
           FROM stay_payments p
             CROSS JOIN LATERAL ( VALUES ('rent'::text,p.rent_cents), ('deposit'::text,p.deposit_cents), ('fees'::text,p.fees_cents)) part(name, cents)
             LEFT JOIN paid ON paid.payment_id = p.id AND paid.part = part.name
          WHERE p.settled AND (EXISTS ( SELECT 1
                   FROM app.ledger_entries l
                  WHERE l.payment_id = p.id AND l.kind = 'payment'::text)) AND COALESCE(paid.cents, 0::numeric) <> part.cents::numeric
        UNION ALL
         SELECT 'payment_not_settled'::text AS text,
            l.org_id,
            p.org_id,
            l.environment,
            l.claim_id,
            l.claim_option_id,
            l.property_id,
            l.payment_id,
            NULL::uuid AS uuid,
            NULL::text AS text,
            min(l.payer) AS min,
            - sum(l.amount_cents)::bigint,
            0::bigint AS int8,
            min(l.currency) AS min,
            (('the ledger has '::text || count(*)) || ' payment or refund entries on a payment the processor reports '::text) || COALESCE(p.status, 'nowhere'::text)
           FROM app.ledger_entries l
             LEFT JOIN app.payments p ON p.id = l.payment_id
          WHERE (l.kind = ANY (ARRAY['payment'::text, 'refund'::text])) AND (p.id IS NULL OR (p.status <> ALL (ARRAY['succeeded'::text, 'refunded'::text])))
          GROUP BY l.org_id, p.org_id, l.environment, l.claim_id, l.claim_option_id, l.property_id, l.payment_id, p.status
        UNION ALL
         SELECT 'refund_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            NULL::text AS text,
            p.payer,
            COALESCE(t.refunded, 0::numeric)::bigint AS "coalesce",
            p.refunded_cents,
            p.currency,
            ((('the processor says '::text || p.refunded_cents) || ' cents of the payment were refunded, the ledger''s issued refunds '::text) || COALESCE(t.refunded, 0::numeric)) ||
                CASE
                    WHEN COALESCE(t.in_flight, 0::numeric) > 0::numeric THEN (' (and '::text || t.in_flight) || ' in flight)'::text
                    ELSE ''::text
                END
           FROM stay_payments p
             LEFT JOIN refund_totals t ON t.payment_id = p.id
          WHERE p.refunded_cents::numeric < COALESCE(t.refunded, 0::numeric) OR p.refunded_cents::numeric > (COALESCE(t.refunded, 0::numeric) + COALESCE(t.in_flight, 0::numeric))
        UNION ALL
         SELECT 'refund_exceeds_paid'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            r.part,
            p.payer,
            sum(r.cents)::bigint AS sum,
            COALESCE(max(paid.cents), 0::numeric)::bigint AS "coalesce",
            p.currency,
            ((((('the ledger refunds '::text || sum(r.cents)) || ' cents of '::text) || r.part) || ' on a payment whose entries paid '::text) || COALESCE(max(paid.cents), 0::numeric)) || ' of it'::text
           FROM returned r
             JOIN stay_payments p ON p.id = r.payment_id
             LEFT JOIN paid ON paid.payment_id = r.payment_id AND paid.part = r.part
          GROUP BY p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_option_id, p.property_id, p.id, r.part, p.payer, p.currency
         HAVING sum(r.cents) > COALESCE(max(paid.cents), 0::numeric)
        UNION ALL
         SELECT 'platform_fee_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            'rent'::text AS text,
            p.payer,
            round(COALESCE(paid.cents, 0::numeric) * 800::numeric / 10000.0)::bigint AS round,
            p.platform_fee_cents,
            p.currency,
            (((('the processor took a platform fee of '::text || p.platform_fee_cents) || ' cents, 8 % of the rent the entries paid ('::text) || COALESCE(paid.cents, 0::numeric)) || ') is '::text) || round(COALESCE(paid.cents, 0::numeric) * 800::numeric / 10000.0)
           FROM stay_payments p
             LEFT JOIN paid ON paid.payment_id = p.id AND paid.part = 'rent'::text
          WHERE p.settled AND (EXISTS ( SELECT 1
                   FROM app.ledger_entries l
                  WHERE l.payment_id = p.id AND l.kind = 'payment'::text)) AND p.platform_fee_cents::numeric <> round(COALESCE(paid.cents, 0::numeric) * 800::numeric / 10000.0)
        UNION ALL
         SELECT 'settlement_on_other_stay'::text AS text,
            l.org_id,
            p.org_id,
            l.environment,
            l.claim_id,
            l.claim_option_id,
            l.property_id,
            l.payment_id,
            l.refund_request_id,
            l.part,
            l.payer,
            l.amount_cents,
            0::bigint AS int8,
            l.currency,
            (('a '::text || l.kind) || ' entry on this stay names a payment of '::text) || COALESCE(('another stay ('::text || p.claim_option_id) || ')'::text, 'no stay'::text)
           FROM app.ledger_entries l
             JOIN app.payments p ON p.id = l.payment_id
          WHERE (l.kind = ANY (ARRAY['payment'::text, 'refund'::text])) AND p.claim_option_id IS DISTINCT FROM l.claim_option_id
        UNION ALL
         SELECT 'refund_on_other_payment'::text AS text,
            l.org_id,
            r.provider_org_id,
            l.environment,
            l.claim_id,
            l.claim_option_id,
            l.property_id,
            l.payment_id,
            l.refund_request_id,
            l.part,
            l.payer,
            l.amount_cents,
            0::bigint AS int8,
            l.currency,
            (('a refund entry names payment '::text || l.payment_id) || ', its request refunds payment '::text) || r.payment_id
           FROM app.ledger_entries l
             JOIN app.refund_requests r ON r.id = l.refund_request_id
          WHERE l.kind = 'refund'::text AND l.payment_id <> r.payment_id
        UNION ALL
         SELECT 'refund_not_approved'::text AS text,
            r.org_id,
            r.provider_org_id,
            r.environment,
            r.claim_id,
            r.claim_option_id,
            r.property_id,
            r.payment_id,
            r.id,
            NULL::text AS text,
            min(l.payer) AS min,
            sum(l.amount_cents)::bigint AS sum,
            0::bigint AS int8,
            r.currency,
            (('the ledger returns '::text || sum(l.amount_cents)) || ' cents for a refund request that is '::text) || r.status
           FROM app.refund_requests r
             JOIN app.ledger_entries l ON l.refund_request_id = r.id AND l.kind = 'refund'::text
          WHERE r.status <> ALL (ARRAY['approved'::text, 'failed'::text, 'refunded'::text])
          GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_option_id, r.property_id, r.provider_org_id, r.payment_id, r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill
        UNION ALL
         SELECT 'refund_in_flight'::text AS text,
            r.org_id,
            r.provider_org_id,
            r.environment,
            r.claim_id,
            r.claim_option_id,
            r.property_id,
            r.payment_id,
            r.id,
            NULL::text AS text,
            min(l.payer) AS min,
            COALESCE(sum(l.amount_cents), 0::numeric)::bigint AS "coalesce",
            0::bigint AS int8,
            r.currency,
            (('approved '::text || to_char((r.decided_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD HH24:MI'::text)) || ' UTC, not yet issued: its refund job is '::text) || COALESCE(( SELECT j.status ||
                        CASE
                            WHEN j.status = 'abandoned'::text THEN (' (admin job retry --id '::text || j.id) || ')'::text
                            ELSE ''::text
                        END
                   FROM app.jobs j
                  WHERE j.kind = 'issue_refund'::text AND (j.payload ->> 'refund_request_id'::text) = r.id::text
                  ORDER BY j.created_at DESC
                 LIMIT 1), 'not queued'::text)
           FROM app.refund_requests r
             LEFT JOIN app.ledger_entries l ON l.refund_request_id = r.id AND l.kind = 'refund'::text
          WHERE r.status = ANY (ARRAY['approved'::text, 'failed'::text])
          GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_option_id, r.property_id, r.provider_org_id, r.payment_id, r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill
        )
 SELECT f.kind,
    f.kind = 'refund_in_flight'::text AS in_flight,
    o.name AS organisation,
    f.org_id,
    f.provider_org_id,
    f.environment,
    c.claim_ref AS reference,
    f.claim_option_id AS placement_id,
    f.property_id,
    f.payment_id,
    f.refund_request_id,
    f.part,
    f.payer,
    f.ledger_cents,
    f.processor_cents,
        CASE
            WHEN f.kind = 'refund_differs'::text AND f.processor_cents > f.ledger_cents THEN (f.processor_cents - f.ledger_cents)::numeric - COALESCE(( SELECT t.in_flight
               FROM refund_totals t
              WHERE t.payment_id = f.payment_id), 0::numeric)
            WHEN f.kind = 'refund_in_flight'::text THEN 0::numeric
            ELSE (f.processor_cents - f.ledger_cents)::numeric
        END AS difference_cents,
    f.currency,
    f.detail
   FROM found f
     JOIN app.organisations o ON o.id = f.org_id
     LEFT JOIN app.claims c ON c.id = f.claim_id;
comment on view staff.ledger_differences is 'Reconciliation, stay by stay: every difference between the stay''s ledger (app.ledger_entries) and the processor''s record of the same money (app.payments), with its amount; empty when they agree. Rows with in_flight true are refunds approved and not yet issued, listed for what they will move, not differences. Both environments. The console''s `ledger reconcile` prints the same rows.';
comment on column staff.ledger_differences.kind is 'payment_not_in_ledger (a settled payment with no payment entry), payment_part_differs (a part''s payment entries do not sum to what the payment paid of it), payment_not_settled (entries on a payment the processor never settled), refund_differs (refunded_cents against the refunds issued in the ledger), refund_exceeds_paid (a part refunded beyond what the payment paid of it), platform_fee_differs (the fee taken against 8 % of the rent the entries paid), settlement_on_other_stay, refund_on_other_payment, refund_not_approved (refund entries of a request never approved), refund_in_flight (not a difference: approved, or failed and waiting for a retry).';
comment on column staff.ledger_differences.in_flight is 'True for a refund approved and not yet issued, or failed and waiting for staff to retry it (kind refund_in_flight): money about to move, not a difference.';
comment on column staff.ledger_differences.organisation is 'The carrier whose request the stay is on.';
comment on column staff.ledger_differences.org_id is 'The carrier organisation (the ledger''s tenant).';
comment on column staff.ledger_differences.provider_org_id is 'The landlord (provider organisation) on whose processor account the payment was made; null when the entry names no payment found.';
comment on column staff.ledger_differences.reference is 'The housing request (REQ-XXXXXX) the stay is on.';
comment on column staff.ledger_differences.placement_id is 'The stay: the option (home on the request, app.claim_options).';
comment on column staff.ledger_differences.payment_id is 'The processor payment concerned.';
comment on column staff.ledger_differences.refund_request_id is 'The refund request concerned, when one is.';
comment on column staff.ledger_differences.part is 'rent, deposit or fees, when the difference is of one part (the platform fee: rent).';
comment on column staff.ledger_differences.payer is 'Who paid the payment (carrier, tpa, policyholder); null on payments recorded before charges were split by payer.';
comment on column staff.ledger_differences.ledger_cents is 'What the ledger says, in cents: paid, refunded, the fee on the rent it paid, or (in flight) what the refund returns.';
comment on column staff.ledger_differences.processor_cents is 'What the processor''s record (app.payments) says of the same money, in cents; 0 where it has none.';
comment on column staff.ledger_differences.difference_cents is 'processor_cents less ledger_cents (for refund_differs, less what is in flight too): positive, the processor moved more than the ledger says; 0 in flight.';
comment on column staff.ledger_differences.detail is 'The difference in words.';
grant select on table staff.ledger_differences to service_role;
grant select on table staff.ledger_differences to supabase_admin;

create view staff.open_requests as
 SELECT c.claim_ref,
    o.name AS organisation,
    c.org_id,
    c.environment,
    c.status_primary AS status,
    floor(EXTRACT(epoch FROM now() - c.created_at) / 86400::numeric)::integer AS days_open,
    c.priority,
    c.target_move_in,
    c.target_move_in - CURRENT_DATE AS days_to_target_move_in,
    app.coordinator_of(c.*) AS coordinator,
    (( SELECT count(*) AS count
           FROM app.claim_options h
          WHERE h.claim_id = c.id AND h.cancelled_at IS NULL))::integer AS homes_on_request,
    c.opened_via,
    c.created_at,
    c.updated_at
   FROM app.claims c
     JOIN app.organisations o ON o.id = c.org_id
  WHERE c.status_primary <> 'move_out_closeout'::text;
comment on view staff.open_requests is 'Every housing request not yet closed out (status other than move_out_closeout); sort by days_open descending for the oldest. Both environments: filter on environment = ''live'' for real households.';
comment on column staff.open_requests.days_open is 'Whole days since the request was opened.';
comment on column staff.open_requests.days_to_target_move_in is 'Days until the household needs to move in (negative: overdue).';
comment on column staff.open_requests.coordinator is 'Who sources the request (its own coordinator, else the organisation''s); null: nobody assigned yet.';
comment on column staff.open_requests.homes_on_request is 'Homes put on the request and not cancelled.';
comment on column staff.open_requests.opened_via is 'api, or service (opened by a coordinator; the carrier''s API does not show it).';
grant select on table staff.open_requests to service_role;
grant select on table staff.open_requests to supabase_admin;

create view staff.open_requests_by_status as
 SELECT environment,
    status,
    count(*)::integer AS requests,
    max(days_open) AS oldest_days_open,
    percentile_disc(0.5::double precision) WITHIN GROUP (ORDER BY days_open) AS median_days_open,
    count(*) FILTER (WHERE priority = 'urgent'::text)::integer AS urgent,
    count(*) FILTER (WHERE days_to_target_move_in < 0)::integer AS past_target_move_in,
    count(*) FILTER (WHERE coordinator IS NULL)::integer AS without_coordinator
   FROM staff.open_requests
  GROUP BY environment, status
  ORDER BY environment, (array_position(ARRAY['housing_needs_collected'::text, 'housing_options_found'::text, 'options_sent'::text, 'awaiting_approval'::text, 'landlord_approval'::text, 'lease_execution'::text, 'lease_signed'::text, 'payment_setup'::text, 'booking_confirmed'::text, 'move_in_complete'::text, 'in_stay'::text], status));
comment on view staff.open_requests_by_status is 'Open requests counted per environment and status, in lifecycle order, with how long they have been open.';
comment on column staff.open_requests_by_status.oldest_days_open is 'Days open of the oldest request in that status.';
comment on column staff.open_requests_by_status.median_days_open is 'Median days open of the requests in that status.';
comment on column staff.open_requests_by_status.past_target_move_in is 'Requests whose target move-in date has passed.';
comment on column staff.open_requests_by_status.without_coordinator is 'Requests nobody is assigned to source.';
grant select on table staff.open_requests_by_status to service_role;
grant select on table staff.open_requests_by_status to supabase_admin;

create view staff.placements_in_flight as
 SELECT c.claim_ref,
    carrier.name AS carrier,
    h.environment,
    c.status_primary AS request_status,
    h.property_id,
    p.name AS home,
    provider.name AS provider,
    h.option_status,
    h.lease_status,
    h.move_in_date,
        CASE
            WHEN h.lease_status IS NULL THEN 'lease to be prepared (dates set, no lease yet)'::text
            WHEN h.lease_status = 'awaiting_lease'::text THEN 'lease to be sent for signature'::text
            WHEN h.lease_status = 'sent_for_signature'::text THEN 'policyholder''s signature'::text
            WHEN h.lease_status = 'policyholder_signed'::text THEN 'landlord''s signature'::text
            WHEN c.status_primary = ANY (ARRAY['lease_execution'::text, 'lease_signed'::text]) THEN 'payment setup'::text
            WHEN c.status_primary = 'payment_setup'::text THEN 'first payment'::text
            WHEN h.move_in_date IS NULL THEN 'move-in date'::text
            ELSE 'move-in on '::text || h.move_in_date::text
        END AS waits_on,
    floor(EXTRACT(epoch FROM now() - h.updated_at) / 86400::numeric)::integer AS days_since_last_change,
    h.added_at
   FROM app.claim_options h
     JOIN app.claims c ON c.id = h.claim_id
     JOIN app.organisations carrier ON carrier.id = h.org_id
     JOIN app.properties p ON p.id = h.property_id
     JOIN app.organisations provider ON provider.id = p.org_id
  WHERE h.cancelled_at IS NULL AND (h.lease_status IS NOT NULL OR h.move_in_date IS NOT NULL) AND (c.status_primary <> ALL (ARRAY['move_in_complete'::text, 'in_stay'::text, 'move_out_closeout'::text]));
comment on view staff.placements_in_flight is 'Homes with dates or a lease under way on requests whose household has not moved in yet, not cancelled, and the step each waits on.';
comment on column staff.placements_in_flight.waits_on is 'The next step: the lease being prepared or sent, a signature, payment, or the move-in.';
comment on column staff.placements_in_flight.days_since_last_change is 'Whole days since the placement last changed: a high number means it is stuck.';
grant select on table staff.placements_in_flight to service_role;
grant select on table staff.placements_in_flight to supabase_admin;
