-- The settlements backfill again, for payments and refunds not in the ledger yet, with refunds
-- attributed as the statement counted them (20261127233118 posted them on the parts in the order
-- rent, fees, deposit; that migration ran as it was and is not changed). Entries posted already are
-- left as they are (append-only): a stay backfilled by the first version keeps its attribution, and
-- where it differs from what was owed back the reconciliation lists it.
--
-- Existing stays keep their figures: every settled payment posts what it paid, part by part, and
-- every refund approved or issued posts what it returned on the parts of its payment: first what
-- each part paid beyond what its charge now holds (what the statement counted as owed back), then
-- the rest, in the order rent, fees, deposit; so each payer's refund due reads as before. (Two
-- refunds of one payment both start from what is owed back now: a stay refunded twice may read a
-- part refunded beyond it, which the reconciliation lists.) What is posted already is left as it
-- is, so the backfill can run again.
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
 order by p.paid_at, p.id, array_position(array['rent', 'deposit', 'fees'], part.name)
on conflict do nothing;

insert into app.ledger_entries (org_id, environment, claim_id, claim_home_id, property_id, currency, lease_agreement_id, charge_type,
                                period_start, part, line, kind, cause, payer, payment_id, refund_request_id, amount_cents)
select p.carrier_org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.currency, p.lease_agreement_id, p.charge_type,
       p.period_start, s.name, 'Refund', 'refund', case when r.automatic then 'duplicate' else 'refunded' end,
       coalesce(p.payer, c.rent_payer), p.id, r.id, s.cents
  from app.refund_requests r
  join app.payments p on p.id = r.payment_id
  join app.claims c on c.id = p.claim_id
 cross join lateral (
   -- First what each part of the payment paid beyond what its charge now holds (owed back), then
   -- the rest of each part, in the order rent, fees, deposit, up to the refund's amount.
   select taken.name, sum(taken.cents) as cents
     from (
       select share.name,
              least(share.cap, r.amount_cents - coalesce(sum(share.cap) over (order by share.pass, share.n rows between unbounded preceding and 1 preceding), 0)) as cents
         from (
           select pass.n as pass, part.n, part.name,
                  case when pass.n = 1 then part.owed else part.cents - part.owed end as cap
             from (
               select part.n, part.name, part.cents, least(part.cents, greatest(0, part.cents - greatest(0, held.cents))) as owed
                 from (values (1, 'rent', p.rent_cents), (2, 'fees', p.fees_cents), (3, 'deposit', p.deposit_cents)) as part(n, name, cents)
                cross join lateral (
                  select coalesce(sum(e.amount_cents), 0) as cents from app.ledger_entries e
                   where e.claim_home_id = p.claim_home_id and e.lease_agreement_id = p.lease_agreement_id and e.charge_type = p.charge_type
                     and e.period_start = p.period_start and e.part = part.name and e.kind not in ('payment', 'refund')) as held
             ) as part
            cross join (values (1), (2)) as pass(n)
         ) as share
     ) as taken
    where taken.cents > 0
    group by taken.name
 ) as s
 where r.status in ('approved', 'refunded')
   and p.claim_home_id is not null and p.lease_agreement_id is not null and p.period_start is not null
 order by r.created_at, r.id
on conflict do nothing;
