-- The request's timeline only grows: an entry's words and figures are those of its moment. Most
-- entries are read from rows or columns that never change after it (contract versions, stay
-- changes, signatures, settled payments); two facts had no such record, and get one here.
--
-- - app.payment_failures: every failed charge, one row each, written by a trigger in the same
--   transaction as the payment row's move to failed. The payment row itself does not keep it: the
--   same processor payment retried successfully settles that row as succeeded (a later success wins
--   over an earlier failure), clearing its failure_reason. An attempt the service closed itself (a
--   newer checkout replaced it: no processor reference) is no failed charge and is not recorded.
-- - app.lease_agreements.withdrawal_reason: why an extension's addendum was withdrawn (declined by
--   the landlord, lapsed unpaid when the stay ended, or the placement cancelled), set with the
--   withdrawal and never changed after.

create table app.payment_failures (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  property_id uuid not null,
  payment_id uuid not null references app.payments (id),
  charge_type text not null,
  payer text,
  amount_cents bigint not null,
  currency text not null check (currency ~ '^[a-z]{3}$'),
  failure_reason text,
  failed_at timestamptz not null default clock_timestamp()
);
create index payment_failures_claim on app.payment_failures (claim_id, failed_at);
select app.enable_tenant_isolation('app.payment_failures');
-- Append-only: only the trigger writes it; the API role reads.
grant select on app.payment_failures to svc_api;

comment on table app.payment_failures is
  'Every charge that failed at the processor (or in the sandbox helper), as it failed; written by trigger with the payment''s move to failed. Append-only: the payment may later settle (the same processor payment retried), this row stays.';
comment on column app.payment_failures.org_id is 'The carrier organisation whose request the charge was for.';
comment on column app.payment_failures.payment_id is 'The payment record (its status now may be succeeded: a later success of the same processor payment).';
comment on column app.payment_failures.amount_cents is 'What the failed charge was for.';
comment on column app.payment_failures.failure_reason is 'Why it failed, as the processor said.';
comment on column app.payment_failures.failed_at is 'When the failure was recorded.';
comment on column app.payment_failures.charge_type is 'The charge the failed payment was for: initial, rent or extension.';
comment on column app.payment_failures.payer is 'Whose share the failed payment was (null on payments recorded before charges were split by payer).';

-- Security definer: the payment row belongs to the landlord and is written by the carrier; the
-- failure is filed under the carrier, whose request's timeline reads it.
create function app.record_payment_failure() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  if tg_op = 'UPDATE' and old.status = 'failed' then return null; end if;
  -- Without a processor reference no charge was made: the service closed the attempt itself
  -- (isReplacedCheckout in shared/placements/money-repository.ts).
  if new.provider_ref is null or new.claim_id is null or new.carrier_org_id is null then return null; end if;
  insert into app.payment_failures (org_id, environment, claim_id, property_id, payment_id, charge_type, payer, amount_cents, currency, failure_reason)
  values (new.carrier_org_id, new.environment, new.claim_id, new.property_id, new.id, new.charge_type, new.payer, new.gross_cents, new.currency,
          new.failure_reason);
  return null;
end $$;
create trigger payments_failure_recorded after insert or update of status on app.payments
  for each row when (new.status = 'failed') execute function app.record_payment_failure();
comment on function app.record_payment_failure() is
  'Trigger: files a failed charge in app.payment_failures when a payment becomes failed (not an attempt the service replaced).';

-- The failures before this table: each failed payment, with its payment.failed event where the
-- event log still has it (its time and words), else the payment's own; and the failures the event
-- log still shows of payments since settled.
insert into app.payment_failures (org_id, environment, claim_id, property_id, payment_id, charge_type, payer, amount_cents, currency, failure_reason, failed_at)
select p.carrier_org_id, p.environment, p.claim_id, p.property_id, p.id, p.charge_type, p.payer,
       coalesce(round((e.payload->>'amount')::numeric * 100)::bigint, p.gross_cents), p.currency,
       coalesce(e.payload->>'failure_reason', p.failure_reason), coalesce(e.created_at, p.created_at)
  from app.payments p
  left join lateral (
    select e.payload, e.created_at from app.events e
     where e.org_id = p.carrier_org_id and e.environment = p.environment and e.event = 'payment.failed' and not e.simulated
       and e.payload->>'payment_id' = p.id::text
     order by e.created_at limit 1) e on true
 where p.provider_ref is not null and p.claim_id is not null and p.carrier_org_id is not null
   and (p.status = 'failed' or e.created_at is not null);

alter table app.lease_agreements
  add column withdrawal_reason text check (withdrawal_reason in ('declined', 'lapsed', 'cancelled')),
  add constraint lease_agreements_withdrawal_reason check (withdrawal_reason is null or status = 'withdrawn');
comment on column app.lease_agreements.withdrawal_reason is
  'For a withdrawn addendum: declined (by the landlord), lapsed (unsigned or unpaid when the stay ended) or cancelled (the placement was). Set with the withdrawal, never changed; null before it was recorded.';

create function app.withdrawal_reason_frozen() returns trigger
language plpgsql as $$
begin
  if old.withdrawal_reason is not null and new.withdrawal_reason is distinct from old.withdrawal_reason then
    raise exception 'why a contract version was withdrawn never changes (lease %)', old.id using errcode = '23514';
  end if;
  return new;
end $$;
create trigger lease_withdrawal_reason_frozen before update of withdrawal_reason on app.lease_agreements
  for each row execute function app.withdrawal_reason_frozen();
comment on function app.withdrawal_reason_frozen() is 'Trigger: refuses a change of why a contract version was withdrawn once it is written.';
