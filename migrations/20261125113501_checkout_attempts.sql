-- A live payment is a record from the moment its checkout opens, and a second charge for what was
-- already paid is kept and refunded, never dropped.
--
-- - app.payments.status gains `pending`: a checkout opened on the pay page and not yet settled. It
--   becomes succeeded or failed by the processor's notification (a later success wins over a failure),
--   or failed (`checkout_expired`, `amount_changed`) when a newer attempt replaces it. At most one is
--   open per placement, period and payer: a second submission (two tabs, a retry) reuses it.
-- - checkout_ref / checkout_url / checkout_expires_at: the processor's checkout of the attempt.
-- - duplicate_of: a charge that cleared for parts of a period another payment had already paid. It is
--   recorded (money moved), counts for nothing, and is refunded automatically; the one-per-part
--   indexes leave it out.
-- - app.refund_requests.automatic: a refund the service issued itself (a duplicate charge), approved
--   when made; it does not block the carrier's own refund request.

alter table app.payments drop constraint payments_status_check;
alter table app.payments add constraint payments_status check (status in ('pending', 'succeeded', 'failed', 'refunded'));
alter table app.payments drop constraint payments_check1;
alter table app.payments add constraint payments_paid_when_settled check ((status in ('pending', 'failed')) = (paid_at is null));
alter table app.payments
  add column checkout_ref text check (length(checkout_ref) between 1 and 255),
  add column checkout_url text check (length(checkout_url) between 1 and 2048),
  add column checkout_expires_at timestamptz,
  add column duplicate_of uuid references app.payments (id),
  add constraint payments_duplicate_settled check (duplicate_of is null or status in ('succeeded', 'refunded'));
comment on column app.payments.checkout_ref is 'The processor''s checkout of a pay-page attempt (cs_...).';
comment on column app.payments.checkout_url is 'Where the payer pays the attempt; a second submission while it is open is sent here again.';
comment on column app.payments.checkout_expires_at is 'When the attempt''s checkout stops taking payment.';
comment on column app.payments.duplicate_of is
  'A charge that cleared for parts of a period this other payment had already paid: kept, counted for nothing, refunded automatically.';

create unique index payments_one_open_checkout on app.payments (claim_home_id, period_start, payer) where status = 'pending';

drop index app.payments_one_per_period_rent;
drop index app.payments_one_per_period_deposit;
drop index app.payments_one_per_period_fees;
create unique index payments_one_per_period_rent on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null and rent_cents > 0 and duplicate_of is null;
create unique index payments_one_per_period_deposit on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null and deposit_cents > 0 and duplicate_of is null;
create unique index payments_one_per_period_fees on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null and fees_cents > 0 and duplicate_of is null;

alter table app.refund_requests add column automatic boolean not null default false;
comment on column app.refund_requests.automatic is 'Issued by the service itself (a duplicate charge), approved when made; not the carrier''s request.';
drop index app.refund_requests_one_open;
create unique index refund_requests_one_open on app.refund_requests (claim_home_id)
  where status in ('pending_owner_approval', 'approved') and not automatic;
create unique index refund_requests_one_automatic on app.refund_requests (payment_id) where automatic;
