-- The ledger of a stay: every amount a payer owes, or is owed back, is a posted entry that is never
-- updated or deleted (shared/placements/ledger.ts). A contract version posts its charges when both
-- have signed it (the lease: each billing period's rent, pet rent and utilities, with the first
-- period's one-off fees and deposits; an extension's addendum: its added nights); a shortening posts
-- the release of the nights it gives back; an extension first takes back nights released earlier, at
-- the price they were signed at (moving to its own charge what a part already paid had not paid for);
-- a lapsed extension releases its nights and moves back what it moved; a cancellation posts reversals. What is due,
-- the pay page, the checkout's check of a processor notification, shortening refunds and the
-- statement all read these rows, never the stay's current dates.
--
-- An entry belongs to a charge (the unit a payer pays: a contract version, a charge type and the
-- first day of the period it bills, as app.payments names it) and to one part of it (rent,
-- deposits, fees), each part paid by the request's payer of it. An entry for nights names them and
-- the monthly amount and billing period it was priced from, so a later release or restore of some
-- of those nights is priced by the same rule: the first n nights of a billing period of D days cost
-- round(monthly * n / D), and a range of nights the difference of two such prefixes, so however a
-- period is cut and joined, its nights add up to the cent.
create table app.ledger_entries (
  id uuid primary key default gen_random_uuid(),
  -- Posting order, for the statement and for working out which nights an entry still charges.
  position bigint generated always as identity,
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  claim_home_id uuid not null,
  property_id uuid not null references app.properties (id),
  lease_agreement_id uuid not null references app.lease_agreements (id),
  charge_type text not null check (charge_type in ('initial', 'rent', 'extension')),
  period_start date not null,
  part text not null check (part in ('rent', 'deposit', 'fees')),
  line text not null,
  kind text not null check (kind in ('charge', 'release', 'restore', 'reversal', 'transfer')),
  cause text not null check (cause in ('signed', 'shortened', 'extended', 'lapsed', 'cancelled')),
  adjusts uuid references app.ledger_entries (id),
  posted_for uuid references app.lease_agreements (id),
  nights_from date,
  nights_to date,
  monthly_cents bigint,
  billing_start date,
  billing_days integer,
  amount_cents bigint not null,
  currency text not null check (currency ~ '^[a-z]{3}$'),
  created_at timestamptz not null default clock_timestamp(),
  check ((kind = 'charge') = (adjusts is null)),
  check ((nights_from is null) = (nights_to is null) and (nights_from is null or nights_from < nights_to)),
  check (nights_from is null or (monthly_cents is not null and billing_start is not null and billing_days > 0)),
  check (case when kind in ('charge', 'restore') then amount_cents >= 0 when kind in ('release', 'reversal') then amount_cents <= 0 else true end),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment),
  foreign key (claim_home_id, org_id, environment) references app.claim_homes (id, org_id, environment)
);
create index ledger_entries_placement on app.ledger_entries (claim_home_id, position);
-- A version's schedule is posted once, whichever path posts it first (its countersignature, or a
-- command meeting a version signed before the ledger existed).
create unique index ledger_entries_posted_once on app.ledger_entries (lease_agreement_id, period_start, line, billing_start) nulls not distinct
  where kind = 'charge' and cause = 'signed';
select app.enable_tenant_isolation('app.ledger_entries');
-- Append-only: the API role posts entries and reads them, never edits or removes one.
grant select, insert on app.ledger_entries to svc_api;

comment on table app.ledger_entries is
  'The posted money of a stay (shared/placements/ledger.ts): charges when a contract version is signed by both, releases when a stay is shortened or an extension lapses, restores (and transfers) when it is extended over nights released before, reversals when a placement is cancelled. Append-only.';
comment on column app.ledger_entries.lease_agreement_id is 'The contract version whose charge this entry belongs to, and whose signed terms priced it.';
comment on column app.ledger_entries.period_start is 'With lease_agreement_id and charge_type, the charge a payer pays (app.payments.period_start).';
comment on column app.ledger_entries.kind is 'charge (posted when signed), release (nights given back), restore (released nights taken back by an extension), reversal (a cancellation), transfer (what a restore put on a part already paid beyond what was paid for it, moved to the extension''s charge, and moved back when it lapses).';
comment on column app.ledger_entries.posted_for is 'The contract version whose signing posted the entry (its charges, and the restores and transfers of an extension); null for a release or reversal.';
comment on column app.ledger_entries.adjusts is 'The charge entry a release, restore or reversal changes.';
comment on column app.ledger_entries.nights_to is 'The day after the last night covered (nights are [nights_from, nights_to)); null for a one-off fee or a deposit.';
comment on column app.ledger_entries.monthly_cents is 'The monthly amount the nights were priced from (the signed tier''s rent, pet rent or utilities).';
comment on column app.ledger_entries.amount_cents is 'Positive: owed by the payer; negative: given back.';
comment on column app.ledger_entries.position is 'Posting order: the statement lists entries by it, and the nights an entry still charges follow its adjustments in it.';
comment on column app.ledger_entries.claim_home_id is 'The placement (home on a request) whose stay the entry belongs to.';
comment on column app.ledger_entries.charge_type is 'initial (the first payment), rent (a later billing period) or extension (an addendum''s added nights).';
comment on column app.ledger_entries.part is 'The part of the charge (rent, deposit, fees), each paid by the request''s payer of it.';
comment on column app.ledger_entries.line is 'What the amount is: Rent, Pet rent, Utilities, a one-off fee or a deposit.';
comment on column app.ledger_entries.cause is 'What posted it: signed (both signed a version), shortened, extended, lapsed (an extension unpaid at the stay''s end), cancelled.';
comment on column app.ledger_entries.nights_from is 'The first night covered; null for a one-off fee or a deposit.';
comment on column app.ledger_entries.billing_start is 'The first day of the billing period the nights were priced in.';
comment on column app.ledger_entries.billing_days is 'The days of that billing period''s whole month: n of its nights cost round(monthly_cents * n / billing_days).';

-- A charge is paid once per part: the index now names the contract version and the charge type
-- beside the period, so an extension starting on a day a rent period of the lease also starts on,
-- or a later stay of the same placement, is its own charge and never taken for a duplicate.
create unique index payments_one_per_charge_rent on app.payments (claim_home_id, lease_agreement_id, charge_type, period_start) nulls not distinct
  where status in ('succeeded', 'refunded') and claim_home_id is not null and rent_cents > 0 and duplicate_of is null;
create unique index payments_one_per_charge_deposit on app.payments (claim_home_id, lease_agreement_id, charge_type, period_start) nulls not distinct
  where status in ('succeeded', 'refunded') and claim_home_id is not null and deposit_cents > 0 and duplicate_of is null;
create unique index payments_one_per_charge_fees on app.payments (claim_home_id, lease_agreement_id, charge_type, period_start) nulls not distinct
  where status in ('succeeded', 'refunded') and claim_home_id is not null and fees_cents > 0 and duplicate_of is null;
drop index app.payments_one_per_period_rent;
drop index app.payments_one_per_period_deposit;
drop index app.payments_one_per_period_fees;
