-- Reconciliation: the stay's ledger (app.ledger_entries) against the processor's record of the
-- same money (app.payments: what the processor said was paid, refunded and taken as the platform
-- fee). Since every payment and refund is an entry, the two must agree stay by stay; where they do
-- not, staff.ledger_differences lists each difference with its amount, as the console's
-- `ledger reconcile` does. A refund approved and not yet issued is listed as in flight, not as a
-- difference: its entries are posted, its money has not moved yet.
--
-- What the ledger's own constraints already refuse is not checked again here: a settlement entry
-- without its payer or its payment (ledger_entries_settlement), a payment posted twice
-- (ledger_entries_paid_once), a refund entry without its request.

create view staff.ledger_differences as
with stay_payments as (
  -- The processor's payments on stays (a placement: app.claim_homes).
  select p.*, p.status in ('succeeded', 'refunded') as settled
    from app.payments p
   where p.claim_home_id is not null
),
paid as (
  -- What each payment's payment entries paid, part by part (payment entries are negative).
  select l.payment_id, l.part, -sum(l.amount_cents) as cents
    from app.ledger_entries l
   where l.kind = 'payment'
   group by l.payment_id, l.part
),
returned as (
  -- What each payment's refund entries returned, part by part, by the status of their request.
  select l.payment_id, l.part, r.status, sum(l.amount_cents) as cents
    from app.ledger_entries l
    join app.refund_requests r on r.id = l.refund_request_id
   where l.kind = 'refund'
   group by l.payment_id, l.part, r.status
),
refund_totals as (
  select payment_id,
         coalesce(sum(cents) filter (where status = 'refunded'), 0) as refunded,
         coalesce(sum(cents) filter (where status = 'approved'), 0) as in_flight
    from returned
   group by payment_id
),
found as (
  -- A settled payment none of whose parts is in the ledger.
  select 'payment_not_in_ledger' as kind, p.carrier_org_id as org_id, p.org_id as provider_org_id, p.environment, p.claim_id,
         p.claim_home_id, p.property_id, p.id as payment_id, null::uuid as refund_request_id, null::text as part, p.payer,
         0::bigint as ledger_cents, p.gross_cents as processor_cents, p.currency,
         'the processor settled this payment (' || p.status || case when p.duplicate_of is not null then ', a duplicate charge' else '' end ||
         ') and the ledger has no payment entry for it' as detail
    from stay_payments p
   where p.settled and p.gross_cents > 0
     and not exists (select 1 from app.ledger_entries l where l.payment_id = p.id and l.kind = 'payment')
  union all
  -- A settled payment in the ledger whose entries for a part do not sum to what it paid of it.
  select 'payment_part_differs', p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.id, null,
         part.name, p.payer, coalesce(paid.cents, 0)::bigint, part.cents, p.currency,
         'the processor says the payment paid ' || part.cents || ' cents of ' || part.name || ', its payment entries ' || coalesce(paid.cents, 0)
    from stay_payments p
   cross join lateral (values ('rent', p.rent_cents), ('deposit', p.deposit_cents), ('fees', p.fees_cents)) as part(name, cents)
    left join paid on paid.payment_id = p.id and paid.part = part.name
   where p.settled
     and exists (select 1 from app.ledger_entries l where l.payment_id = p.id and l.kind = 'payment')
     and coalesce(paid.cents, 0) <> part.cents
  union all
  -- Payment or refund entries on a payment the processor never settled (pending, failed).
  select 'payment_not_settled', l.org_id, p.org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.payment_id, null, null,
         min(l.payer), -sum(l.amount_cents)::bigint, 0::bigint, min(l.currency),
         'the ledger has ' || count(*) || ' payment or refund entries on a payment the processor reports ' || coalesce(p.status, 'nowhere')
    from app.ledger_entries l
    left join app.payments p on p.id = l.payment_id
   where l.kind in ('payment', 'refund') and (p.id is null or p.status not in ('succeeded', 'refunded'))
   group by l.org_id, p.org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.payment_id, p.status
  union all
  -- What the processor says was refunded on a payment against the refunds issued in the ledger
  -- (entries of requests refunded); a refund approved and not yet issued may already show at the
  -- processor, so up to that much more is in flight, not a difference.
  select 'refund_differs', p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.id, null, null, p.payer,
         coalesce(t.refunded, 0)::bigint, p.refunded_cents, p.currency,
         'the processor says ' || p.refunded_cents || ' cents of the payment were refunded, the ledger''s issued refunds ' || coalesce(t.refunded, 0) ||
         case when coalesce(t.in_flight, 0) > 0 then ' (and ' || t.in_flight || ' in flight)' else '' end
    from stay_payments p
    left join refund_totals t on t.payment_id = p.id
   where p.refunded_cents < coalesce(t.refunded, 0) or p.refunded_cents > coalesce(t.refunded, 0) + coalesce(t.in_flight, 0)
  union all
  -- A part refunded beyond what the payment paid of it.
  select 'refund_exceeds_paid', p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.id, null,
         r.part, p.payer, sum(r.cents)::bigint, coalesce(max(paid.cents), 0)::bigint, p.currency,
         'the ledger refunds ' || sum(r.cents) || ' cents of ' || r.part || ' on a payment whose entries paid ' || coalesce(max(paid.cents), 0) || ' of it'
    from returned r
    join stay_payments p on p.id = r.payment_id
    left join paid on paid.payment_id = r.payment_id and paid.part = r.part
   group by p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.id, r.part, p.payer, p.currency
  having sum(r.cents) > coalesce(max(paid.cents), 0)
  union all
  -- The platform fee the processor took against 8 % of the rent the payment's entries paid
  -- (rounded half up, as the service computes it).
  select 'platform_fee_differs', p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.id, null, 'rent',
         p.payer, round(coalesce(paid.cents, 0) * 800 / 10000.0)::bigint, p.platform_fee_cents, p.currency,
         'the processor took a platform fee of ' || p.platform_fee_cents || ' cents, 8 % of the rent the entries paid (' || coalesce(paid.cents, 0) || ') is ' ||
         round(coalesce(paid.cents, 0) * 800 / 10000.0)
    from stay_payments p
    left join paid on paid.payment_id = p.id and paid.part = 'rent'
   where p.settled
     and exists (select 1 from app.ledger_entries l where l.payment_id = p.id and l.kind = 'payment')
     and p.platform_fee_cents <> round(coalesce(paid.cents, 0) * 800 / 10000.0)
  union all
  -- A payment or refund entry posted on another stay than its payment's.
  select 'settlement_on_other_stay', l.org_id, p.org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.payment_id,
         l.refund_request_id, l.part, l.payer, l.amount_cents, 0::bigint, l.currency,
         'a ' || l.kind || ' entry on this stay names a payment of ' || coalesce('another stay (' || p.claim_home_id || ')', 'no stay')
    from app.ledger_entries l
    join app.payments p on p.id = l.payment_id
   where l.kind in ('payment', 'refund') and p.claim_home_id is distinct from l.claim_home_id
  union all
  -- A refund entry on another payment than the one its request refunds.
  select 'refund_on_other_payment', l.org_id, r.provider_org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.payment_id,
         l.refund_request_id, l.part, l.payer, l.amount_cents, 0::bigint, l.currency,
         'a refund entry names payment ' || l.payment_id || ', its request refunds payment ' || r.payment_id
    from app.ledger_entries l
    join app.refund_requests r on r.id = l.refund_request_id
   where l.kind = 'refund' and l.payment_id <> r.payment_id
  union all
  -- Refund entries of a request that was never approved (pending, declined, failed).
  select 'refund_not_approved', r.org_id, r.provider_org_id, r.environment, r.claim_id, r.claim_home_id, r.property_id, r.payment_id, r.id,
         null, min(l.payer), sum(l.amount_cents)::bigint, 0::bigint, r.currency,
         'the ledger returns ' || sum(l.amount_cents) || ' cents for a refund request that is ' || r.status
    from app.refund_requests r
    join app.ledger_entries l on l.refund_request_id = r.id and l.kind = 'refund'
   where r.status not in ('approved', 'refunded')
   group by r.id
  union all
  -- In flight, not a difference: a refund approved (its entries posted) and not yet issued.
  select 'refund_in_flight', r.org_id, r.provider_org_id, r.environment, r.claim_id, r.claim_home_id, r.property_id, r.payment_id, r.id,
         null, min(l.payer), coalesce(sum(l.amount_cents), 0)::bigint, 0::bigint, r.currency,
         'approved ' || to_char(r.decided_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC, not yet issued: its refund job is ' ||
         coalesce((select j.status || case when j.status = 'abandoned' then ' (admin job retry --id ' || j.id || ')' else '' end
                     from app.jobs j
                    where j.kind = 'issue_refund' and j.payload ->> 'refund_request_id' = r.id::text
                    order by j.created_at desc limit 1), 'not queued')
    from app.refund_requests r
    left join app.ledger_entries l on l.refund_request_id = r.id and l.kind = 'refund'
   where r.status = 'approved'
   group by r.id
)
select f.kind,
       f.kind = 'refund_in_flight' as in_flight,
       o.name as organisation,
       f.org_id,
       f.provider_org_id,
       f.environment,
       c.claim_ref as reference,
       f.claim_home_id as placement_id,
       f.property_id,
       f.payment_id,
       f.refund_request_id,
       f.part,
       f.payer,
       f.ledger_cents,
       f.processor_cents,
       case when f.kind = 'refund_differs' and f.processor_cents > f.ledger_cents
            then f.processor_cents - f.ledger_cents - coalesce((select t.in_flight from refund_totals t where t.payment_id = f.payment_id), 0)
            when f.kind = 'refund_in_flight' then 0
            else f.processor_cents - f.ledger_cents end as difference_cents,
       f.currency,
       f.detail
  from found f
  join app.organisations o on o.id = f.org_id
  left join app.claims c on c.id = f.claim_id;

comment on view staff.ledger_differences is 'Reconciliation, stay by stay: every difference between the stay''s ledger (app.ledger_entries) and the processor''s record of the same money (app.payments), with its amount; empty when they agree. Rows with in_flight true are refunds approved and not yet issued, listed for what they will move, not differences. Both environments. The console''s `ledger reconcile` prints the same rows.';
comment on column staff.ledger_differences.kind is 'payment_not_in_ledger (a settled payment with no payment entry), payment_part_differs (a part''s payment entries do not sum to what the payment paid of it), payment_not_settled (entries on a payment the processor never settled), refund_differs (refunded_cents against the refunds issued in the ledger), refund_exceeds_paid (a part refunded beyond what the payment paid of it), platform_fee_differs (the fee taken against 8 % of the rent the entries paid), settlement_on_other_stay, refund_on_other_payment, refund_not_approved (refund entries of a request never approved), refund_in_flight (not a difference).';
comment on column staff.ledger_differences.in_flight is 'True for a refund approved and not yet issued (kind refund_in_flight): money about to move, not a difference.';
comment on column staff.ledger_differences.organisation is 'The carrier whose request the stay is on.';
comment on column staff.ledger_differences.org_id is 'The carrier organisation (the ledger''s tenant).';
comment on column staff.ledger_differences.provider_org_id is 'The landlord (provider organisation) on whose processor account the payment was made; null when the entry names no payment found.';
comment on column staff.ledger_differences.reference is 'The housing request (REQ-XXXXXX) the stay is on.';
comment on column staff.ledger_differences.placement_id is 'The stay: the home on the request (app.claim_homes).';
comment on column staff.ledger_differences.payment_id is 'The processor payment concerned.';
comment on column staff.ledger_differences.refund_request_id is 'The refund request concerned, when one is.';
comment on column staff.ledger_differences.part is 'rent, deposit or fees, when the difference is of one part (the platform fee: rent).';
comment on column staff.ledger_differences.payer is 'Who paid the payment (carrier, tpa, policyholder); null on payments recorded before charges were split by payer.';
comment on column staff.ledger_differences.ledger_cents is 'What the ledger says, in cents: paid, refunded, the fee on the rent it paid, or (in flight) what the refund returns.';
comment on column staff.ledger_differences.processor_cents is 'What the processor''s record (app.payments) says of the same money, in cents; 0 where it has none.';
comment on column staff.ledger_differences.difference_cents is 'processor_cents less ledger_cents (for refund_differs, less what is in flight too): positive, the processor moved more than the ledger says; 0 in flight.';
comment on column staff.ledger_differences.detail is 'The difference in words.';

-- Readable by the Studio roles only, as every staff view (the staff views migration).
do $$
declare r text;
begin
  foreach r in array array['postgres', 'service_role', 'supabase_admin'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('grant select on staff.ledger_differences to %I', r);
    end if;
  end loop;
  foreach r in array array['svc_api', 'anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('revoke all on staff.ledger_differences from %I', r);
    end if;
  end loop;
end $$;
