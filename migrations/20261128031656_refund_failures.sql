-- A refund that the service approved but could not issue (its job spent its attempts) was announced
-- (payment.refund_failed) and never shown on the request's timeline: no row kept the fact, since the
-- refund request stays approved for staff to retry. Each such failure is now filed here, in the same
-- transaction as its announcement, and the timeline reads it (append-only, as app.payment_failures).
create table app.refund_failures (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references app.organisations (id),
  environment text not null check (environment in ('live', 'sandbox')),
  claim_id uuid not null,
  property_id uuid not null,
  refund_request_id uuid not null references app.refund_requests (id),
  payment_id uuid,
  amount_cents bigint not null,
  currency text not null check (currency ~ '^[a-z]{3}$'),
  attempts integer not null,
  failed_at timestamptz not null default clock_timestamp()
);
create index refund_failures_claim on app.refund_failures (claim_id, failed_at);
select app.enable_tenant_isolation('app.refund_failures');
-- Append-only: the API role files and reads, never changes.
grant select, insert on app.refund_failures to svc_api;

comment on table app.refund_failures is
  'Every approved refund the service could not issue after all its attempts, as it failed (announced as payment.refund_failed); the request''s timeline reads it. Append-only: a retry that then succeeds adds payment.refunded, this row stays.';
comment on column app.refund_failures.org_id is 'The carrier organisation whose request the refund was for.';
comment on column app.refund_failures.refund_request_id is 'The refund request, still approved (staff retry it with the console''s job retry).';
comment on column app.refund_failures.payment_id is 'The payment the refund was to return money of.';
comment on column app.refund_failures.amount_cents is 'What the refund was for.';
comment on column app.refund_failures.attempts is 'How many attempts were made before it was given up.';
comment on column app.refund_failures.failed_at is 'When the last attempt was given up.';
