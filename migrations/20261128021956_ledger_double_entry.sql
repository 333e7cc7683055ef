-- Double entry. Every entry of a stay's ledger (app.ledger_entries) already moves one amount; now it
-- names the two accounts it moves it between, so every posting balances by construction and each
-- account's balance is a sum (app.ledger_balances):
--
--   payer_rent, payer_fees, payer_deposit   what the payer of that part owes (positive: owes; negative: owed back)
--   landlord_rent, landlord_fees            what the stay earns the landlord (credit balance: negative)
--   deposits_held                           deposits the stay holds for the landlord to return
--   processor                               money the processor took in from payers, less what it refunded
--   service_fee                             the service's fee, taken from rent (credit balance: negative)
--
-- An entry debits debit_account and credits credit_account with amount_cents (a negative amount
-- moves the other way): a charge, release, restore, reversal or transfer between a payer's part and
-- the landlord's (or deposits held); a payment or refund between a payer's part and the processor;
-- and, new here, the service fee (kind fee) between the landlord's rent and the service: taken when
-- a payment settles (positive), returned with the rent a refund returns (negative). The accounts are
-- generated from the entry's kind and part, so no entry can name them wrongly.
--
-- Also: a cancellation before move-in reverses each part of a charge to nothing, goodwill included.
-- Goodwill is given on a part as a whole; where it took more than the nights the part kept, the
-- reversal reverses that much of the goodwill's release (a positive reversal naming it), so the
-- cancelled stay charges 0 and every cent the payer still has in it is owed back.

alter table app.ledger_entries drop constraint ledger_entries_kind_check;
alter table app.ledger_entries add constraint ledger_entries_kind_check
  check (kind in ('charge', 'release', 'restore', 'reversal', 'transfer', 'payment', 'refund', 'fee'));

alter table app.ledger_entries drop constraint ledger_entries_adjusts;
alter table app.ledger_entries add constraint ledger_entries_adjusts
  check ((kind in ('charge', 'payment', 'refund', 'fee')) = (adjusts is null));

-- The sign of each kind: a reversal may be positive only when it reverses a goodwill release.
do $$
declare v_name text;
begin
  select conname into strict v_name from pg_constraint
   where conrelid = 'app.ledger_entries'::regclass and contype = 'c'
     and pg_get_constraintdef(oid) like '%kind = ANY (ARRAY[''release''::text, ''reversal''::text])) THEN (amount_cents <= 0)%';
  execute format('alter table app.ledger_entries drop constraint %I', v_name);
end $$;
alter table app.ledger_entries add constraint ledger_entries_sign
  check (case when kind in ('charge', 'restore') then amount_cents >= 0
              when kind = 'release' then amount_cents <= 0
              when kind = 'reversal' then amount_cents <= 0 or cause = 'cancelled'
              else true end);

-- A fee entry names the payment it was taken on (and, returned, the refund request that returned it).
alter table app.ledger_entries drop constraint ledger_entries_settlement;
alter table app.ledger_entries add constraint ledger_entries_settlement check (
    (kind in ('payment', 'refund', 'fee')) = (payment_id is not null)
    and (kind in ('payment', 'refund')) = (payer is not null)
    and (kind = 'refund' or (kind = 'release' and cause in ('deposit_returned', 'goodwill')) or (kind = 'fee' and cause in ('refunded', 'duplicate') and amount_cents < 0))
        = (refund_request_id is not null)
    and (kind <> 'payment' or amount_cents <= 0)
    and (kind <> 'refund' or amount_cents >= 0)
    and (kind <> 'fee' or (part = 'rent' and amount_cents <> 0)));
-- Taken once per payment, returned once per refund request.
create unique index ledger_entries_fee_taken_once on app.ledger_entries (payment_id) where kind = 'fee' and refund_request_id is null;
create unique index ledger_entries_fee_returned_once on app.ledger_entries (refund_request_id) where kind = 'fee';

comment on column app.ledger_entries.kind is 'charge (posted when signed), release (nights given back; a deposit returned; goodwill given), restore (released nights taken back by an extension), reversal (a cancellation), transfer (what a restore put on a part already paid beyond what was settled for it, moved to the extension''s charge, and moved back when those nights go again), payment (a payer paid the part: negative), refund (money returned to the payer on the part: positive), fee (the service''s fee on rent: taken with a payment, positive; returned with a refund, negative).';

alter table app.ledger_entries
  add column debit_account text not null generated always as (
    case when kind = 'fee' then 'landlord_rent' else 'payer_' || part end) stored,
  add column credit_account text not null generated always as (
    case when kind = 'fee' then 'service_fee'
         when kind in ('payment', 'refund') then 'processor'
         when part = 'deposit' then 'deposits_held'
         else 'landlord_' || part end) stored;
comment on column app.ledger_entries.debit_account is 'The account the entry debits with amount_cents (generated from kind and part): payer_rent, payer_fees, payer_deposit (what that part''s payer owes), landlord_rent (the service fee).';
comment on column app.ledger_entries.credit_account is 'The account the entry credits with amount_cents (generated from kind and part): landlord_rent, landlord_fees, deposits_held, processor, service_fee.';

-- Each stay's accounts and their balances: debits less credits. They sum to zero for every stay.
create view app.ledger_balances with (security_invoker = true) as
select org_id, environment, claim_id, claim_home_id, currency, account, sum(amount_cents)::bigint as balance_cents
  from (select org_id, environment, claim_id, claim_home_id, currency, debit_account as account, amount_cents from app.ledger_entries
        union all
        select org_id, environment, claim_id, claim_home_id, currency, credit_account, -amount_cents from app.ledger_entries) as legs
 group by org_id, environment, claim_id, claim_home_id, currency, account;
comment on view app.ledger_balances is 'Each stay''s ledger accounts and their balances (debits less credits); the balances of a stay sum to zero.';
grant select on app.ledger_balances to svc_api;

-- The service fee of payments and refunds already posted: taken as the processor recorded it
-- (app.payments.platform_fee_cents); returned as the refund issued it, 8 % of the rent it returned
-- (rounded half up; a duplicate charge's automatic refund returns its whole fee).
insert into app.ledger_entries (org_id, environment, claim_id, claim_home_id, property_id, currency, lease_agreement_id, charge_type,
                                period_start, part, line, kind, cause, payment_id, amount_cents)
select l.org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.currency, l.lease_agreement_id, l.charge_type,
       l.period_start, 'rent', 'Service fee', 'fee', case when p.duplicate_of is null then 'paid' else 'duplicate' end, p.id,
       p.platform_fee_cents
  from (select distinct on (payment_id) * from app.ledger_entries where kind = 'payment' order by payment_id, position) as l
  join app.payments p on p.id = l.payment_id
 where p.platform_fee_cents > 0
 order by l.position
on conflict do nothing;

insert into app.ledger_entries (org_id, environment, claim_id, claim_home_id, property_id, currency, lease_agreement_id, charge_type,
                                period_start, part, line, kind, cause, payment_id, refund_request_id, amount_cents)
select l.org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.currency, l.lease_agreement_id, l.charge_type,
       l.period_start, 'rent', 'Service fee returned', 'fee', l.cause, l.payment_id, l.refund_request_id,
       -round(l.rent_cents * 800 / 10000.0)::bigint
  from (select refund_request_id, min(position) as position,
               (array_agg(org_id order by position))[1] as org_id, (array_agg(environment order by position))[1] as environment,
               (array_agg(claim_id order by position))[1] as claim_id, (array_agg(claim_home_id order by position))[1] as claim_home_id,
               (array_agg(property_id order by position))[1] as property_id, (array_agg(currency order by position))[1] as currency,
               (array_agg(lease_agreement_id order by position))[1] as lease_agreement_id,
               (array_agg(charge_type order by position))[1] as charge_type, (array_agg(period_start order by position))[1] as period_start,
               (array_agg(cause order by position))[1] as cause, (array_agg(payment_id order by position))[1] as payment_id,
               coalesce(sum(amount_cents) filter (where part = 'rent'), 0) as rent_cents
          from app.ledger_entries where kind = 'refund' group by refund_request_id) as l
 where round(l.rent_cents * 800 / 10000.0) > 0
 order by l.position
on conflict do nothing;
