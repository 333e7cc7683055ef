-- A stay shortened after move-in is recorded as a change of the stay, never as an edit of the
-- signed lease: the contract version keeps the dates it was signed with, and each shortening adds a
-- row here with the move-out before and after and what it does to the money (the rent already paid
-- for days the stay no longer covers, to be refunded; or, when the shorter stay falls in a dearer
-- tier, what the paid months now owe). The request's timeline reads its dates.changed entries from
-- these rows; the placement's current move-out (app.claim_homes.move_out_date) follows them.
create table app.stay_changes (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  claim_home_id uuid not null,
  property_id uuid not null references app.properties (id),
  lease_agreement_id uuid not null references app.lease_agreements (id),
  previous_move_out date not null,
  move_out date not null check (move_out < previous_move_out),
  refund_due_cents bigint not null,
  currency text not null check (currency ~ '^[a-z]{3}$'),
  created_at timestamptz not null default clock_timestamp(),
  foreign key (claim_id, org_id, environment) references app.claims (id, org_id, environment),
  foreign key (claim_home_id, org_id, environment) references app.claim_homes (id, org_id, environment)
);
create index stay_changes_claim on app.stay_changes (claim_id, created_at);
select app.enable_tenant_isolation('app.stay_changes');
-- Append-only: the API role adds changes and reads them, never edits or removes one.
grant select, insert on app.stay_changes to svc_api;

comment on table app.stay_changes is
  'A stay shortened after move-in (POST dates with an earlier move_out): the signed lease is kept as signed; each change adds a row. Append-only.';
comment on column app.stay_changes.lease_agreement_id is 'The signed contract version whose stay was shortened (its own dates are never changed).';
comment on column app.stay_changes.previous_move_out is 'The move-out before this change.';
comment on column app.stay_changes.move_out is 'The new, earlier move-out (the stay''s last night is the day before).';
comment on column app.stay_changes.refund_due_cents is
  'What the change does to the money already paid, in cents: positive, rent paid for days no longer covered (to be refunded with a refund request); negative, what the paid months now owe at the shorter stay''s tier.';
comment on column app.stay_changes.claim_home_id is 'The placement (home on a request) whose stay was shortened.';
