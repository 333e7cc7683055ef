-- Placement, part 1: a home on a request from budget review to a fully signed lease.
--
-- - app.claim_homes (created by the claims migration) becomes the placement: the offer, the
--   household's and landlord's answers, the signer and the pointer to the live contract version.
-- - app.budget_approvals: the carrier's approval of a home's budget on a request.
-- - app.household_responses: every answer of the household (save, decline, apply, propose dates).
-- - app.lease_agreements: contract versions; a re-dated or re-signed contract is kept as superseded.
-- - app.jobs: the generic durable job queue (send a contract, withdraw one, send an email, and later
--   sourcing and payments), drained by the same scheduler that delivers webhooks.
-- - app.carrier_billing_accounts: live carrier organisations linked to a billing account.
--
-- Value sets mirror shared/placements/states.ts; the API validates first, these checks are the
-- second line. State moves are guarded by `update ... where <state> = <expected>` in the commands.

-- Contact address of an organisation (landlord notices, the carrier's own team as signer).
alter table app.organisations add column contact_email text check (length(contact_email) between 3 and 255);
comment on column app.organisations.contact_email is
  'Where the service writes to the organisation: landlord notices for a provider, the signer of a lease placed without a named signer for a carrier. Set with the operator console (org contact).';

-- Live carrier organisations are linked to a billing account by operators (console: billing link).
-- Sandbox organisations always have one (nothing is billed in sandbox).
create table app.carrier_billing_accounts (
  org_id uuid primary key references app.organisations (id),
  account_ref text not null check (length(account_ref) between 1 and 255),
  linked_at timestamptz not null default clock_timestamp()
);
comment on table app.carrier_billing_accounts is
  'The billing account a live carrier organisation is invoiced through; without one its live placements are refused (no_billing_account).';
comment on column app.carrier_billing_accounts.account_ref is 'The billing system''s reference of the account.';
alter table app.carrier_billing_accounts enable row level security;
create policy tenant_isolation on app.carrier_billing_accounts to svc_api using (org_id = app.current_org());
grant select on app.carrier_billing_accounts to svc_api;

-- The placement: one home on one request.
alter table app.claim_homes
  add column application_status text not null default 'not_applied'
    check (application_status in ('not_applied', 'applied', 'approved_to_lease')),
  add column placed_without_recipient boolean not null default false,
  add column offered_at timestamptz,
  add column adjuster_placed_at timestamptz,
  add column committed_at timestamptz,
  add column recipient_response text check (recipient_response in ('saved', 'rejected')),
  add column decline_reason text check (length(decline_reason) <= 2000),
  add column applied_at timestamptz,
  add column application_approved_at timestamptz,
  add column proposed_move_in date,
  add column proposed_move_out date,
  add column proposed_at timestamptz,
  add column signer_name text check (length(signer_name) <= 255),
  add column signer_email text check (length(signer_email) <= 255),
  add column current_lease_id uuid,
  add constraint claim_homes_option_status check (option_status in ('sent', 'saved', 'approved', 'declined', 'cancelled')),
  add constraint claim_homes_proposal check ((proposed_move_in is null) = (proposed_move_out is null)
                                             and (proposed_move_in is null) = (proposed_at is null)
                                             and (proposed_move_out is null or proposed_move_out > proposed_move_in)),
  add constraint claim_homes_signer check (signer_email is null or signer_name is not null),
  add constraint claim_homes_decline check (option_status <> 'declined' or decline_reason is not null),
  add constraint claim_homes_tenant_key unique (id, org_id, environment);
alter table app.claim_homes alter column option_status set not null;
alter table app.claim_homes drop constraint claim_homes_lease_status_check;
alter table app.claim_homes add constraint claim_homes_lease_status
  check (lease_status in ('awaiting_lease', 'sent_for_signature', 'policyholder_signed', 'fully_signed'));

comment on table app.claim_homes is
  'A home on a housing request: the placement. Written by POST options and moved by the household''s and landlord''s answers, dates and signatures (shared/placements/states.ts).';
comment on column app.claim_homes.option_status is 'The offer: sent (with the household), saved (they saved it), approved (placed, or their application approved), declined, cancelled (part 2).';
comment on column app.claim_homes.application_status is 'not_applied, applied (with the landlord), approved_to_lease (dates may be set).';
comment on column app.claim_homes.lease_status is 'Status of the live contract version (app.lease_agreements), kept by trigger; null before dates are set.';
comment on column app.claim_homes.placed_without_recipient is 'True when placed (action place) without involving the household.';
comment on column app.claim_homes.offered_at is 'When the home was sent to the household (action send).';
comment on column app.claim_homes.adjuster_placed_at is 'When the carrier last sent or placed the home through POST options.';
comment on column app.claim_homes.committed_at is
  'When the home was committed to this request (placed, or the application approved). A home is committed to at most one request per environment (index claim_homes_one_commitment).';
comment on column app.claim_homes.recipient_response is 'The household''s last answer to the offer: saved or rejected (declined).';
comment on column app.claim_homes.decline_reason is 'Why the household declined, in their words.';
comment on column app.claim_homes.proposed_move_in is 'Dates the household asked for instead; while set the placement waits for POST dates/approve-proposal.';
comment on column app.claim_homes.signer_name is 'The named signer of the lease (action place or POST signer); null: the caller''s own team signs.';
comment on column app.claim_homes.current_lease_id is 'The live contract version; superseded versions stay in app.lease_agreements.';

-- One commitment per home and environment, across every organisation: two requests racing to place
-- one home cannot both win (unique indexes see rows that row-level security hides).
create unique index claim_homes_one_commitment on app.claim_homes (property_id, environment)
  where committed_at is not null and option_status <> 'cancelled';

-- The carrier's approval of a home's budget on a request. Approval may precede POST options.
create table app.budget_approvals (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  property_id uuid not null references app.properties (id),
  approved boolean not null,
  approved_at timestamptz,
  -- The budget review as approved (major units, the GET budget response), kept with the approval.
  figures jsonb not null check (jsonb_typeof(figures) = 'object'),
  updated_at timestamptz not null default clock_timestamp(),
  unique (claim_id, property_id),
  check (approved = (approved_at is not null)),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment)
);
comment on table app.budget_approvals is
  'The carrier''s approval of one home''s budget on one request (POST budget or POST options with approve_budget). Withdrawing keeps the row with approved false.';
comment on column app.budget_approvals.figures is 'The budget review that was approved or withdrawn, as returned by the API (major units).';

-- The household's answers, one row each, for the timeline and the record.
create table app.household_responses (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_home_id uuid not null,
  action text not null check (action in ('save', 'decline', 'apply', 'propose_dates')),
  reason text check (length(reason) <= 2000),
  move_in date,
  move_out date,
  -- For proposals: when the carrier approved them (POST dates/approve-proposal) or set other dates.
  resolved_at timestamptz,
  resolution text check (resolution in ('approved', 'replaced')),
  created_at timestamptz not null default clock_timestamp(),
  check ((action = 'propose_dates') = (move_in is not null) and (move_in is null) = (move_out is null)),
  check ((action = 'decline') = (reason is not null)),
  check ((resolved_at is null) = (resolution is null)),
  foreign key (claim_home_id, org_id, environment) references app.claim_homes (id, org_id, environment)
);
create index household_responses_home on app.household_responses (claim_home_id, created_at);
comment on table app.household_responses is 'Every answer of the household to a home on its request: save, decline (with reason), apply, propose_dates.';
comment on column app.household_responses.resolution is 'How a date proposal was answered: approved (POST dates/approve-proposal) or replaced (the carrier set other dates).';

-- Contract versions. One live version per placement; re-dating, a proposal approved and a signer
-- change supersede it (kept, readable) and issue a new one.
create table app.lease_agreements (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_home_id uuid not null,
  claim_id uuid not null,
  property_id uuid not null references app.properties (id),
  version integer not null check (version >= 1),
  status text not null default 'awaiting_lease' check (status in (
    'awaiting_lease', 'sent_for_signature', 'policyholder_signed', 'fully_signed', 'superseded', 'withdrawn')),
  move_in_date date not null,
  move_out_date date not null,
  signer_name text,
  signer_email text,
  -- What issued this version: dates, approve_proposal or signer.
  issued_by text not null check (issued_by in ('dates', 'approve_proposal', 'signer')),
  template text not null check (template in ('standard', 'own')),
  provider_ref text,
  sent_at timestamptz,
  policyholder_signed_at timestamptz,
  owner_signed_at timestamptz,
  superseded_at timestamptz,
  superseded_by uuid references app.lease_agreements (id),
  withdrawn_at timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (claim_home_id, version),
  check (move_out_date > move_in_date),
  check ((status = 'superseded') = (superseded_at is not null)),
  check ((status = 'withdrawn') = (withdrawn_at is not null)),
  check (status in ('awaiting_lease', 'superseded', 'withdrawn') or sent_at is not null),
  check (status not in ('policyholder_signed', 'fully_signed') or policyholder_signed_at is not null),
  check (status <> 'fully_signed' or owner_signed_at is not null),
  foreign key (claim_home_id, org_id, environment) references app.claim_homes (id, org_id, environment),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment)
);
-- One live (not superseded, not withdrawn) version per placement.
create unique index lease_agreements_one_live on app.lease_agreements (claim_home_id)
  where status not in ('superseded', 'withdrawn');
create index lease_agreements_claim on app.lease_agreements (claim_id, created_at);
create unique index lease_agreements_provider_ref on app.lease_agreements (provider_ref) where provider_ref is not null;
comment on table app.lease_agreements is
  'Contract versions of a placement. status follows the lease state machine (shared/placements/states.ts); superseded and withdrawn versions are kept.';
comment on column app.lease_agreements.version is '1 for the first contract of the placement, then 2, 3, ... for each version that supersedes the previous one.';
comment on column app.lease_agreements.signer_name is 'Who signs first: the named signer, or the carrier''s own team (null name: the team).';
comment on column app.lease_agreements.signer_email is 'Address the contract goes to for the first signature.';
comment on column app.lease_agreements.issued_by is 'The call that issued this version: dates (POST dates), approve_proposal, signer.';
comment on column app.lease_agreements.template is 'The home''s contract template when issued: standard goes out automatically; own waits for the landlord''s own lease.';
comment on column app.lease_agreements.provider_ref is 'The e-signature provider''s id of the envelope; callbacks are matched by it.';
comment on column app.lease_agreements.policyholder_signed_at is 'First signature (the household or the named signer).';
comment on column app.lease_agreements.owner_signed_at is 'The landlord''s countersignature.';
comment on column app.lease_agreements.superseded_by is 'The version that replaced this one.';

alter table app.claim_homes add constraint claim_homes_current_lease
  foreign key (current_lease_id) references app.lease_agreements (id);

-- claim_homes.lease_status follows the live version, whoever moves it.
create or replace function app.lease_status_follow() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  update app.claim_homes h
     set lease_status = case when new.status in ('superseded', 'withdrawn') then null else new.status end,
         move_in_date = new.move_in_date, move_out_date = new.move_out_date, updated_at = clock_timestamp()
   where h.current_lease_id = new.id;
  return null;
end $$;
create trigger lease_status_follow after insert or update of status on app.lease_agreements
  for each row execute function app.lease_status_follow();
create trigger claim_homes_touch before update on app.claim_homes for each row execute function app.claims_touch();
create trigger lease_agreements_touch before update on app.lease_agreements for each row execute function app.claims_touch();

-- The bookings and payments of a placement name its contract version. (Calendar holds name it too,
-- by id: app.take_hold is also the provider side's calendar primitive and stays usable on its own.)
alter table app.bookings add constraint bookings_lease
  foreign key (lease_agreement_id) references app.lease_agreements (id);
alter table app.bookings add constraint bookings_claim foreign key (claim_id) references app.claims (id);
alter table app.payments add constraint payments_lease
  foreign key (lease_agreement_id) references app.lease_agreements (id);
alter table app.payments add constraint payments_claim foreign key (claim_id) references app.claims (id);
create index bookings_lease on app.bookings (lease_agreement_id) where lease_agreement_id is not null;
create index payments_lease on app.payments (lease_agreement_id) where lease_agreement_id is not null;

select app.enable_tenant_isolation(t)
  from unnest(array['app.budget_approvals', 'app.household_responses', 'app.lease_agreements']::regclass[]) t;
grant select, insert, update on app.budget_approvals, app.household_responses, app.lease_agreements to svc_api;

-- A home as a request may see it, for pricing and placing: verified, not marked unavailable, from the
-- request's pool (live requests: real homes only). Reads another organisation's home, so it runs as
-- its owner; it answers only for a request of the calling tenant. Null fields: nothing found.
create or replace function app.home_for_request(p_claim uuid, p_property uuid)
returns table (
  id uuid, org_id uuid, environment text, name text, address text, city text, state text, zip_code text,
  currency text, monthly_rate_cents bigint, rent_1_3_months_cents bigint, rent_4_6_months_cents bigint,
  rent_7_9_months_cents bigint, rent_10_12_months_cents bigint, security_deposit_cents bigint,
  cleaning_fee_cents bigint, application_fee_cents bigint, pet_fee_cents bigint, pet_rent_cents bigint,
  pet_deposit_cents bigint, utilities_included boolean, utilities_monthly_cents bigint, contract_template text,
  charges_enabled boolean, owner_contact_email text
)
language sql stable security definer set search_path = app, pg_temp as $$
  select p.id, p.org_id, p.environment, p.name, p.address, p.city, p.state, p.zip_code, p.currency,
         p.monthly_rate_cents, p.rent_1_3_months_cents, p.rent_4_6_months_cents, p.rent_7_9_months_cents,
         p.rent_10_12_months_cents, p.security_deposit_cents, p.cleaning_fee_cents, p.application_fee_cents,
         p.pet_fee_cents, p.pet_rent_cents, p.pet_deposit_cents, p.utilities_included, p.utilities_monthly_cents,
         p.contract_template, app.can_take_charges(p.org_id, c.environment), o.contact_email
    from app.claims c
    join app.properties p on p.id = p_property
    join app.organisations o on o.id = p.org_id
   where c.id = p_claim and c.org_id = app.current_org() and c.environment = app.current_env()
     and p.verified and p.status <> 'unavailable'
     and (c.environment = 'sandbox' or p.environment = 'live')
$$;

-- The service holds of a home that overlap a range, for dates_unavailable's conflicts (any source;
-- the reason of another organisation's block is not shown).
create or replace function app.range_conflicts(p_property uuid, p_env text, p_start date, p_end date)
returns table (start_date date, end_date date, reason text)
language sql stable security definer set search_path = app, pg_temp as $$
  select b.start_date, b.end_date,
         case when b.source = 'service' then 'held for another placement' else coalesce(b.reason, 'blocked by the provider') end
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
   order by b.start_date
$$;
-- What a placement shows of its homes (name, address, rate), whatever became of them since: reads
-- the provider's rows as their owner, only for homes on a request of the calling tenant.
create or replace function app.homes_on_request(p_claim uuid)
returns table (id uuid, name text, address text, city text, state text, currency text, monthly_rate_cents bigint)
language sql stable security definer set search_path = app, pg_temp as $$
  select p.id, p.name, p.address, p.city, p.state, p.currency, p.monthly_rate_cents
    from app.claim_homes h join app.properties p on p.id = h.property_id
   where h.claim_id = p_claim and h.org_id = app.current_org() and h.environment = app.current_env()
$$;
grant execute on function app.home_for_request(uuid, uuid), app.range_conflicts(uuid, text, date, date),
  app.homes_on_request(uuid) to svc_api;

-- Durable jobs: work that waits on a third party. A row is written in the transaction of the
-- operation that needs the work; runners (shared/jobs/runner.ts) claim due rows with FOR UPDATE SKIP
-- LOCKED, lease them (a runner that dies loses nothing: the row falls due again when its lease runs
-- out) and retry failures with backoff until max_attempts, then abandon them.
create table app.jobs (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind ~ '^[a-z][a-z0-9_.]*$'),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  payload jsonb not null default '{}' check (jsonb_typeof(payload) = 'object'),
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'abandoned')),
  attempts integer not null default 0 check (attempts >= 0),
  max_attempts integer not null default 8 check (max_attempts >= 1),
  run_at timestamptz not null default now(),
  locked_until timestamptz,
  lease_token uuid,
  last_error text,
  result jsonb,
  dedupe_key text,
  created_at timestamptz not null default clock_timestamp(),
  completed_at timestamptz,
  check ((lease_token is null) = (locked_until is null)),
  check ((status = 'pending') = (completed_at is null))
);
create index jobs_due on app.jobs (run_at) where status = 'pending';
create index jobs_tenant on app.jobs (org_id, environment, created_at);
create unique index jobs_once on app.jobs (kind, dedupe_key) where dedupe_key is not null;
comment on table app.jobs is
  'Durable job queue (send_contract, withdraw_contract, send_email, ...): written with the operation, drained by the scheduler that delivers webhooks, retried with backoff.';
comment on column app.jobs.kind is 'Which handler runs the job (the registry in shared/jobs/).';
comment on column app.jobs.run_at is 'When the job is next due; while a runner holds it, when its lease runs out.';
comment on column app.jobs.locked_until is 'Set while a runner holds the job: its lease. A result is recorded only with the lease_token of the claim.';
comment on column app.jobs.attempts is 'Attempts started. A failed attempt n waits the n-th step of the backoff schedule.';
comment on column app.jobs.last_error is 'The error of the last failed attempt.';
comment on column app.jobs.result is 'What the handler returned (for example the provider''s message id).';
comment on column app.jobs.dedupe_key is 'A job of one kind with one key is queued once.';
select app.enable_tenant_isolation('app.jobs');
grant select, insert on app.jobs to svc_api;

-- The scheduler on Supabase calls the dispatcher function when webhook deliveries or jobs are due.
-- The call itself (address and secret from Vault, through pg_net) is kept in one function.
create or replace function app.call_dispatcher() returns bigint
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_url text;
  v_secret text;
begin
  select decrypted_secret into v_url from vault.decrypted_secrets where name = 'webhook_dispatcher_url';
  select decrypted_secret into v_secret from vault.decrypted_secrets where name = 'webhook_dispatcher_secret';
  if v_url is null or v_secret is null then
    raise warning 'webhook dispatch skipped: store webhook_dispatcher_url and webhook_dispatcher_secret in Vault';
    return null;
  end if;
  return net.http_post(url := v_url, body := '{}'::jsonb, timeout_milliseconds := 30000,
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret));
end $$;
revoke all on function app.call_dispatcher() from public;

create or replace function app.invoke_webhook_dispatcher() returns bigint
language sql security definer set search_path = app, pg_temp as $$
  select case when exists (select 1 from app.webhook_deliveries where status = 'pending' and next_attempt_at <= now())
                or exists (select 1 from app.jobs where status = 'pending' and run_at <= now())
              then app.call_dispatcher() end
$$;
revoke all on function app.invoke_webhook_dispatcher() from public;
