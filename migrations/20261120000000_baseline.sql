-- Baseline: the schema as of the first deployable version, squashed from the migrations written
-- before any database was deployed (foundation, properties, claims, matching, webhooks, simulated
-- events held to sandbox). From here on migrations are append-only: a change is a new file, and the
-- migrator refuses to start when an applied file changed (see README "Migrations").
--
-- The US ZIP centroid reference data is generated separately (20261120000100_zip_centroids.sql);
-- the functions here that read it are PL/pgSQL, resolved when first called.

-- ============================================================================================
-- foundation
-- ============================================================================================

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

-- ============================================================================================
-- properties
-- ============================================================================================

-- Provider side: homes, availability blocks, payout accounts, bookings and payments.
--
-- Money is integer cents. Dates are `date`. Every tenant table carries org_id + environment and
-- is limited by row-level security to the transaction's tenant (see the foundation migration).
-- Functions that other organisations' operations need (a carrier's placement checking and holding
-- a provider's calendar, checking the provider's payout account) are SECURITY DEFINER with a fixed
-- search_path; row-level security itself is never widened for them.

create table app.properties (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  external_id text check (length(external_id) between 1 and 255),
  name text,
  address text not null,
  city text not null,
  state text not null,
  zip_code text not null,
  latitude double precision check (latitude between -90 and 90),
  longitude double precision check (longitude between -180 and 180),
  currency text not null default 'usd' check (currency ~ '^[a-z]{3}$'),
  monthly_rate_cents bigint not null check (monthly_rate_cents > 0),
  -- Optional rent tiers by stay length; absent means the stay bills at monthly_rate.
  rent_1_3_months_cents bigint check (rent_1_3_months_cents > 0),
  rent_4_6_months_cents bigint check (rent_4_6_months_cents > 0),
  rent_7_9_months_cents bigint check (rent_7_9_months_cents > 0),
  rent_10_12_months_cents bigint check (rent_10_12_months_cents > 0),
  bedrooms integer not null check (bedrooms >= 0),
  bathrooms numeric(4, 1) not null check (bathrooms >= 0),
  sqft integer check (sqft > 0),
  furnished_status text check (furnished_status in ('furnished', 'partial', 'unfurnished')),
  available_from date,
  -- One-off charges: 0 means not applicable, null means the provider has not said (missing).
  security_deposit_cents bigint check (security_deposit_cents >= 0),
  cleaning_fee_cents bigint check (cleaning_fee_cents >= 0),
  application_fee_cents bigint check (application_fee_cents >= 0),
  pet_fee_cents bigint check (pet_fee_cents >= 0),
  -- Fields the specification leaves unnamed (see docs/properties.md).
  pet_rent_cents bigint check (pet_rent_cents >= 0),
  pet_deposit_cents bigint check (pet_deposit_cents >= 0),
  utilities_included boolean,
  utilities_monthly_cents bigint check (utilities_monthly_cents >= 0),
  contract_template text not null default 'standard' check (contract_template in ('standard', 'own')),
  image_urls text[] not null default '{}',
  description text,
  amenities text[],
  pet_policy text,
  status text not null default 'available' check (status in ('available', 'pending', 'unavailable')),
  -- Listing readiness, kept by the trigger below from the row itself: never written by callers.
  listed boolean not null default false,
  verified boolean not null default false,
  missing_fields text[] not null default '{}',
  -- Set when the home's calendar was last written by the bulk calendar sync (POST /properties/availability).
  calendar_synced_at timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
-- external_id is the provider's reference: unique per organisation and environment. Rows without
-- one never conflict (nulls are distinct), so this index also serves ON CONFLICT upserts.
create unique index properties_external_id on app.properties (org_id, environment, external_id);
-- What the home's blocks, bookings and payments reference, so that their org_id is always the home's
-- owner (their environment is their own: a sandbox hold may sit on a real home).
create unique index properties_owner_key on app.properties (id, org_id);
create index properties_portfolio on app.properties (org_id, environment, created_at desc, id desc);

-- The listing-completeness rule of the specification, in its order, as API field names.
-- Deposits and fees: absent is missing, 0 is fine. Text must be non-blank.
create or replace function app.listing_missing_fields(p app.properties) returns text[]
language sql immutable set search_path = app, pg_temp as $$
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
$$;

-- Readiness is stored with the row so that listings, readiness and matching read one column.
-- A home is verified when the listing is complete and its availability is readable; available_from
-- is part of completeness, so a listed home always has readable availability.
create or replace function app.properties_readiness() returns trigger
language plpgsql set search_path = app, pg_temp as $$
begin
  new.missing_fields := app.listing_missing_fields(new);
  new.listed := cardinality(new.missing_fields) = 0;
  new.verified := new.listed and new.available_from is not null;
  if tg_op = 'UPDATE' then
    new.updated_at := clock_timestamp();
  end if;
  return new;
end $$;
create trigger properties_readiness before insert or update on app.properties
  for each row execute function app.properties_readiness();

create table app.availability_blocks (
  id uuid primary key default gen_random_uuid(),
  property_id uuid not null,
  -- The home's owner; the environment is the block's own, which may differ from the home's
  -- (a sandbox request may hold a real home). Availability of one environment never shows in the other.
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  start_date date not null,
  -- Inclusive: a block from 2026-03-01 to 2026-03-31 covers both dates ('[]' ranges below).
  end_date date not null,
  reason text check (length(reason) <= 500),
  source text not null check (source in ('provider', 'service')),
  lease_agreement_id uuid,
  created_at timestamptz not null default clock_timestamp(),
  check (end_date >= start_date),
  check (source = 'service' or lease_agreement_id is null),
  -- Holds taken by the service for a lease or booking never overlap one another.
  constraint availability_service_holds_disjoint exclude using gist (
    property_id with =, environment with =, daterange(start_date, end_date, '[]') with &&
  ) where (source = 'service'),
  foreign key (property_id, org_id) references app.properties (id, org_id)
);
create index availability_blocks_calendar on app.availability_blocks (property_id, environment, start_date);
create index availability_blocks_tenant on app.availability_blocks (org_id, environment);
create index availability_blocks_lease on app.availability_blocks (lease_agreement_id) where lease_agreement_id is not null;

-- How a home's availability is read, for the home's own environment: complete_profile when the
-- listing is complete, then calendar_synced, manual_blocks and available_dates when they apply.
create or replace function app.availability_via(p app.properties) returns text[]
language sql stable set search_path = app, pg_temp as $$
  select array_remove(array[
    case when p.listed then 'complete_profile' end,
    case when p.calendar_synced_at is not null then 'calendar_synced' end,
    case when exists (select 1 from app.availability_blocks b
                       where b.property_id = p.id and b.environment = p.environment and b.source = 'provider')
         then 'manual_blocks' end,
    case when p.available_from is not null then 'available_dates' end
  ], null)
$$;

-- The strongest way availability is read for a verified home (null when not verified).
create or replace function app.verified_via(p app.properties) returns text
language sql stable set search_path = app, pg_temp as $$
  select case when p.verified then (array_remove(app.availability_via(p), 'complete_profile'))[1] end
$$;

-- "The range is free": no block of any source in that environment touches [p_start, p_end].
-- Locks the home row until the end of the calling transaction: that lock conflicts with the
-- key-share lock that inserting any block takes on the home, so the answer covers every block
-- committed before, no block can slip in afterwards, and a hold taken in the same transaction
-- can rely on it under concurrency.
create or replace function app.range_is_free(p_property uuid, p_env text, p_start date, p_end date)
returns boolean
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  perform 1 from app.properties where id = p_property for update;
  return not exists (
    select 1 from app.availability_blocks b
     where b.property_id = p_property and b.environment = p_env
       and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]'));
end $$;

-- Takes a service hold for a lease or booking when the range is free; returns the block id, or
-- null when something already holds part of the range (the caller answers dates_unavailable).
-- A live placement can never hold a test home (live requests never match sandbox homes).
create or replace function app.take_hold(
  p_property uuid, p_env text, p_start date, p_end date, p_lease_agreement uuid, p_reason text default null
) returns uuid
language plpgsql security definer set search_path = app, pg_temp as $$
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
end $$;

-- Releases the service holds of a lease (cancellation); returns how many were removed.
create or replace function app.release_holds(p_lease_agreement uuid, p_env text) returns integer
language sql security definer set search_path = app, pg_temp as $$
  with gone as (
    delete from app.availability_blocks
     where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service'
    returning 1)
  select count(*)::integer from gone
$$;

-- Payout account status per provider and environment. No row means the environment's default:
-- live accounts start not connected, sandbox accounts start connected with charges and payouts on.
create table app.payout_accounts (
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  connected boolean not null,
  charges_enabled boolean not null,
  payouts_enabled boolean not null,
  onboarding_status text not null check (onboarding_status in ('not_started', 'pending', 'complete')),
  bank_account_last4 text check (bank_account_last4 ~ '^[0-9]{4}$'),
  processor_account_id text,
  updated_at timestamptz not null default clock_timestamp(),
  primary key (org_id, environment),
  check (connected or not (charges_enabled or payouts_enabled))
);

-- The payout account of a provider in an environment, with the environment's starting state when
-- the processor has reported nothing yet: sandbox accounts start connected with charges and
-- payouts enabled (test bank account ending 6789); live accounts start not connected.
create or replace function app.payout_status(p_org uuid, p_env text) returns app.payout_accounts
language sql stable security definer set search_path = app, pg_temp as $$
  select coalesce(
    (select a from app.payout_accounts a where a.org_id = p_org and a.environment = p_env),
    jsonb_populate_record(null::app.payout_accounts, jsonb_build_object(
      'org_id', p_org, 'environment', p_env,
      'connected', p_env = 'sandbox', 'charges_enabled', p_env = 'sandbox', 'payouts_enabled', p_env = 'sandbox',
      'onboarding_status', case when p_env = 'sandbox' then 'complete' else 'not_started' end,
      'bank_account_last4', case when p_env = 'sandbox' then '6789' end,
      'updated_at', now())))
$$;

-- Until charges are enabled, no family can be placed in the provider's homes (matching and
-- placing ask this, for the environment of the request).
create or replace function app.can_take_charges(p_org uuid, p_env text) returns boolean
language sql stable security definer set search_path = app, pg_temp as $$
  select (app.payout_status(p_org, p_env)).charges_enabled
$$;

-- A family booked into a provider's home. org_id is the provider (the home's owner); the carrier
-- that placed the family reads it too (counterpart policy below). The environment is the
-- placement's, so a sandbox booking of a real home stays in sandbox.
create table app.bookings (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  property_id uuid not null,
  carrier_org_id uuid references app.organisations (id),
  claim_id uuid,
  lease_agreement_id uuid,
  booking_status text not null default 'confirmed' check (booking_status in ('confirmed', 'cancelled')),
  check_in date not null,
  check_out date not null,
  move_in_confirmed_at timestamptz,
  cancelled_at timestamptz,
  currency text not null default 'usd' check (currency ~ '^[a-z]{3}$'),
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  check (check_out > check_in),
  check ((booking_status = 'cancelled') = (cancelled_at is not null)),
  foreign key (property_id, org_id) references app.properties (id, org_id)
);
create index bookings_provider on app.bookings (org_id, environment, created_at desc, id desc);
create index bookings_carrier on app.bookings (carrier_org_id, environment) where carrier_org_id is not null;

-- Name and reference of the caller's own homes in any environment: a sandbox booking of a real
-- home is read with a sandbox key, under which the live home itself is not visible.
create or replace function app.own_home_labels(p_ids uuid[])
returns table (id uuid, name text, external_id text)
language sql stable security definer set search_path = app, pg_temp as $$
  select p.id, p.name, p.external_id from app.properties p
   where p.id = any(p_ids) and p.org_id = app.current_org()
$$;

-- Each charge on the landlord's own processor account. The platform fee comes from rent only;
-- the card processing fee is taken on the whole charge; net is what reaches the provider.
create table app.payments (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  property_id uuid not null,
  booking_id uuid references app.bookings (id),
  carrier_org_id uuid references app.organisations (id),
  claim_id uuid,
  lease_agreement_id uuid,
  charge_type text not null default 'initial' check (charge_type in ('initial', 'rent', 'deposit', 'fee')),
  status text not null check (status in ('succeeded', 'failed', 'refunded')),
  rent_cents bigint not null default 0 check (rent_cents >= 0),
  deposit_cents bigint not null default 0 check (deposit_cents >= 0),
  fees_cents bigint not null default 0 check (fees_cents >= 0),
  gross_cents bigint generated always as (rent_cents + deposit_cents + fees_cents) stored,
  platform_fee_cents bigint not null default 0 check (platform_fee_cents between 0 and rent_cents),
  processing_fee_cents bigint not null default 0 check (processing_fee_cents >= 0),
  net_cents bigint generated always as (rent_cents + deposit_cents + fees_cents - platform_fee_cents - processing_fee_cents) stored,
  currency text not null default 'usd' check (currency ~ '^[a-z]{3}$'),
  paid_at timestamptz,
  failure_reason text,
  created_at timestamptz not null default clock_timestamp(),
  check ((status = 'failed') = (paid_at is null)),
  foreign key (property_id, org_id) references app.properties (id, org_id)
);
create index payments_booking on app.payments (booking_id, created_at);
create index payments_provider on app.payments (org_id, environment, created_at desc);

select app.enable_tenant_isolation(t)
  from unnest(array['app.properties', 'app.availability_blocks', 'app.payout_accounts', 'app.bookings', 'app.payments']::regclass[]) t;
-- The carrier that placed a family reads the booking and its payments in its own environment.
create policy counterpart_read on app.bookings for select to svc_api
  using (carrier_org_id = app.current_org() and environment = app.current_env());
create policy counterpart_read on app.payments for select to svc_api
  using (carrier_org_id = app.current_org() and environment = app.current_env());

grant select, insert, update on app.properties to svc_api;
grant select, insert, delete on app.availability_blocks to svc_api;
grant select, insert, update on app.payout_accounts to svc_api;
grant select on app.bookings, app.payments to svc_api;
grant execute on function
  app.listing_missing_fields(app.properties), app.availability_via(app.properties), app.verified_via(app.properties),
  app.range_is_free(uuid, text, date, date), app.take_hold(uuid, text, date, date, uuid, text),
  app.release_holds(uuid, text), app.payout_status(uuid, text), app.can_take_charges(uuid, text),
  app.own_home_labels(uuid[])
  to svc_api;

-- ============================================================================================
-- claims
-- ============================================================================================

-- Carrier side: housing requests (claims), their documents, sourcing rounds, coordinators, and the
-- homes put on a request (extended by the placement work).
--
-- Value sets mirror shared/claims/values.ts and shared/claims/status.ts; the API validates first
-- and these checks are the second line. Money is integer cents.

create table app.claims (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_ref text not null unique check (claim_ref ~ '^REQ-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$'),
  -- Coordinators also open requests inside the service; the API never shows those (policy below).
  opened_via text not null default 'api' check (opened_via in ('api', 'service')),
  -- The caller's `external_id` given at creation (returned as api_external_id).
  external_id text check (length(external_id) between 1 and 255),
  external_reference text check (length(external_reference) <= 255),
  status_primary text not null default 'housing_needs_collected' check (status_primary in (
    'housing_needs_collected', 'housing_options_found', 'options_sent', 'awaiting_approval',
    'landlord_approval', 'lease_execution', 'lease_signed', 'payment_setup', 'booking_confirmed',
    'move_in_complete', 'in_stay', 'move_out_closeout')),

  -- The loss and the household's identity never change: a different address is a different request.
  loss_address text not null check (length(loss_address) between 1 and 255),
  loss_city text not null check (length(loss_city) between 1 and 255),
  loss_state text not null check (length(loss_state) between 1 and 255),
  loss_zip text not null check (length(loss_zip) between 1 and 20),
  loss_country text not null default 'US' check (loss_country ~ '^[A-Z]{2}$'),
  loss_lat double precision check (loss_lat between -90 and 90),
  loss_lng double precision check (loss_lng between -180 and 180),
  -- Where matching measures distance from: the given coordinates, else the loss ZIP's centroid.
  origin_lat double precision not null check (origin_lat between -90 and 90),
  origin_lng double precision not null check (origin_lng between -180 and 180),
  policyholder_name text check (length(policyholder_name) <= 255),

  -- Commercials.
  target_move_in date not null,
  est_length_months integer not null check (est_length_months between 1 and 36),
  max_budget_cents bigint check (max_budget_cents > 0),
  ale_limit_cents bigint check (ale_limit_cents > 0),
  rent_payer text not null check (rent_payer in ('carrier', 'tpa', 'policyholder')),
  deposit_payer text not null check (deposit_payer in ('carrier', 'tpa', 'policyholder')),
  fees_payer text check (fees_payer in ('carrier', 'tpa', 'policyholder')),
  search_radius_miles integer not null default 25 check (search_radius_miles between 1 and 150),
  priority text not null default 'standard' check (priority in ('standard', 'high', 'urgent')),
  household_email text check (length(household_email) <= 255),
  household_phone text check (length(household_phone) <= 40),
  adjuster_name text check (length(adjuster_name) <= 255),
  adjuster_email text check (length(adjuster_email) <= 255),
  adjuster_phone text check (length(adjuster_phone) <= 40),

  -- Household needs.
  bedrooms integer not null check (bedrooms between 0 and 20),
  bathrooms numeric(3, 1) not null check (bathrooms between 0 and 20 and bathrooms * 2 = trunc(bathrooms * 2)),
  sqft integer not null check (sqft between 100 and 20000),
  adults integer not null check (adults between 1 and 30),
  children integer not null default 0 check (children between 0 and 30),
  occupants integer generated always as (adults + children) stored,
  property_type text not null check (property_type in ('apartment', 'condo', 'townhouse', 'house', 'duplex', 'any')),
  furnishing text not null check (furnishing in ('furnished', 'partial', 'unfurnished', 'any')),
  accessibility_needs text[] not null default '{}' check (cardinality(accessibility_needs) <= 20),
  amenities text[] not null default '{}' check (cardinality(amenities) <= 20),
  laundry_preference text check (laundry_preference in ('in_unit', 'on_site', 'no_preference')),
  parking_preference text check (parking_preference in ('garage', 'dedicated', 'street', 'no_preference')),
  has_pets boolean not null default false,
  number_of_pets integer check (number_of_pets between 1 and 20),
  pet_details text check (length(pet_details) <= 2000),
  pet_breeds text[] check (cardinality(pet_breeds) between 1 and 20),
  -- Pets come with their detail, and withdrawing pets clears it.
  check (has_pets = (number_of_pets is not null)
     and has_pets = (pet_details is not null)
     and has_pets = (pet_breeds is not null)),

  -- The service's coordinator sourcing this request, when assigned to it alone (see app.coordinator_of).
  coordinator_email text check (length(coordinator_email) <= 255),
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  check ((loss_lat is null) = (loss_lng is null))
);
-- external_id is unique per organisation and environment; rows without one never conflict
-- (nulls are distinct), so this index also arbitrates concurrent creations (ON CONFLICT).
create unique index claims_external_id on app.claims (org_id, environment, external_id);
-- What a request's documents, sourcing rounds and homes reference, so that each belongs to the
-- tenant of its request: the database refuses a row filed under another organisation or environment.
create unique index claims_tenant_key on app.claims (id, org_id, environment);
create index claims_feed on app.claims (org_id, environment, created_at desc, id desc);
create index claims_updated on app.claims (org_id, environment, updated_at);

create or replace function app.claims_touch() returns trigger
language plpgsql set search_path = app, pg_temp as $$
begin
  new.updated_at := clock_timestamp();
  return new;
end $$;
create trigger claims_touch before update on app.claims for each row execute function app.claims_touch();

-- The organisation's default coordinator for its live requests (set with the operator console).
create table app.org_coordinators (
  org_id uuid primary key references app.organisations (id),
  email text not null check (length(email) between 3 and 255),
  assigned_at timestamptz not null default clock_timestamp()
);

-- Who sources a request: its own coordinator, else (live) the organisation's. Sandbox requests always
-- have the sandbox coordinator, a stand-in nobody is contacted through.
create or replace function app.coordinator_of(p app.claims) returns text
language sql stable set search_path = app, pg_temp as $$
  select case
    when p.environment = 'sandbox' then 'sandbox-coordinator@sandbox.invalid'
    else coalesce(p.coordinator_email, (select o.email from app.org_coordinators o where o.org_id = p.org_id))
  end
$$;

-- Documents filed on a request. The bytes live in document storage under storage_key.
create table app.claim_documents (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  kind text not null check (kind in ('loss_report', 'policy', 'identification', 'lease', 'invoice', 'correspondence', 'photo', 'other')),
  description text check (length(description) <= 500),
  filename text not null check (length(filename) between 1 and 255),
  content_type text not null,
  size_bytes integer not null check (size_bytes > 0),
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  storage_key text not null unique,
  -- 'api': uploaded through the caller's integration; 'service': filed by the service's team.
  uploaded_via text not null check (uploaded_via in ('api', 'service')),
  api_key_id uuid references app.api_keys (id),
  created_at timestamptz not null default clock_timestamp(),
  check ((uploaded_via = 'api') = (api_key_id is not null)),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment)
);
create index claim_documents_claim on app.claim_documents (claim_id, created_at);

-- Each sourcing round: matching run plus a crawl request in the loss postcode.
create table app.sourcing_rounds (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  trigger text not null check (trigger in ('opened', 'source_more')),
  coordinator_email text,
  matches_found integer not null check (matches_found >= 0),
  crawl_postcode text not null,
  crawl_request jsonb not null,
  crawl_status text not null default 'pending' check (crawl_status in ('pending', 'sent', 'recorded', 'not_configured', 'failed')),
  crawl_detail text,
  created_at timestamptz not null default clock_timestamp(),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment)
);
create index sourcing_rounds_claim on app.sourcing_rounds (claim_id, created_at);

-- Homes put on a request. Minimal here (what the request itself needs: the timeline and the
-- placement-in-progress note on amendments); the placement work extends it.
create table app.claim_homes (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  property_id uuid not null references app.properties (id),
  option_status text,
  lease_status text check (lease_status in ('awaiting_lease', 'sent_for_signature', 'policyholder_signed', 'fully_signed')),
  move_in_date date,
  move_out_date date,
  added_at timestamptz not null default clock_timestamp(),
  cancelled_at timestamptz,
  updated_at timestamptz not null default clock_timestamp(),
  unique (claim_id, property_id),
  check (move_out_date > move_in_date),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment)
);

select app.enable_tenant_isolation(t)
  from unnest(array['app.claim_documents', 'app.sourcing_rounds', 'app.claim_homes']::regclass[]) t;
-- Requests opened inside the service by coordinators are invisible to the API, by policy.
alter table app.claims enable row level security;
create policy tenant_isolation on app.claims to svc_api
  using (org_id = app.current_org() and environment = app.current_env() and opened_via = 'api')
  with check (org_id = app.current_org() and environment = app.current_env() and opened_via = 'api');
alter table app.org_coordinators enable row level security;
create policy tenant_isolation on app.org_coordinators to svc_api using (org_id = app.current_org());

grant select, insert, update on app.claims, app.sourcing_rounds, app.claim_homes to svc_api;
grant select, insert on app.claim_documents to svc_api;
grant select on app.org_coordinators to svc_api;
grant execute on function app.coordinator_of(app.claims) to svc_api;

-- ============================================================================================
-- matching
-- ============================================================================================

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

-- ============================================================================================
-- webhooks
-- ============================================================================================

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
-- Scheduled by migration 20261123110000, whose version of the function never aborts (an older
-- pg_cron without seconds schedules falls back to every minute).

-- ============================================================================================
-- simulated_events_in_sandbox
-- ============================================================================================

-- Simulated events exist in sandbox only (specification: "Simulated events reach sandbox endpoints
-- only"), whoever records them.
alter table app.events
  add constraint events_simulated_in_sandbox check (not simulated or environment = 'sandbox');

