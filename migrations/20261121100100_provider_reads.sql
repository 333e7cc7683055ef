-- Provider reads that need one place for their rules or a look across environments.

-- The payout account of a provider in an environment, with the environment's starting state when
-- the processor has reported nothing yet: sandbox accounts start connected with charges and
-- payouts enabled (test bank account ending 6789); live accounts start not connected.
create or replace function app.payout_status(p_org uuid, p_env text) returns app.payout_accounts
language sql stable security definer set search_path = app, pg_temp as $$
  select coalesce(
    (select a from app.payout_accounts a where a.org_id = p_org and a.environment = p_env),
    jsonb_populate_record(null::app.payout_accounts, jsonb_build_object(
      'org_id', p_org, 'environment', p_env,
      'connected', p_env = 'sandbox', 'charges_enabled', p_env = 'sandbox', 'payouts_enabled', p_env = 'sandbox',
      'onboarding_status', case when p_env = 'sandbox' then 'complete' else 'not_started' end,
      'bank_account_last4', case when p_env = 'sandbox' then '6789' end,
      'updated_at', now())))
$$;

-- Until charges are enabled, no family can be placed in the provider's homes.
create or replace function app.can_take_charges(p_org uuid, p_env text) returns boolean
language sql stable security definer set search_path = app, pg_temp as $$
  select (app.payout_status(p_org, p_env)).charges_enabled
$$;

-- Name and reference of the caller's own homes in any environment: a sandbox booking of a real
-- home is read with a sandbox key, under which the live home itself is not visible.
create or replace function app.own_home_labels(p_ids uuid[])
returns table (id uuid, name text, external_id text)
language sql stable security definer set search_path = app, pg_temp as $$
  select p.id, p.name, p.external_id from app.properties p
   where p.id = any(p_ids) and p.org_id = app.current_org()
$$;

grant execute on function app.payout_status(uuid, text), app.own_home_labels(uuid[]) to svc_api;
