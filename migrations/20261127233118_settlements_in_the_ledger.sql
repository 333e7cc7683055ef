-- Money that moves is an entry too. Until now the ledger (app.ledger_entries) held what a stay
-- charges, and what was paid or refunded was read from app.payments, whose refunded_cents a refund
-- updated in place. A refund could not say what it returned, so nights taken back after a refund
-- were counted as still paid, and a refund with the defaults returned a whole payment.
--
-- Now every payment posts an entry per part it paid (kind payment: it lowers what its payer owes
-- on that charge), and every refund an entry per part it returns (kind refund: it raises it again),
-- each naming its payer, its payment and (a refund) its request. So, per charge and part:
--   what is owed = the sum of its entries; paid = its payments; settled = payments less refunds.
-- A refund of a deposit releases the deposit it returns (cause deposit_returned), and a refund
-- beyond what is owed back (asked with goodwill) releases what it gives (cause goodwill), so
-- neither makes anything due again. A duplicate charge and its automatic refund post together
-- (cause duplicate) and cancel out. app.payments stays the processor's record of what it said.

alter table app.ledger_entries drop constraint ledger_entries_kind_check;
alter table app.ledger_entries add constraint ledger_entries_kind_check
  check (kind in ('charge', 'release', 'restore', 'reversal', 'transfer', 'payment', 'refund'));
alter table app.ledger_entries drop constraint ledger_entries_cause_check;
alter table app.ledger_entries add constraint ledger_entries_cause_check
  check (cause in ('signed', 'shortened', 'extended', 'lapsed', 'cancelled', 'paid', 'refunded', 'duplicate', 'deposit_returned', 'goodwill'));

-- An adjustment names the charge entry it changes; a charge, a payment and a refund stand alone.
do $$
declare v_name text;
begin
  select conname into strict v_name from pg_constraint
   where conrelid = 'app.ledger_entries'::regclass and contype = 'c'
     and pg_get_constraintdef(oid) like '%(kind = ''charge''::text) = (adjusts IS NULL)%';
  execute format('alter table app.ledger_entries drop constraint %I', v_name);
end $$;
alter table app.ledger_entries add constraint ledger_entries_adjusts
  check ((kind in ('charge', 'payment', 'refund')) = (adjusts is null));

alter table app.ledger_entries
  add column payer text check (payer in ('carrier', 'tpa', 'policyholder')),
  add column payment_id uuid references app.payments (id),
  add column refund_request_id uuid references app.refund_requests (id);
create unique index ledger_entries_paid_once on app.ledger_entries (payment_id, part) where kind = 'payment';
create unique index ledger_entries_refunded_once on app.ledger_entries (refund_request_id, lease_agreement_id, charge_type, period_start, part)
  where kind = 'refund';
-- The releases a refund posts (a deposit returned, goodwill) name their request too.
create unique index ledger_entries_released_once on app.ledger_entries (refund_request_id, adjusts)
  where kind = 'release' and cause in ('deposit_returned', 'goodwill');
alter table app.ledger_entries add constraint ledger_entries_settlement check (
    (kind in ('payment', 'refund')) = (payment_id is not null)
    and (kind in ('payment', 'refund')) = (payer is not null)
    and (kind = 'refund' or (kind = 'release' and cause in ('deposit_returned', 'goodwill'))) = (refund_request_id is not null)
    and (kind <> 'payment' or amount_cents <= 0)
    and (kind <> 'refund' or amount_cents >= 0));

comment on column app.ledger_entries.kind is 'charge (posted when signed), release (nights given back; a deposit returned; goodwill given), restore (released nights taken back by an extension), reversal (a cancellation), transfer (what a restore put on a part already paid beyond what was settled for it, moved to the extension''s charge, and moved back when those nights go again), payment (a payer paid the part: negative), refund (money returned to the payer on the part: positive).';
comment on column app.ledger_entries.cause is 'What posted it: signed, shortened, extended, lapsed, cancelled; paid (a payment), refunded (a refund), duplicate (a second charge and its automatic refund), deposit_returned and goodwill (what a refund of those gives back).';
comment on column app.ledger_entries.payer is 'Who paid, or was refunded (a payment or refund entry).';
comment on column app.ledger_entries.payment_id is 'The processor payment a payment or refund entry moved money on.';
comment on column app.ledger_entries.refund_request_id is 'The refund request a refund entry (and a release for a deposit returned or goodwill) belongs to.';

-- What a refund request is for: what is owed back to its payer (nights released, a cancellation),
-- or the deposit held; goodwill allows more than is owed back.
alter table app.refund_requests
  add column purpose text not null default 'owed_back' check (purpose in ('owed_back', 'deposit')),
  add column goodwill boolean not null default false;
comment on column app.refund_requests.purpose is 'What the refund returns: owed_back (what the ledger owes the payer back) or deposit (the deposit held).';
comment on column app.refund_requests.goodwill is 'Asked beyond what is owed back: what it gives beyond it is posted as goodwill.';

-- Existing stays keep their figures: every settled payment posts what it paid, part by part, and
-- every refund approved or issued posts what it returned, on the parts of its payment in the order
-- rent, fees, deposit (as the statement netted them before, per payer).
insert into app.ledger_entries (org_id, environment, claim_id, claim_home_id, property_id, currency, lease_agreement_id, charge_type,
                                period_start, part, line, kind, cause, payer, payment_id, amount_cents)
select p.carrier_org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.currency, p.lease_agreement_id, p.charge_type,
       p.period_start, part.name, 'Payment', 'payment', case when p.duplicate_of is null then 'paid' else 'duplicate' end,
       coalesce(p.payer, c.rent_payer), p.id, -part.cents
  from app.payments p
  join app.claims c on c.id = p.claim_id
 cross join lateral (values ('rent', p.rent_cents), ('deposit', p.deposit_cents), ('fees', p.fees_cents)) as part(name, cents)
 where p.status in ('succeeded', 'refunded') and p.claim_home_id is not null and p.lease_agreement_id is not null
   and p.period_start is not null and part.cents > 0
 order by p.paid_at, p.id, array_position(array['rent', 'deposit', 'fees'], part.name);

insert into app.ledger_entries (org_id, environment, claim_id, claim_home_id, property_id, currency, lease_agreement_id, charge_type,
                                period_start, part, line, kind, cause, payer, payment_id, refund_request_id, amount_cents)
select p.carrier_org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.currency, p.lease_agreement_id, p.charge_type,
       p.period_start, s.name, 'Refund', 'refund', case when r.automatic then 'duplicate' else 'refunded' end,
       coalesce(p.payer, c.rent_payer), p.id, r.id, s.cents
  from app.refund_requests r
  join app.payments p on p.id = r.payment_id
  join app.claims c on c.id = p.claim_id
 cross join lateral (
   select name, least(cents, r.amount_cents - coalesce(sum(cents) over (order by n rows between unbounded preceding and 1 preceding), 0)) as cents
     from (values (1, 'rent', p.rent_cents), (2, 'fees', p.fees_cents), (3, 'deposit', p.deposit_cents)) as part(n, name, cents)
 ) as s
 where r.status in ('approved', 'refunded') and s.cents > 0
   and p.claim_home_id is not null and p.lease_agreement_id is not null and p.period_start is not null
 order by r.created_at, r.id;
