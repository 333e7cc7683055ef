-- A refund the processor kept refusing is in flight, not a difference. Its request becomes `failed`
-- when its job runs out of attempts, and the ledger entries its approval posted stay posted (the
-- approval is what was agreed; staff retry the job and it is issued). The reconciliation counted
-- only `approved` requests as in flight, so a failed one was listed as refund_not_approved (entries
-- of a request never approved) and, on its payment, left out of what is about to move. Failed
-- requests now count with approved ones: listed as refund_in_flight, with the job's state and the
-- command that retries it, and no difference.
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
            p.claim_home_id,
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
          WHERE p.claim_home_id IS NOT NULL
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
            p.claim_home_id,
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
            p.claim_home_id,
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
            l.claim_home_id,
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
          GROUP BY l.org_id, p.org_id, l.environment, l.claim_id, l.claim_home_id, l.property_id, l.payment_id, p.status
        UNION ALL
         SELECT 'refund_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_home_id,
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
            p.claim_home_id,
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
          GROUP BY p.carrier_org_id, p.org_id, p.environment, p.claim_id, p.claim_home_id, p.property_id, p.id, r.part, p.payer, p.currency
         HAVING sum(r.cents) > COALESCE(max(paid.cents), 0::numeric)
        UNION ALL
         SELECT 'platform_fee_differs'::text AS text,
            p.carrier_org_id,
            p.org_id,
            p.environment,
            p.claim_id,
            p.claim_home_id,
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
            l.claim_home_id,
            l.property_id,
            l.payment_id,
            l.refund_request_id,
            l.part,
            l.payer,
            l.amount_cents,
            0::bigint AS int8,
            l.currency,
            (('a '::text || l.kind) || ' entry on this stay names a payment of '::text) || COALESCE(('another stay ('::text || p.claim_home_id) || ')'::text, 'no stay'::text)
           FROM app.ledger_entries l
             JOIN app.payments p ON p.id = l.payment_id
          WHERE (l.kind = ANY (ARRAY['payment'::text, 'refund'::text])) AND p.claim_home_id IS DISTINCT FROM l.claim_home_id
        UNION ALL
         SELECT 'refund_on_other_payment'::text AS text,
            l.org_id,
            r.provider_org_id,
            l.environment,
            l.claim_id,
            l.claim_home_id,
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
            r.claim_home_id,
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
          GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_home_id, r.property_id, r.provider_org_id, r.payment_id, r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill
        UNION ALL
         SELECT 'refund_in_flight'::text AS text,
            r.org_id,
            r.provider_org_id,
            r.environment,
            r.claim_id,
            r.claim_home_id,
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
          GROUP BY r.id, r.org_id, r.environment, r.claim_id, r.claim_home_id, r.property_id, r.provider_org_id, r.payment_id, r.amount_cents, r.currency, r.covers_deposit, r.reason, r.status, r.decided_at, r.refunded_at, r.provider_ref, r.failure_reason, r.created_at, r.updated_at, r.automatic, r.purpose, r.goodwill
        )
 SELECT f.kind,
    f.kind = 'refund_in_flight'::text AS in_flight,
    o.name AS organisation,
    f.org_id,
    f.provider_org_id,
    f.environment,
    c.claim_ref AS reference,
    f.claim_home_id AS placement_id,
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

comment on column staff.ledger_differences.kind is 'payment_not_in_ledger (a settled payment with no payment entry), payment_part_differs (a part''s payment entries do not sum to what the payment paid of it), payment_not_settled (entries on a payment the processor never settled), refund_differs (refunded_cents against the refunds issued in the ledger), refund_exceeds_paid (a part refunded beyond what the payment paid of it), platform_fee_differs (the fee taken against 8 % of the rent the entries paid), settlement_on_other_stay, refund_on_other_payment, refund_not_approved (refund entries of a request never approved), refund_in_flight (not a difference: approved, or failed and waiting for a retry).';
comment on column staff.ledger_differences.in_flight is 'True for a refund approved and not yet issued, or failed and waiting for staff to retry it (kind refund_in_flight): money about to move, not a difference.';
