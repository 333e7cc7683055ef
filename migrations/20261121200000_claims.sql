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
