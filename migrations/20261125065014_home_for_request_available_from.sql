-- The home a request may price or place now also answers its available_from, so that setting the
-- dates can refuse a move-in before the home is available. The function's result gains a column,
-- so it is dropped and made again, with its grant and comment.
drop function app.home_for_request(uuid, uuid);

create function app.home_for_request(p_claim uuid, p_property uuid)
returns table (
  id uuid, org_id uuid, environment text, name text, address text, city text, state text, zip_code text,
  currency text, monthly_rate_cents bigint, rent_1_3_months_cents bigint, rent_4_6_months_cents bigint,
  rent_7_9_months_cents bigint, rent_10_12_months_cents bigint, security_deposit_cents bigint,
  cleaning_fee_cents bigint, application_fee_cents bigint, pet_fee_cents bigint, pet_rent_cents bigint,
  pet_deposit_cents bigint, utilities_included boolean, utilities_monthly_cents bigint, contract_template text,
  charges_enabled boolean, owner_contact_email text, available_from date
)
language sql stable security definer set search_path = app, pg_temp as $$
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
     and (c.environment = 'sandbox' or p.environment = 'live')
$$;

grant execute on function app.home_for_request(uuid, uuid) to svc_api;

comment on function app.home_for_request(uuid, uuid) is 'The home a request may price or place (verified, same environment or a real home for sandbox, charges enabled), read across organisations; with the day it is available from.';
