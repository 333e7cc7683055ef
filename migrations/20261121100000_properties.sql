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
