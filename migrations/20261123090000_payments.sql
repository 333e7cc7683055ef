-- Placement, part 2: payments on the landlord's own processor account, the booking, move-in,
-- cancellation and refunds.
--
-- - app.payments (properties migration) gains the processor's reference (one row per processor
--   payment: a payment notified twice is recorded once), what the charge covers and the refund.
-- - app.bookings: at most one confirmed booking per contract version.
-- - app.refund_requests: the carrier's requests to the landlord; one open per home on a request.
-- - app.processor_events: every processor notification acted on, by the processor's event id.
-- - The carrier whose request the money is for writes the provider's booking and payment rows
--   (counterpart policies); the provider reads them, as before.

alter table app.payments
  add column provider_ref text check (length(provider_ref) between 1 and 255),
  add column claim_home_id uuid,
  add column covers_rent boolean generated always as (rent_cents > 0) stored,
  add column covers_deposit boolean generated always as (deposit_cents > 0) stored,
  add column period_start date,
  add column period_end date,
  add column refunded_cents bigint not null default 0 check (refunded_cents >= 0),
  add column refunded_at timestamptz,
  add constraint payments_period check ((period_start is null) = (period_end is null) and (period_end is null or period_end >= period_start)),
  add constraint payments_refund check (refunded_cents <= rent_cents + deposit_cents + fees_cents
                                        and (status = 'refunded') = (refunded_at is not null)),
  add constraint payments_claim_home foreign key (claim_home_id, carrier_org_id, environment) references app.claim_homes (id, org_id, environment);
create unique index payments_provider_ref on app.payments (environment, provider_ref) where provider_ref is not null;
-- One settled charge per placement and period: a payment racing itself (two submissions of the
-- page, the helper and a notification) settles once.
create unique index payments_one_per_period on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null;
create index payments_claim_home on app.payments (claim_home_id, created_at) where claim_home_id is not null;
comment on column app.payments.provider_ref is 'The processor''s id of the payment (a PaymentIntent); sandbox payments get a sandbox_ reference.';
comment on column app.payments.claim_home_id is 'The placement (home on a request) the charge pays for.';
comment on column app.payments.covers_rent is 'Whether the charge includes rent (the platform fee is taken from rent only).';
comment on column app.payments.covers_deposit is 'Whether the charge includes refundable deposits.';
comment on column app.payments.period_start is 'First day of the stay the charge pays for (the first payment: move-in).';
comment on column app.payments.period_end is 'Last day of the stay the charge pays for.';
comment on column app.payments.refunded_cents is 'How much of the charge was refunded on the landlord''s account (with the platform fee).';
comment on column app.payments.refunded_at is 'When the refund was issued; set together with status refunded.';

alter table app.bookings
  add column claim_home_id uuid,
  add column cancel_reason text check (length(cancel_reason) <= 2000),
  add constraint bookings_claim_home foreign key (claim_home_id, carrier_org_id, environment) references app.claim_homes (id, org_id, environment);
create unique index bookings_one_per_lease on app.bookings (lease_agreement_id) where booking_status = 'confirmed';
comment on column app.bookings.claim_home_id is 'The placement (home on a request) that was booked.';
comment on column app.bookings.cancel_reason is 'The carrier''s reason for cancelling, read by the landlord and the household.';

-- The stay on the placement itself: move-in, and a stay shortened after move-in.
alter table app.claim_homes
  add column moved_in_at timestamptz,
  add column booked_at timestamptz,
  add column cancel_reason text check (length(cancel_reason) <= 2000);
comment on column app.claim_homes.moved_in_at is 'When the carrier confirmed the household moved in (POST confirm-move-in).';
comment on column app.claim_homes.booked_at is 'When the first payment cleared and the booking was confirmed.';
comment on column app.claim_homes.cancel_reason is 'The reason given with POST cancel-booking.';

-- A service hold is first a lease hold (dates set), then a booking hold (paid).
alter table app.availability_blocks add column held_for text check (held_for in ('lease', 'booking'));
update app.availability_blocks set held_for = 'lease' where source = 'service';
alter table app.availability_blocks add constraint availability_held_for check ((source = 'service') = (held_for is not null));
comment on column app.availability_blocks.held_for is 'For service holds: lease (dates set, not paid) or booking (the first payment cleared).';

create or replace function app.take_hold_default_kind() returns trigger
language plpgsql as $$
begin
  if new.source = 'service' and new.held_for is null then new.held_for := 'lease'; end if;
  return new;
end $$;
create trigger availability_blocks_held_for before insert on app.availability_blocks
  for each row execute function app.take_hold_default_kind();

-- The lease holds of a contract become booking holds, or the holds past a new last day go
-- (a stay shortened after move-in). Security definer: the blocks belong to the home's owner.
create or replace function app.book_holds(p_lease_agreement uuid, p_env text) returns integer
language sql security definer set search_path = app, pg_temp as $$
  with booked as (
    update app.availability_blocks set held_for = 'booking'
     where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service'
    returning 1)
  select count(*)::integer from booked
$$;
create or replace function app.shorten_holds(p_lease_agreement uuid, p_env text, p_last_day date) returns integer
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_count integer;
begin
  delete from app.availability_blocks
   where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service' and start_date > p_last_day;
  update app.availability_blocks set end_date = p_last_day
   where lease_agreement_id = p_lease_agreement and environment = p_env and source = 'service' and end_date > p_last_day;
  get diagnostics v_count = row_count;
  return v_count;
end $$;

-- The landlord of a home on one of the calling tenant's requests, with its processor account
-- (Stripe Connect account id), for a charge on it; and the home's labels for the landlord's events.
-- They answer only for homes on the tenant's own requests.
create or replace function app.payee_of(p_property uuid, p_env text)
returns table (org_id uuid, name text, processor_account_id text, charges_enabled boolean, contact_email text)
language sql stable security definer set search_path = app, pg_temp as $$
  select o.id, o.name, (app.payout_status(o.id, p_env)).processor_account_id, app.can_take_charges(o.id, p_env), o.contact_email
    from app.properties p join app.organisations o on o.id = p.org_id
   where p.id = p_property
     and exists (select 1 from app.claim_homes h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env())
$$;
create or replace function app.home_label(p_property uuid) returns table (name text, external_id text)
language sql stable security definer set search_path = app, pg_temp as $$
  select p.name, p.external_id from app.properties p
   where p.id = p_property
     and exists (select 1 from app.claim_homes h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env())
$$;
grant execute on function app.book_holds(uuid, text), app.shorten_holds(uuid, text, date), app.payee_of(uuid, text),
  app.home_label(uuid) to svc_api;

-- The carrier whose request a booking or payment is for writes it (the provider owns the row).
create policy counterpart_insert on app.bookings for insert to svc_api
  with check (carrier_org_id = app.current_org() and environment = app.current_env());
create policy counterpart_update on app.bookings for update to svc_api
  using (carrier_org_id = app.current_org() and environment = app.current_env());
create policy counterpart_insert on app.payments for insert to svc_api
  with check (carrier_org_id = app.current_org() and environment = app.current_env());
create policy counterpart_update on app.payments for update to svc_api
  using (carrier_org_id = app.current_org() and environment = app.current_env());
grant insert, update on app.bookings, app.payments to svc_api;

-- Refund requests: the carrier asks, the landlord approves (the refund is issued on the landlord's
-- account, the platform fee refunded with it) or declines (a new request may follow).
create table app.refund_requests (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  claim_home_id uuid not null,
  property_id uuid not null references app.properties (id),
  provider_org_id uuid not null references app.organisations (id),
  payment_id uuid not null references app.payments (id),
  amount_cents bigint not null check (amount_cents > 0),
  currency text not null check (currency ~ '^[a-z]{3}$'),
  covers_deposit boolean not null,
  reason text check (length(reason) <= 2000),
  status text not null default 'pending_owner_approval'
    check (status in ('pending_owner_approval', 'approved', 'declined', 'refunded', 'failed')),
  decided_at timestamptz,
  refunded_at timestamptz,
  provider_ref text,
  failure_reason text,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  check ((status = 'pending_owner_approval') = (decided_at is null)),
  check ((status = 'refunded') = (refunded_at is not null)),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment),
  foreign key (claim_home_id, org_id, environment) references app.claim_homes (id, org_id, environment)
);
-- One open request per home on a request: two requests at once cannot both be open.
create unique index refund_requests_one_open on app.refund_requests (claim_home_id)
  where status in ('pending_owner_approval', 'approved');
create index refund_requests_claim on app.refund_requests (claim_id, created_at);
create index refund_requests_provider on app.refund_requests (provider_org_id, environment, created_at);
comment on table app.refund_requests is
  'A carrier''s request to the landlord to refund the most recent settled payment of a home (POST refund-request).';
comment on column app.refund_requests.org_id is 'The carrier organisation that asked.';
comment on column app.refund_requests.provider_org_id is 'The landlord (provider organisation) that approves or declines.';
comment on column app.refund_requests.payment_id is 'The settled payment to refund: the most recent one on the home when asked.';
comment on column app.refund_requests.covers_deposit is 'Whether the payment refunded included deposits (timeline deposit.refund_requested).';
comment on column app.refund_requests.status is
  'pending_owner_approval, approved (refund being issued), declined (a new request may follow), refunded, failed (the processor refused; a new request may follow).';
comment on column app.refund_requests.provider_ref is 'The processor''s refund id.';
select app.enable_tenant_isolation('app.refund_requests');
-- The landlord reads and answers the requests on its homes (live: POST /properties/refund-requests/{id}).
create policy provider_read on app.refund_requests for select to svc_api
  using (provider_org_id = app.current_org() and environment = app.current_env());
create policy provider_update on app.refund_requests for update to svc_api
  using (provider_org_id = app.current_org() and environment = app.current_env());
grant select, insert, update on app.refund_requests to svc_api;
-- The request reference a landlord's refund request belongs to (the carrier's claims are not
-- readable by the provider): only for requests on the calling provider's homes.
create or replace function app.refund_request_reference(p_refund uuid) returns table (claim_ref text)
language sql stable security definer set search_path = app, pg_temp as $$
  select c.claim_ref from app.refund_requests r join app.claims c on c.id = r.claim_id
   where r.id = p_refund and r.provider_org_id = app.current_org() and r.environment = app.current_env()
$$;
grant execute on function app.refund_request_reference(uuid) to svc_api;
create trigger refund_requests_touch before update on app.refund_requests for each row execute function app.claims_touch();

-- Processor notifications acted on, by the processor's own event id: a notification delivered twice
-- is acted on once. Written by the notifications function as the owner (it carries no API key).
create table app.processor_events (
  event_id text primary key check (length(event_id) between 1 and 255),
  type text not null,
  connected_account text,
  environment text check (environment in ('live', 'sandbox')),
  outcome text not null,
  received_at timestamptz not null default clock_timestamp()
);
comment on table app.processor_events is
  'Every payment-processor notification the service received and verified, once per processor event id (idempotency of the notifications endpoint).';
comment on column app.processor_events.event_id is 'The processor''s event id (evt_...): the deduplication key.';
comment on column app.processor_events.connected_account is 'The landlord''s connected account the event is about, when it is about one.';
comment on column app.processor_events.outcome is 'What the service did: applied, ignored (and why), or the state that made it a no-op.';
alter table app.processor_events enable row level security;

-- Claims a processor event for the calling tenant's transaction: true the first time, false when the
-- event was already acted on. Written in the transaction of the effect, so an event is recorded if
-- and only if its effect committed.
create or replace function app.claim_processor_event(p_event text, p_type text, p_account text, p_outcome text) returns boolean
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_claimed integer;
begin
  insert into app.processor_events (event_id, type, connected_account, environment, outcome)
  values (p_event, p_type, p_account, app.current_env(), p_outcome)
  on conflict (event_id) do nothing;
  get diagnostics v_claimed = row_count;
  return v_claimed > 0;
end $$;
grant execute on function app.claim_processor_event(text, text, text, text) to svc_api;
