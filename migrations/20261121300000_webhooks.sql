-- Webhooks: endpoints, the delivery queue fed by the events outbox, event retention, and the
-- schedule that drives the dispatcher on Supabase.
--
-- Recording an event (app.record_event, or any insert into app.events) fans it out in the same
-- transaction into app.webhook_deliveries: one row per active endpoint of the event's organisation
-- and environment that subscribes to it. Dispatchers (shared/webhooks/dispatcher.ts) claim due rows
-- with FOR UPDATE SKIP LOCKED; a claim leases the row by moving its due time past the lease, so a
-- dispatcher that dies mid-batch loses nothing: its rows fall due again when the lease runs out.

-- A delivery must never cross tenants: deliveries reference (event, org, environment) and
-- (endpoint, org, environment) together, so both sides of each row agree on the tenant.
create unique index events_tenant_key on app.events (id, org_id, environment);

create table app.webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  url text not null check (url ~ '^https://' and length(url) <= 2048),
  -- null: every event of the organisation's side, including those added later.
  events text[] check (events is null or cardinality(events) between 1 and 100),
  description text check (length(description) <= 500),
  is_active boolean not null default true,
  -- The signing secret. The API role may write it but never read it back (column grants below):
  -- it is shown once, when issued.
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9]{32,}$'),
  secret_rotated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, org_id, environment)
);
create index webhook_endpoints_feed on app.webhook_endpoints (org_id, environment, created_at desc, id desc);

create table app.webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null,
  environment text not null check (environment in ('live', 'sandbox')),
  endpoint_id uuid not null,
  -- null only for the test ping, which is not an event of the log.
  event_id uuid,
  event text not null,
  replay boolean not null default false,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'abandoned', 'cancelled')),
  -- Attempts started (claims). Attempt n that fails waits the n-th step of the retry schedule.
  attempts integer not null default 0 check (attempts >= 0),
  -- When the row is next due; while a dispatcher holds it, when its lease runs out.
  next_attempt_at timestamptz,
  -- Set while a dispatcher holds the row; a result is recorded only with the token of its claim.
  lease_token uuid,
  claimed_at timestamptz,
  -- The endpoint's secret when the delivery was queued (queued deliveries keep signing with it after
  -- a rotation). Kept only while the delivery may still be sent.
  signing_secret text,
  -- One entry per attempt: attempt, at, outcome, http_status, response_body (excerpt), error, duration_ms.
  history jsonb not null default '[]' check (jsonb_typeof(history) = 'array'),
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  foreign key (endpoint_id, org_id, environment)
    references app.webhook_endpoints (id, org_id, environment) on delete cascade,
  foreign key (event_id, org_id, environment)
    references app.events (id, org_id, environment) on delete cascade,
  check ((status = 'pending') = (next_attempt_at is not null)),
  check ((status = 'pending') = (signing_secret is not null)),
  check ((status = 'pending') = (completed_at is null)),
  check ((lease_token is null) = (claimed_at is null)),
  check ((event = 'ping') = (event_id is null)),
  check (not (replay and event_id is null))
);
-- The claim: due rows in due order. Only pending rows are indexed, so finished history costs nothing.
create index webhook_deliveries_due on app.webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_feed on app.webhook_deliveries (org_id, environment, created_at desc, id desc);
create index webhook_deliveries_endpoint on app.webhook_deliveries (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_event on app.webhook_deliveries (event_id);
-- A replay waiting to be sent is not queued twice to the same endpoint.
create unique index webhook_deliveries_one_waiting_replay on app.webhook_deliveries (event_id, endpoint_id)
  where replay and status = 'pending';

select app.enable_tenant_isolation(t) from unnest(array['app.webhook_endpoints', 'app.webhook_deliveries']::regclass[]) t;

grant select (id, org_id, environment, url, events, description, is_active, secret_rotated_at, created_at, updated_at),
      insert, delete
   on app.webhook_endpoints to svc_api;
grant update (url, events, description, is_active, secret, secret_rotated_at, updated_at) on app.webhook_endpoints to svc_api;
-- The API reads the queue; rows are written only by the fan-out, the queueing functions below and
-- the dispatcher (owner).
grant select (id, org_id, environment, endpoint_id, event_id, event, replay, status, attempts, next_attempt_at,
              history, created_at, completed_at)
   on app.webhook_deliveries to svc_api;

-- Fan-out: every recorded event, whoever records it, is queued in the same transaction to the
-- active endpoints of its organisation and environment that subscribe to it. Set-based per statement.
create or replace function app.fan_out_events() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, signing_secret, next_attempt_at)
  select e.org_id, e.environment, w.id, e.id, e.event, w.secret, now()
    from recorded e
    join app.webhook_endpoints w
      on w.org_id = e.org_id and w.environment = e.environment and w.is_active
     and (w.events is null or e.event = any (w.events));
  return null;
end $$;
create trigger events_fan_out after insert on app.events
  referencing new table as recorded for each statement execute function app.fan_out_events();

-- Deactivating an endpoint stops what is waiting for it; a replay recovers it after reactivation.
create or replace function app.cancel_waiting_deliveries() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  update app.webhook_deliveries
     set status = 'cancelled', next_attempt_at = null, signing_secret = null, completed_at = now()
   where endpoint_id = new.id and status = 'pending';
  return null;
end $$;
create trigger webhook_endpoints_deactivated after update of is_active on app.webhook_endpoints
  for each row when (old.is_active and not new.is_active) execute function app.cancel_waiting_deliveries();

-- Replay: queues an event of the current tenant again to its active endpoints subscribed now.
-- Returns how many endpoints subscribe and how many deliveries were queued (an endpoint that
-- already has a replay of the event waiting is not queued again). Null when the event is not the tenant's.
create or replace function app.queue_replay(p_event_id uuid)
returns table (subscribed integer, queued integer)
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_event app.events;
begin
  select * into v_event from app.events
   where id = p_event_id and org_id = app.current_org() and environment = app.current_env();
  if not found then return; end if;
  return query
  with targets as (
    select w.id, w.secret from app.webhook_endpoints w
     where w.org_id = v_event.org_id and w.environment = v_event.environment and w.is_active
       and (w.events is null or v_event.event = any (w.events))
  ), inserted as (
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, replay, signing_secret, next_attempt_at)
    select v_event.org_id, v_event.environment, t.id, v_event.id, v_event.event, true, t.secret, now() from targets t
    on conflict (event_id, endpoint_id) where replay and status = 'pending' do nothing
    returning 1
  )
  select (select count(*) from targets)::integer, (select count(*) from inserted)::integer;
end $$;

-- The test ping: queued to one endpoint of the current tenant, whatever it subscribes to and
-- whether or not it is active. Returns the delivery id, or null when the endpoint is not the tenant's.
create or replace function app.queue_ping(p_endpoint_id uuid) returns uuid
language sql security definer set search_path = app, pg_temp as $$
  insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, signing_secret, next_attempt_at)
  select w.org_id, w.environment, w.id, 'ping', w.secret, now() from app.webhook_endpoints w
   where w.id = p_endpoint_id and w.org_id = app.current_org() and w.environment = app.current_env()
  returning id
$$;

revoke all on function app.fan_out_events(), app.cancel_waiting_deliveries(), app.queue_replay(uuid), app.queue_ping(uuid) from public;
grant execute on function app.queue_replay(uuid), app.queue_ping(uuid) to svc_api;

-- Pings have no event to cascade from; they are purged by age on their own.
create index webhook_deliveries_pings on app.webhook_deliveries (created_at) where event_id is null;

-- Retention: events are kept 90 days. Their deliveries go with them (cascade); pings, which have
-- no event, after the same time. Deletes in batches so that no statement holds locks for long.
create or replace function app.purge_expired_events(p_batch integer default 5000) returns bigint
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_cutoff timestamptz := now() - interval '90 days';
  v_total bigint := 0;
  v_count integer;
begin
  loop
    delete from app.events where id in (select id from app.events where created_at < v_cutoff limit p_batch);
    get diagnostics v_count = row_count;
    v_total := v_total + v_count;
    exit when v_count < p_batch;
  end loop;
  delete from app.webhook_deliveries where event_id is null and created_at < v_cutoff;
  return v_total;
end $$;
revoke all on function app.purge_expired_events(integer) from public;

-- Supabase: pg_cron calls the internal webhook-dispatcher function through pg_net, with the address
-- and the shared secret kept in Supabase Vault (see docs/webhooks.md). Ticks with nothing due
-- make no call at all.
create or replace function app.invoke_webhook_dispatcher() returns bigint
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_url text;
  v_secret text;
begin
  if not exists (select 1 from app.webhook_deliveries where status = 'pending' and next_attempt_at <= now()) then
    return null;
  end if;
  select decrypted_secret into v_url from vault.decrypted_secrets where name = 'webhook_dispatcher_url';
  select decrypted_secret into v_secret from vault.decrypted_secrets where name = 'webhook_dispatcher_secret';
  if v_url is null or v_secret is null then
    raise warning 'webhook dispatch skipped: store webhook_dispatcher_url and webhook_dispatcher_secret in Vault';
    return null;
  end if;
  return net.http_post(
    url := v_url,
    body := '{}'::jsonb,
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret),
    timeout_milliseconds := 30000
  );
end $$;
revoke all on function app.invoke_webhook_dispatcher() from public;

-- Scheduling where pg_cron and pg_net exist (Supabase): the dispatcher every 10 seconds, retention
-- hourly. Elsewhere (the embedded database of the local server and the tests) it only says so, and
-- the local server's timers do the same work; the extensions are tried in a subtransaction, so their
-- absence never aborts the migration. Returns whether the jobs are scheduled.
create or replace function app.schedule_webhook_jobs() returns boolean
language plpgsql set search_path = app, pg_temp as $$
begin
  begin
    -- The schemas Supabase installs them in.
    create extension if not exists pg_cron with schema pg_catalog;
    create extension if not exists pg_net with schema extensions;
  exception when others then
    raise notice 'pg_cron/pg_net not available (%); webhook dispatch and event retention are left to the local server', sqlerrm;
    return false;
  end;
  -- cron.schedule replaces a job of the same name, so running this again changes nothing.
  perform cron.schedule('webhook-dispatch', '10 seconds', 'select app.invoke_webhook_dispatcher()');
  perform cron.schedule('event-retention', '17 * * * *', 'select app.purge_expired_events()');
  return true;
end $$;
revoke all on function app.schedule_webhook_jobs() from public;

select app.schedule_webhook_jobs();
