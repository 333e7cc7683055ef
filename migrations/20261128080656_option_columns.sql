-- One name for a home on a request, the columns' part. 20261128062808 gave the options' table the
-- API's word (app.claim_options) and kept the columns that point at an option from other tables as
-- claim_home_id. They take the word too: claim_option_id, in the contract versions, payments,
-- bookings, ledger entries, refund requests, answers, stay changes and undelivered messages, with
-- the constraints and index whose names said claim_home. A column rename keeps the data, the
-- indexes, the foreign keys, the policies and the comments (they hold the column by its number).
--
-- Stored payloads need nothing: no job payload, event payload or signed link carries the column's
-- name as a key (they say placement_id, and keep it). The API never sent it.
--
-- The views: app.ledger_balances and app.refund_requests named their output column after the
-- table's; both take the new name. Nothing outside the service reads either by that name: the
-- service's code reads app.refund_requests (and changes with this migration), nothing reads
-- app.ledger_balances' column, and the staff view Studio users read, staff.ledger_differences,
-- calls the column placement_id and keeps that name. A view's output column keeps its name when the
-- table's column is renamed, hence the renames; app.ledger_balances and staff.ledger_differences are
-- also created again in full, so that the names inside them (a subquery's, a WITH query's columns)
-- say claim_option_id too.
--
-- A database function's body is text, resolved when it runs: the two functions whose body named the
-- column (app.calendar_export_feed, the trigger function app.refund_request_one_open) are created
-- again below, or they would fail only when called. No function has a parameter named after the
-- column. The service's functions deployed before this migration name the old column: deploy them
-- right after the push (npm run db:push, then npm run functions:deploy).
alter table app.bookings rename column claim_home_id to claim_option_id;
alter table app.household_responses rename column claim_home_id to claim_option_id;
alter table app.lease_agreements rename column claim_home_id to claim_option_id;
alter table app.ledger_entries rename column claim_home_id to claim_option_id;
alter table app.payments rename column claim_home_id to claim_option_id;
alter table app.refund_request_asks rename column claim_home_id to claim_option_id;
alter table app.stay_changes rename column claim_home_id to claim_option_id;
alter table app.undelivered_messages rename column claim_home_id to claim_option_id;

alter view app.ledger_balances rename column claim_home_id to claim_option_id;
alter view app.refund_requests rename column claim_home_id to claim_option_id;

alter table app.bookings rename constraint bookings_claim_home to bookings_claim_option;
alter table app.household_responses rename constraint household_responses_claim_home_id_org_id_environment_fkey to household_responses_claim_option_id_org_id_environment_fkey;
alter table app.lease_agreements rename constraint lease_agreements_claim_home_id_org_id_environment_fkey to lease_agreements_claim_option_id_org_id_environment_fkey;
-- Renames its index with it.
alter table app.lease_agreements rename constraint lease_agreements_claim_home_id_version_key to lease_agreements_claim_option_id_version_key;
alter table app.ledger_entries rename constraint ledger_entries_claim_home_id_org_id_environment_fkey to ledger_entries_claim_option_id_org_id_environment_fkey;
alter table app.payments rename constraint payments_claim_home to payments_claim_option;
alter table app.refund_request_asks rename constraint refund_requests_claim_home_id_org_id_environment_fkey to refund_requests_claim_option_id_org_id_environment_fkey;
alter table app.stay_changes rename constraint stay_changes_claim_home_id_org_id_environment_fkey to stay_changes_claim_option_id_org_id_environment_fkey;
alter table app.undelivered_messages rename constraint undelivered_messages_claim_home_id_fkey to undelivered_messages_claim_option_id_fkey;
alter index app.payments_claim_home rename to payments_claim_option;

-- An index's columns keep the name they were built with (psql's \d of the index shows it): they follow too.
alter table app.household_responses_home rename column claim_home_id to claim_option_id;
alter table app.lease_agreements_claim_option_id_version_key rename column claim_home_id to claim_option_id;
alter table app.lease_agreements_one_live rename column claim_home_id to claim_option_id;
alter table app.lease_agreements_one_open_addendum rename column claim_home_id to claim_option_id;
alter table app.ledger_entries_placement rename column claim_home_id to claim_option_id;
alter table app.payments_claim_option rename column claim_home_id to claim_option_id;
alter table app.payments_one_open_checkout rename column claim_home_id to claim_option_id;
alter table app.payments_one_per_charge_deposit rename column claim_home_id to claim_option_id;
alter table app.payments_one_per_charge_fees rename column claim_home_id to claim_option_id;
alter table app.payments_one_per_charge_rent rename column claim_home_id to claim_option_id;
alter table app.refund_request_asks_placement rename column claim_home_id to claim_option_id;

-- The functions whose body named the column, as they stood, with the new name.
CREATE OR REPLACE FUNCTION app.calendar_export_feed(p_token_hash text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select jsonb_build_object(
    'changed_at', e.changed_at,
    'events', coalesce((
      select jsonb_agg(jsonb_build_object('uid', f.uid, 'kind', f.kind, 'start_date', f.start_date, 'end_date', f.end_date)
                       order by f.start_date, f.uid)
        from (
          select 'stay-' || l.claim_option_id as uid,
                 case when bool_or(b.held_for in ('booking', 'completed')) then 'booked' else 'held' end as kind,
                 min(b.start_date) as start_date, max(b.end_date) as end_date
            from app.availability_blocks b
            join app.lease_agreements l on l.id = b.lease_agreement_id
           where b.property_id = e.property_id and b.environment = e.environment and b.source = 'service'
           group by l.claim_option_id
          union all
          select 'block-' || b.id, 'blocked', b.start_date, b.end_date
            from app.availability_blocks b
           where b.property_id = e.property_id and b.environment = e.environment and b.source = 'provider'
        ) f), '[]'::jsonb))
    from app.calendar_exports e
   where e.token_hash = p_token_hash
$function$;

CREATE OR REPLACE FUNCTION app.refund_request_one_open()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  if new.automatic then return new; end if;
  perform pg_advisory_xact_lock(hashtextextended('refund_request_open:' || new.claim_option_id::text, 0));
  if exists (select 1 from app.refund_requests r
              where r.claim_option_id = new.claim_option_id and not r.automatic and r.status in ('pending_owner_approval', 'approved')) then
    raise exception 'a refund request is already open on placement %', new.claim_option_id
      using errcode = '23505', constraint = 'refund_requests_one_open';
  end if;
  return new;
end $function$;

-- The views, as they stood, with the new name inside them too (create or replace keeps their
-- comments and grants; the options are given again, as replacing a view resets them).
create or replace view app.ledger_balances with (security_invoker=true) as
 SELECT org_id,
    environment,
    claim_id,
    claim_option_id,
    currency,
    account,
    sum(amount_cents)::bigint AS balance_cents
   FROM ( SELECT ledger_entries.org_id,
            ledger_entries.environment,
            ledger_entries.claim_id,
            ledger_entries.claim_option_id,
            ledger_entries.currency,
            ledger_entries.debit_account AS account,
            ledger_entries.amount_cents
           FROM app.ledger_entries
        UNION ALL
         SELECT ledger_entries.org_id,
            ledger_entries.environment,
            ledger_entries.claim_id,
            ledger_entries.claim_option_id,
            ledger_entries.currency,
            ledger_entries.credit_account,
            - ledger_entries.amount_cents
           FROM app.ledger_entries) legs
  GROUP BY org_id, environment, claim_id, claim_option_id, currency, account;

create or replace view staff.ledger_differences as
 WITH stay_payments AS (
         SELECT p.id,
            p.org_id,
            p.environment,
            p.property_id,
            p.booking_id,
            p.carrier_org_id,
            p.claim_id,
            p.lease_agreement_id,
            p.charge_type,
            p.status,
            p.rent_cents,
            p.deposit_cents,
            p.fees_cents,
            p.gross_cents,
            p.platform_fee_cents,
            p.processing_fee_cents,
            p.net_cents,
            p.currency,
            p.paid_at,
            p.failure_reason,
            p.created_at,
            p.provider_ref,
            p.claim_option_id,
            p.covers_rent,
            p.covers_deposit,
            p.period_start,
            p.period_end,
            p.refunded_cents,
            p.refunded_at,
            p.payer,
            p.checkout_ref,
            p.checkout_url,
            p.checkout_expires_at,
            p.duplicate_of,
            p.status = ANY (ARRAY['succeeded'::text, 'refunded'::text]) AS settled
           FROM app.payments p
          WHERE p.claim_option_id IS NOT NULL
        ), paid AS (
         SELECT l.payment_id,
            l.part,
            - sum(l.amount_cents) AS cents
           FROM app.ledger_entries l
          WHERE l.kind = 'payment'::text
          GROUP BY l.payment_id, l.part
        ), returned AS (
         SELECT l.payment_id,
            l.part,
            r.status,
            sum(l.amount_cents) AS cents
           FROM app.ledger_entries l
             JOIN app.refund_requests r ON r.id = l.refund_request_id
          WHERE l.kind = 'refund'::text
          GROUP BY l.payment_id, l.part, r.status
        ), refund_totals AS (
         SELECT returned.payment_id,
            COALESCE(sum(returned.cents) FILTER (WHERE returned.status = 'refunded'::text), 0::numeric) AS refunded,
            COALESCE(sum(returned.cents) FILTER (WHERE returned.status = ANY (ARRAY['approved'::text, 'failed'::text])), 0::numeric) AS in_flight
           FROM returned
          GROUP BY returned.payment_id
        ), found AS (
         SELECT 'payment_not_in_ledger'::text AS kind,
            p.carrier_org_id AS org_id,
            p.org_id AS provider_org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id AS payment_id,
            NULL::uuid AS refund_request_id,
            NULL::text AS part,
            p.payer,
            0::bigint AS ledger_cents,
            p.gross_cents AS processor_cents,
            p.currency,
            (('the processor settled this payment ('::text || p.status) ||
                CASE
                    WHEN p.duplicate_of IS NOT NULL THEN ', a duplicate charge'::text
                    ELSE ''::text
                END) || ') and the ledger has no payment entry for it'::text AS detail
           FROM stay_payments p
          WHERE p.settled AND p.gross_cents > 0 AND NOT (EXISTS ( SELECT 1
                   FROM app.ledger_entries l
                  WHERE l.payment_id = p.id AND l.kind = 'payment'::text))
        UNION ALL
         SELECT 'payment_part_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            part.name,
            p.payer,
            COALESCE(paid.cents, 0::numeric)::bigint AS "coalesce",
            part.cents,
            p.currency,
            (((('the processor says the payment paid '::text || part.cents) || ' cents of '::text) || part.name) || ', its payment entries '::text) || COALESCE(paid.cents, 0::numeric)
           FROM stay_payments p
             CROSS JOIN LATERAL ( VALUES ('rent'::text,p.rent_cents), ('deposit'::text,p.deposit_cents), ('fees'::text,p.fees_cents)) part(name, cents)
             LEFT JOIN paid ON paid.payment_id = p.id AND paid.part = part.name
          WHERE p.settled AND (EXISTS ( SELECT 1
                   FROM app.ledger_entries l
                  WHERE l.payment_id = p.id AND l.kind = 'payment'::text)) AND COALESCE(paid.cents, 0::numeric) <> part.cents::numeric
        UNION ALL
         SELECT 'payment_not_settled'::text AS text,
            l.org_id,
            p.org_id,
            l.environment,
            l.claim_id,
            l.claim_option_id,
            l.property_id,
            l.payment_id,
            NULL::uuid AS uuid,
            NULL::text AS text,
            min(l.payer) AS min,
            - sum(l.amount_cents)::bigint,
            0::bigint AS int8,
            min(l.currency) AS min,
            (('the ledger has '::text || count(*)) || ' payment or refund entries on a payment the processor reports '::text) || COALESCE(p.status, 'nowhere'::text)
           FROM app.ledger_entries l
             LEFT JOIN app.payments p ON p.id = l.payment_id
          WHERE (l.kind = ANY (ARRAY['payment'::text, 'refund'::text])) AND (p.id IS NULL OR (p.status <> ALL (ARRAY['succeeded'::text, 'refunded'::text])))
          GROUP BY l.org_id, p.org_id, l.environment, l.claim_id, l.claim_option_id, l.property_id, l.payment_id, p.status
        UNION ALL
         SELECT 'refund_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            NULL::text AS text,
            p.payer,
            COALESCE(t.refunded, 0::numeric)::bigint AS "coalesce",
            p.refunded_cents,
            p.currency,
            ((('the processor says '::text || p.refunded_cents) || ' cents of the payment were refunded, the ledger''s issued refunds '::text) || COALESCE(t.refunded, 0::numeric)) ||
                CASE
                    WHEN COALESCE(t.in_flight, 0::numeric) > 0::numeric THEN (' (and '::text || t.in_flight) || ' in flight)'::text
                    ELSE ''::text
                END
           FROM stay_payments p
             LEFT JOIN refund_totals t ON t.payment_id = p.id
          WHERE p.refunded_cents::numeric < COALESCE(t.refunded, 0::numeric) OR p.refunded_cents::numeric > (COALESCE(t.refunded, 0::numeric) + COALESCE(t.in_flight, 0::numeric))
        UNION ALL
         SELECT 'refund_exceeds_paid'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            r.part,
            p.payer,
            sum(r.cents)::bigint AS sum,
            COALESCE(max(paid.cents), 0::numeric)::bigint AS "coalesce",
            p.currency,
            ((((('the ledger refunds '::text || sum(r.cents)) || ' cents of '::text) || r.part) || ' on a payment whose entries paid '::text) || COALESCE(max(paid.cents), 0::numeric)) || ' of it'::text
           FROM returned r
             JOIN stay_payments p ON p.id = r.payment_id
             LEFT JOIN paid ON paid.payment_id = r.payment_id AND paid.part = r.part
          GROUP BY p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_option_id, p.property_id, p.id, r.part, p.payer, p.currency
         HAVING sum(r.cents) > COALESCE(max(paid.cents), 0::numeric)
        UNION ALL
         SELECT 'platform_fee_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_option_id,
            p.property_id,
            p.id,
            NULL::uuid AS uuid,
            'rent'::text AS text,
            p.payer,
            round(COALESCE(paid.cents, 0::numeric) * 800::numeric / 10000.0)::bigint AS round,
            p.platform_fee_cents,
            p.currency,
            (((('the processor took a platform fee of '::text || p.platform_fee_cents) || ' cents, 8 % of the rent the entries paid ('::text) || COALESCE(paid.cents, 0::numeric)) || ') is '::text) || round(COALESCE(paid.cents, 0::numeric) * 800::numeric / 10000.0)
           FROM stay_payments p
             LEFT JOIN paid ON paid.payment_id = p.id AND paid.part = 'rent'::text
          WHERE p.settled AND (EXISTS ( SELECT 1
                   FROM app.ledger_entries l
                  WHERE l.payment_id = p.id AND l.kind = 'payment'::text)) AND p.platform_fee_cents::numeric <> round(COALESCE(paid.cents, 0::numeric) * 800::numeric / 10000.0)
        UNION ALL
         SELECT 'settlement_on_other_stay'::text AS text,
            l.org_id,
            p.org_id,
            l.environment,
            l.claim_id,
            l.claim_option_id,
            l.property_id,
            l.payment_id,
            l.refund_request_id,
            l.part,
            l.payer,
            l.amount_cents,
            0::bigint AS int8,
            l.currency,
            (('a '::text || l.kind) || ' entry on this stay names a payment of '::text) || COALESCE(('another stay ('::text || p.claim_option_id) || ')'::text, 'no stay'::text)
           FROM app.ledger_entries l
             JOIN app.payments p ON p.id = l.payment_id
          WHERE (l.kind = ANY (ARRAY['payment'::text, 'refund'::text])) AND p.claim_option_id IS DISTINCT FROM l.claim_option_id
        UNION ALL
         SELECT 'refund_on_other_payment'::text AS text,
            l.org_id,
            r.provider_org_id,
            l.environment,
            l.claim_id,
            l.claim_option_id,
            l.property_id,
            l.payment_id,
            l.refund_request_id,
            l.part,
            l.payer,
            l.amount_cents,
            0::bigint AS int8,
            l.currency,
            (('a refund entry names payment '::text || l.payment_id) || ', its request refunds payment '::text) || r.payment_id
           FROM app.ledger_entries l
             JOIN app.refund_requests r ON r.id = l.refund_request_id
          WHERE l.kind = 'refund'::text AND l.payment_id <> r.payment_id
        UNION ALL
         SELECT 'refund_not_approved'::text AS text,
            r.org_id,
            r.provider_org_id,
            r.environment,
            r.claim_id,
            r.claim_option_id,
            r.property_id,
            r.payment_id,
            r.id,
            NULL::text AS text,
            min(l.payer) AS min,
            sum(l.amount_cents)::bigint AS sum,
            0::bigint AS int8,
            r.currency,
            (('the ledger returns '::text || sum(l.amount_cents)) || ' cents for a refund request that is '::text) || r.status
           FROM app.refund_requests r
             JOIN app.ledger_entries l ON l.refund_request_id = r.id AND l.kind = 'refund'::text
          WHERE r.status <> ALL (ARRAY['approved'::text, 'failed'::text, 'refunded'::text])
          GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_option_id, r.property_id, r.provider_org_id, r.payment_id, r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill
        UNION ALL
         SELECT 'refund_in_flight'::text AS text,
            r.org_id,
            r.provider_org_id,
            r.environment,
            r.claim_id,
            r.claim_option_id,
            r.property_id,
            r.payment_id,
            r.id,
            NULL::text AS text,
            min(l.payer) AS min,
            COALESCE(sum(l.amount_cents), 0::numeric)::bigint AS "coalesce",
            0::bigint AS int8,
            r.currency,
            (('approved '::text || to_char((r.decided_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD HH24:MI'::text)) || ' UTC, not yet issued: its refund job is '::text) || COALESCE(( SELECT j.status ||
                        CASE
                            WHEN j.status = 'abandoned'::text THEN (' (admin job retry --id '::text || j.id) || ')'::text
                            ELSE ''::text
                        END
                   FROM app.jobs j
                  WHERE j.kind = 'issue_refund'::text AND (j.payload ->> 'refund_request_id'::text) = r.id::text
                  ORDER BY j.created_at DESC
                 LIMIT 1), 'not queued'::text)
           FROM app.refund_requests r
             LEFT JOIN app.ledger_entries l ON l.refund_request_id = r.id AND l.kind = 'refund'::text
          WHERE r.status = ANY (ARRAY['approved'::text, 'failed'::text])
          GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_option_id, r.property_id, r.provider_org_id, r.payment_id, r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill
        )
 SELECT f.kind,
    f.kind = 'refund_in_flight'::text AS in_flight,
    o.name AS organisation,
    f.org_id,
    f.provider_org_id,
    f.environment,
    c.claim_ref AS reference,
    f.claim_option_id AS placement_id,
    f.property_id,
    f.payment_id,
    f.refund_request_id,
    f.part,
    f.payer,
    f.ledger_cents,
    f.processor_cents,
        CASE
            WHEN f.kind = 'refund_differs'::text AND f.processor_cents > f.ledger_cents THEN (f.processor_cents - f.ledger_cents)::numeric - COALESCE(( SELECT t.in_flight
               FROM refund_totals t
              WHERE t.payment_id = f.payment_id), 0::numeric)
            WHEN f.kind = 'refund_in_flight'::text THEN 0::numeric
            ELSE (f.processor_cents - f.ledger_cents)::numeric
        END AS difference_cents,
    f.currency,
    f.detail
   FROM found f
     JOIN app.organisations o ON o.id = f.org_id
     LEFT JOIN app.claims c ON c.id = f.claim_id;
