-- The payout status is worked out in one place, app.payout_status, and read once a row.
-- 20261128133010 recreated can_take_charges with payout_status's default (a provider without an
-- account can take charges in sandbox only) written out again beside it, and payee_of asked
-- payout_status for the account and then can_take_charges, which looked the account up again. Now
-- can_take_charges returns payout_status's charges_enabled, and payee_of reads payout_status once a
-- row. Same signatures, results, volatility, rights and search path.
create or replace function app.can_take_charges(p_org uuid, p_env text)
returns boolean
language plpgsql stable security definer
set search_path = app, pg_temp
as $$
begin
  return (app.payout_status(p_org, p_env)).charges_enabled;
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
