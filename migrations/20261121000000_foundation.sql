-- Foundation: organisations, API keys, rate-limit windows, idempotency records, usage counters
-- and the events outbox.
--
-- Everything lives in the private schema `app`, which Supabase's REST layer does not expose and
-- on which its anon/authenticated roles get no grants. The API runs its queries as `svc_api`
-- (no BYPASSRLS); row-level security limits every tenant table to the organisation and
-- environment set in the transaction (`app.org_id`, `app.env`, see shared/db/tenant.ts).

create extension if not exists pgcrypto;
create extension if not exists btree_gist;

create schema if not exists app;

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'svc_api') then
    create role svc_api nologin nobypassrls;
  end if;
end $$;
grant svc_api to current_user;
grant usage on schema app to svc_api;

-- Supabase's client-facing roles never reach this schema.
do $$
declare r text;
begin
  foreach r in array array['anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('revoke all on schema app from %I', r);
      execute format('alter default privileges in schema app revoke all on tables from %I', r);
      execute format('alter default privileges in schema app revoke all on functions from %I', r);
    end if;
  end loop;
end $$;
revoke all on schema app from public;
alter default privileges in schema app revoke execute on functions from public;

-- The tenant of the current transaction; null (sees nothing) when unset.
create or replace function app.current_org() returns uuid
  language sql stable as $$ select nullif(current_setting('app.org_id', true), '')::uuid $$;
create or replace function app.current_env() returns text
  language sql stable as $$ select nullif(current_setting('app.env', true), '') $$;
grant execute on function app.current_org(), app.current_env() to svc_api;

create table app.organisations (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  side text not null check (side in ('carrier', 'provider')),
  created_at timestamptz not null default now()
);

create table app.api_keys (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  key_hash text not null unique,
  key_prefix text not null,
  name text,
  scopes text[] not null,
  -- A key issued to one person (for example a staff member's own key) is refused by the API:
  -- integrations use organisation keys.
  user_email text,
  -- Per-key override of the default per-minute limit (limits may be raised on request).
  rate_limit_per_minute integer check (rate_limit_per_minute > 0),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_org on app.api_keys (org_id);

-- One row per bucket: the current fixed one-minute window and its count.
create table app.rate_windows (
  bucket text primary key,
  window_start timestamptz not null,
  count integer not null
);

create table app.idempotency_keys (
  org_id uuid not null,
  environment text not null check (environment in ('live', 'sandbox')),
  key text not null,
  fingerprint text not null,
  state text not null check (state in ('in_progress', 'done')),
  locked_until timestamptz,
  response_status integer,
  response_content_type text,
  response_body text,
  created_at timestamptz not null default now(),
  primary key (org_id, environment, key)
);
create index idempotency_keys_created on app.idempotency_keys (created_at);

create table app.usage_daily (
  org_id uuid not null,
  environment text not null check (environment in ('live', 'sandbox')),
  key_id uuid not null references app.api_keys (id),
  day date not null,
  status_class text not null check (status_class in ('2xx', '3xx', '4xx', '5xx')),
  count integer not null,
  primary key (key_id, day, status_class)
);
create index usage_daily_org on app.usage_daily (org_id, environment, day);

-- The events outbox and event log: the system of record for everything the service announces.
create table app.events (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  event text not null check (event ~ '^[a-z_]+(\.[a-z_]+)*$'),
  payload jsonb not null,
  simulated boolean not null default false,
  created_at timestamptz not null default clock_timestamp()
);
create index events_feed on app.events (org_id, environment, created_at desc, id desc);
-- Retention reads events by age across every tenant. A BRIN index serves that range (events are
-- appended in time order) and, unlike a B-tree on created_at, offers the planner no ordered path to
-- compete with events_feed: with one, a tenant's newest-first page of the log could be read by
-- walking every newer event of other tenants, so a page would cost more the busier the others are.
create index events_recorded_brin on app.events using brin (created_at);

-- Row-level security: a tenant table is visible and writable only within the transaction's
-- context. Every migration that adds a tenant table calls this once for it.
create or replace function app.enable_tenant_isolation(p_table regclass) returns void
language plpgsql as $$
begin
  execute format('alter table %s enable row level security', p_table);
  execute format($p$create policy tenant_isolation on %s to svc_api
    using (org_id = app.current_org() and environment = app.current_env())
    with check (org_id = app.current_org() and environment = app.current_env())$p$, p_table);
end $$;

select app.enable_tenant_isolation(t) from unnest(array['app.idempotency_keys', 'app.usage_daily', 'app.events']::regclass[]) t;
alter table app.api_keys enable row level security;
create policy tenant_isolation on app.api_keys to svc_api
  using (org_id = app.current_org() and environment = app.current_env());
alter table app.organisations enable row level security;
create policy tenant_isolation on app.organisations to svc_api using (id = app.current_org());

grant select, insert, update, delete on app.idempotency_keys, app.usage_daily to svc_api;
grant select on app.events, app.organisations to svc_api;
grant select, update (revoked_at) on app.api_keys to svc_api;

-- Authentication and rate limiting in one statement (one database round trip per request).
-- Returns the key's tenant when the hash matches a live organisation key, and the state of the
-- caller's rate-limit window: the key's own, or the address's failed-authentication window.
-- A fault in the limiter lets the request pass (limiter_ok = false).
create or replace function app.authenticate(p_key_hash text, p_address text)
returns table (
  key_id uuid, org_id uuid, side text, environment text, scopes text[],
  rate_limit integer, rate_count integer, rate_reset timestamptz, limiter_ok boolean
)
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  k record;
  v_bucket text;
  v_window timestamptz := date_trunc('minute', now());
begin
  select a.id, a.org_id, o.side, a.environment, a.scopes,
         coalesce(a.rate_limit_per_minute, case a.environment when 'live' then 600 else 120 end) as lim
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

  rate_reset := v_window + interval '1 minute';
  begin
    perform set_config('lock_timeout', '250ms', true);
    insert into app.rate_windows as w (bucket, window_start, count)
    values (v_bucket, v_window, 1)
    on conflict (bucket) do update
      set count = case when w.window_start = excluded.window_start then w.count + 1 else 1 end,
          window_start = excluded.window_start
    returning w.count into rate_count;
    limiter_ok := true;
  exception when others then
    rate_count := 0;
    limiter_ok := false;
  end;
  return next;
end $$;

-- Records an event in the outbox. Security definer so that an operation may announce to the
-- counterpart organisation (a booking of a carrier's request is an event for the provider too);
-- without explicit target it files the event under the current tenant.
create or replace function app.record_event(
  p_event text, p_payload jsonb, p_org uuid default null, p_env text default null, p_simulated boolean default false
) returns uuid
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_id uuid;
begin
  insert into app.events (org_id, environment, event, payload, simulated)
  values (coalesce(p_org, app.current_org()), coalesce(p_env, app.current_env()), p_event, p_payload, p_simulated)
  returning id into v_id;
  return v_id;
end $$;
grant execute on function app.record_event(text, jsonb, uuid, text, boolean) to svc_api;
