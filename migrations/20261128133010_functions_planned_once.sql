-- The functions a placement calls many times a request are planned once a connection, not on every
-- call.
--
-- A LANGUAGE sql function that cannot be inlined (SECURITY DEFINER, or a SET clause) is parsed and
-- planned again each time a statement calls it: PostgreSQL up to 17 keeps its plan only for the
-- statement that called it. A PL/pgSQL function keeps its statements' plans for the connection's
-- life. Measured in the surge (`npm run surge`, one process, pg_stat_statements with planning
-- tracked), these bodies were planned on every call: home_for_request 1,604 plans (0.7 ms each),
-- homes_on_request 1,976, payout_status 3,140, clock_now 3,259 of 5,699 calls, home_label 882,
-- payee_of 768, stay_conflicts 500; can_take_charges parsed its call of payout_status 2,372 times.
-- Together 3.9 s of planning in the statements' 64 s (times on a busy machine), beside parsing that no
-- counter shows.
--
-- Each is recreated in PL/pgSQL with the same signature, result, volatility, owner's rights and
-- search path, and the same query; a function's grants and comment stay with it. payee_of reads the
-- payout status once a row (it asked payout_status and can_take_charges, which asks it again).
--
-- record_event's check that an event filed under another organisation concerns a home on the
-- caller's requests was one expression with the cheap tests and the subquery together. A custom plan
-- folds `p_org is not null` away when p_org is null, so it always looked cheaper than the generic
-- one, and PostgreSQL planned the expression again on 10,411 of 11,081 calls. The cheap tests now
-- come first, on their own, and the subquery runs only for an event filed under another
-- organisation; the rule is unchanged.

create or replace function app.payout_status(p_org uuid, p_env text)
returns app.payout_accounts
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
declare
  v_account app.payout_accounts;
begin
  select * into v_account from app.payout_accounts a where a.org_id = p_org and a.environment = p_env;
  if found then
    return v_account;
  end if;
  return jsonb_populate_record(null::app.payout_accounts, jsonb_build_object(
    'org_id', p_org, 'environment', p_env,
    'connected', p_env = 'sandbox', 'charges_enabled', p_env = 'sandbox', 'payouts_enabled', p_env = 'sandbox',
    'onboarding_status', case when p_env = 'sandbox' then 'complete' else 'not_started' end,
    'bank_account_last4', case when p_env = 'sandbox' then '6789' end,
    'updated_at', now()));
end $$;

create or replace function app.can_take_charges(p_org uuid, p_env text)
returns boolean
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
begin
  return (app.payout_status(p_org, p_env)).charges_enabled;
end $$;

create or replace function app.clock_now()
returns timestamptz
language plpgsql stable
set search_path = app, pg_temp
as $$
begin
  return coalesce((select frozen_time from app.sandbox_clocks where org_id = app.current_org() and environment = app.current_env()), now());
end $$;

create or replace function app.home_for_request(p_claim uuid, p_property uuid)
returns table (
  id uuid, org_id uuid, environment text, name text, address text, city text, state text, zip_code text, currency text,
  monthly_rate_cents bigint, rent_1_3_months_cents bigint, rent_4_6_months_cents bigint, rent_7_9_months_cents bigint,
  rent_10_12_months_cents bigint, security_deposit_cents bigint, cleaning_fee_cents bigint, application_fee_cents bigint,
  pet_fee_cents bigint, pet_rent_cents bigint, pet_deposit_cents bigint, utilities_included boolean,
  utilities_monthly_cents bigint, contract_template text, charges_enabled boolean, owner_contact_email text,
  available_from date
)
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
#variable_conflict use_column
begin
  return query
  select p.id, p.org_id, p.environment, p.name, p.address, p.city, p.state, p.zip_code, p.currency,
         p.monthly_rate_cents, p.rent_1_3_months_cents, p.rent_4_6_months_cents, p.rent_7_9_months_cents,
         p.rent_10_12_months_cents, p.security_deposit_cents, p.cleaning_fee_cents, p.application_fee_cents,
         p.pet_fee_cents, p.pet_rent_cents, p.pet_deposit_cents, p.utilities_included, p.utilities_monthly_cents,
         p.contract_template, app.can_take_charges(p.org_id, c.environment), o.contact_email, p.available_from
    from app.claims c
    join app.properties p on p.id = p_property
    join app.organisations o on o.id = p.org_id
   where c.id = p_claim and c.org_id = app.current_org() and c.environment = app.current_env()
     and p.verified and p.status <> 'unavailable'
     and (c.environment = 'sandbox' or p.environment = 'live');
end $$;

create or replace function app.homes_on_request(p_claim uuid)
returns table (id uuid, name text, address text, city text, state text, currency text, monthly_rate_cents bigint)
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
#variable_conflict use_column
begin
  return query
  select p.id, p.name, p.address, p.city, p.state, p.currency, p.monthly_rate_cents
    from app.claim_options h join app.properties p on p.id = h.property_id
   where h.claim_id = p_claim and h.org_id = app.current_org() and h.environment = app.current_env();
end $$;

create or replace function app.home_label(p_property uuid)
returns table (name text, external_id text)
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
#variable_conflict use_column
begin
  return query
  select p.name, p.external_id from app.properties p
   where p.id = p_property
     and exists (select 1 from app.claim_options h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env());
end $$;

create or replace function app.payee_of(p_property uuid, p_env text)
returns table (org_id uuid, name text, processor_account_id text, charges_enabled boolean, contact_email text)
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
#variable_conflict use_column
begin
  return query
  select o.id, o.name, s.processor_account_id, s.charges_enabled, o.contact_email
    from app.properties p join app.organisations o on o.id = p.org_id
   cross join lateral app.payout_status(o.id, p_env) s
   where p.id = p_property
     and exists (select 1 from app.claim_options h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env());
end $$;

create or replace function app.stay_conflicts(p_property uuid, p_env text, p_claim uuid, p_start date, p_end date)
returns table (start_date date, end_date date, reason text)
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
#variable_conflict use_column
begin
  return query
  select b.start_date, b.end_date, app.conflict_reason(b.source)
    from app.availability_blocks b
   where b.property_id = p_property and b.environment = p_env and b.source = 'service'
     and daterange(b.start_date, b.end_date, '[]') && daterange(p_start, p_end, '[]')
     and not exists (select 1 from app.lease_agreements l
                      where l.id = b.lease_agreement_id and l.claim_id = p_claim and l.org_id = app.current_org())
   order by b.start_date;
end $$;

create or replace function app.record_event(
  p_event text, p_payload jsonb, p_org uuid default null, p_env text default null, p_simulated boolean default false
)
returns uuid
language plpgsql security definer
set search_path = app, pg_temp
as $$
declare v_id uuid;
begin
  if app.current_org() is not null then
    if p_env is not null and p_env <> app.current_env() then
      raise exception 'an event of environment % is not the calling tenant''s to record', p_env using errcode = 'insufficient_privilege';
    end if;
    -- The cheap tests alone first (see the top of this file); the subquery only for another organisation.
    if p_org is not null and p_org <> app.current_org() then
      if not exists (
        select 1 from app.claim_options h join app.properties p on p.id = h.property_id
         where h.org_id = app.current_org() and h.environment = app.current_env() and p.org_id = p_org) then
        raise exception 'an event for organisation % is not the calling tenant''s to record', p_org using errcode = 'insufficient_privilege';
      end if;
    end if;
  end if;
  insert into app.events (org_id, environment, event, payload, simulated)
  values (coalesce(p_org, app.current_org()), coalesce(p_env, app.current_env()), p_event, p_payload, p_simulated)
  returning id into v_id;
  return v_id;
end $$;
