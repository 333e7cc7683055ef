-- A charge split between payers: rent to the rent payer, deposits to the deposit payer, fees to the
-- fees payer (shared/placements/billing.ts). Each payer's share is its own checkout and payment.
--
-- - app.payments.payer: who paid the share (null on payments recorded before: they paid every part
--   of their charge).
-- - One settled charge per placement, period and part (rent, deposits, fees) instead of one per
--   placement and period: two shares of a period settle side by side, and no part of a period is
--   ever paid twice, whoever pays it. The old index was stricter, so every existing row satisfies
--   the new ones.

alter table app.payments add column payer text check (payer in ('carrier', 'tpa', 'policyholder'));
comment on column app.payments.payer is
  'Who paid this share of the charge (the request''s payer of its parts); null on payments recorded before charges were split by payer.';

create unique index payments_one_per_period_rent on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null and rent_cents > 0;
create unique index payments_one_per_period_deposit on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null and deposit_cents > 0;
create unique index payments_one_per_period_fees on app.payments (claim_home_id, period_start)
  where status in ('succeeded', 'refunded') and claim_home_id is not null and fees_cents > 0;
drop index app.payments_one_per_period;
