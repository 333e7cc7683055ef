-- One name for a home on a request. The API's published word is option (POST /claims/{reference}/options,
-- option_status, option.declined); the table was app.claim_homes, the code said placement. The table
-- takes the API's word: app.claim_options, with its constraints, index and trigger. A placement is an
-- option placed (committed to the request, then its dates, lease, booking and stay): the placement
-- endpoints take an option there and on. The columns that point at an option from other tables keep
-- their name (claim_home_id); their comments say what they name.
--
-- Views (the staff views, app.refund_requests, app.ledger_balances) and row-level security policies
-- hold the table by its identity and follow the rename. A database function's body is text, resolved
-- when it runs: every function that named the table is created again below with the new name, or it
-- would fail only when called. No view keeps the old name: nothing outside the service's code reads
-- app.claim_homes by name (the staff views Studio users read follow the rename; the console's queries
-- are code and change with it). The functions deployed before this migration name the old table:
-- deploy them right after the push (npm run db:push, then npm run functions:deploy).
alter table app.claim_homes rename to claim_options;

alter table app.claim_options rename constraint claim_homes_application_decline_reason_check to claim_options_application_decline_reason_check;
alter table app.claim_options rename constraint claim_homes_application_declined to claim_options_application_declined;
alter table app.claim_options rename constraint claim_homes_application_status to claim_options_application_status;
alter table app.claim_options rename constraint claim_homes_cancel_reason_check to claim_options_cancel_reason_check;
alter table app.claim_options rename constraint claim_homes_check to claim_options_check;
alter table app.claim_options rename constraint claim_homes_claim_id_org_id_environment_fkey to claim_options_claim_id_org_id_environment_fkey;
alter table app.claim_options rename constraint claim_homes_claim_id_property_id_key to claim_options_claim_id_property_id_key;
alter table app.claim_options rename constraint claim_homes_current_lease to claim_options_current_lease;
alter table app.claim_options rename constraint claim_homes_decline to claim_options_decline;
alter table app.claim_options rename constraint claim_homes_decline_reason_check to claim_options_decline_reason_check;
alter table app.claim_options rename constraint claim_homes_environment_check to claim_options_environment_check;
alter table app.claim_options rename constraint claim_homes_lease_status to claim_options_lease_status;
alter table app.claim_options rename constraint claim_homes_option_status to claim_options_option_status;
alter table app.claim_options rename constraint claim_homes_org_id_fkey to claim_options_org_id_fkey;
alter table app.claim_options rename constraint claim_homes_pkey to claim_options_pkey;
alter table app.claim_options rename constraint claim_homes_property_id_fkey to claim_options_property_id_fkey;
alter table app.claim_options rename constraint claim_homes_proposal to claim_options_proposal;
alter table app.claim_options rename constraint claim_homes_recipient_response_check to claim_options_recipient_response_check;
alter table app.claim_options rename constraint claim_homes_signer to claim_options_signer;
alter table app.claim_options rename constraint claim_homes_signer_email_check to claim_options_signer_email_check;
alter table app.claim_options rename constraint claim_homes_signer_name_check to claim_options_signer_name_check;
alter table app.claim_options rename constraint claim_homes_tenant_key to claim_options_tenant_key;
alter index app.claim_homes_applications rename to claim_options_applications;
alter trigger claim_homes_touch on app.claim_options rename to claim_options_touch;

comment on table app.claim_options is
  'The options: each home put on a request (POST /claims/{reference}/options), sent to the household or placed, and its way to a placement (dates, lease, booking, move-in). One row per request and home; a placement is an option placed.';
comment on column app.claim_options.option_status is 'Where the option stands with the household and the carrier: sent, saved, approved (placed), declined or cancelled.';
comment on column app.claim_options.cancelled_at is 'When the option (and its placement, if any) was cancelled; null: still open.';

comment on column app.bookings.claim_home_id is 'The option (home on a request, app.claim_options) that was booked.';
comment on column app.household_responses.claim_home_id is 'The option (home on the request, app.claim_options) answered.';
comment on column app.lease_agreements.claim_home_id is 'The option (app.claim_options) this contract version places.';
comment on column app.ledger_entries.claim_home_id is 'The option (home on a request, app.claim_options) whose stay the entry belongs to.';
comment on column app.payments.claim_home_id is 'The option (home on a request, app.claim_options) the charge pays for.';
comment on column app.refund_request_asks.claim_home_id is 'The option (app.claim_options) whose payment is to be refunded.';
comment on column app.stay_changes.claim_home_id is 'The option (home on a request, app.claim_options) whose stay was shortened.';
comment on column app.undelivered_messages.claim_home_id is 'The option (home on the request, app.claim_options) the message was about.';
comment on column app.ledger_balances.claim_home_id is 'The option (app.claim_options) whose stay''s ledger the account belongs to.';
comment on column app.refund_requests.claim_home_id is 'The option (app.claim_options) whose payment is to be refunded.';
comment on column staff.ledger_differences.placement_id is 'The stay: the option (home on the request, app.claim_options).';

-- The functions whose body named the table, as they stood, with the new name.
CREATE OR REPLACE FUNCTION app.calendar_own_event_uids(p_property_id uuid, p_uids text[])
 RETURNS SETOF text
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select u.uid
    from unnest(p_uids) as u (uid)
   where exists (select 1 from app.properties p
                  where p.id = p_property_id and p.org_id = app.current_org() and p.environment = app.current_env())
     and ((u.uid ~* '^stay-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@'
           and exists (select 1 from app.claim_options h
                        where h.id = substring(u.uid from 6 for 36)::uuid and h.property_id = p_property_id))
       or (u.uid ~* '^block-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@'
           and exists (select 1 from app.availability_blocks b
                        where b.id = substring(u.uid from 7 for 36)::uuid and b.property_id = p_property_id and b.source = 'provider')))
$function$;

CREATE OR REPLACE FUNCTION app.home_label(p_property uuid)
 RETURNS TABLE(name text, external_id text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select p.name, p.external_id from app.properties p
   where p.id = p_property
     and exists (select 1 from app.claim_options h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env())
$function$;

CREATE OR REPLACE FUNCTION app.home_listing(p_claim uuid, p_property uuid)
 RETURNS TABLE(name text, address text, city text, state text, zip_code text, bedrooms integer, bathrooms numeric, sqft integer, furnished_status text, image_urls text[], description text, amenities text[], pet_policy text, landlord_contact text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select p.name, p.address, p.city, p.state, p.zip_code, p.bedrooms, p.bathrooms, p.sqft, p.furnished_status, p.image_urls,
         p.description, p.amenities, p.pet_policy, o.contact_email
    from app.claim_options h
    join app.properties p on p.id = h.property_id
    join app.organisations o on o.id = p.org_id
   where h.claim_id = p_claim and h.property_id = p_property
     and h.org_id = app.current_org() and h.environment = app.current_env()
$function$;

CREATE OR REPLACE FUNCTION app.homes_on_request(p_claim uuid)
 RETURNS TABLE(id uuid, name text, address text, city text, state text, currency text, monthly_rate_cents bigint)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select p.id, p.name, p.address, p.city, p.state, p.currency, p.monthly_rate_cents
    from app.claim_options h join app.properties p on p.id = h.property_id
   where h.claim_id = p_claim and h.org_id = app.current_org() and h.environment = app.current_env()
$function$;

CREATE OR REPLACE FUNCTION app.lease_status_follow()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
begin
  update app.claim_options h
     set lease_status = case when new.status in ('superseded', 'withdrawn') then null else new.status end,
         move_in_date = new.move_in_date, move_out_date = new.move_out_date, updated_at = clock_timestamp()
   where h.current_lease_id = new.id;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION app.payee_of(p_property uuid, p_env text)
 RETURNS TABLE(org_id uuid, name text, processor_account_id text, charges_enabled boolean, contact_email text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select o.id, o.name, (app.payout_status(o.id, p_env)).processor_account_id, app.can_take_charges(o.id, p_env), o.contact_email
    from app.properties p join app.organisations o on o.id = p.org_id
   where p.id = p_property
     and exists (select 1 from app.claim_options h where h.property_id = p.id and h.org_id = app.current_org() and h.environment = app.current_env())
$function$;

CREATE OR REPLACE FUNCTION app.provider_applications(p_status text, p_limit integer, p_after uuid, p_id uuid DEFAULT NULL::uuid)
 RETURNS TABLE(id uuid, carrier_org_id uuid, claim_id uuid, reference text, property_id uuid, application_status text, applied_at timestamp with time zone, application_approved_at timestamp with time zone, application_declined_at timestamp with time zone, application_decline_reason text, target_move_in date, est_length_months integer, adults integer, children integer, has_pets boolean, number_of_pets integer, proposed_move_in date, proposed_move_out date)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
  select h.id, h.org_id, h.claim_id, c.claim_ref, h.property_id, h.application_status, h.applied_at,
         h.application_approved_at, h.application_declined_at, h.application_decline_reason,
         c.target_move_in, c.est_length_months, c.adults, c.children, c.has_pets, c.number_of_pets,
         h.proposed_move_in, h.proposed_move_out
    from app.claim_options h
    join app.properties p on p.id = h.property_id
    join app.claims c on c.id = h.claim_id
   where p.org_id = app.current_org() and h.environment = app.current_env() and h.applied_at is not null
     and (p_id is null or h.id = p_id)
     and (p_status is null or h.application_status = p_status)
     and (p_after is null or (h.applied_at, h.id) < (select a.applied_at, a.id from app.claim_options a where a.id = p_after))
   order by h.applied_at desc, h.id desc
   limit p_limit
$function$;

CREATE OR REPLACE FUNCTION app.record_event(p_event text, p_payload jsonb, p_org uuid DEFAULT NULL::uuid, p_env text DEFAULT NULL::text, p_simulated boolean DEFAULT false)
 RETURNS uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'app', 'pg_temp'
AS $function$
declare v_id uuid;
begin
  if app.current_org() is not null then
    if p_env is not null and p_env <> app.current_env() then
      raise exception 'an event of environment % is not the calling tenant''s to record', p_env using errcode = 'insufficient_privilege';
    end if;
    if p_org is not null and p_org <> app.current_org() and not exists (
      select 1 from app.claim_options h join app.properties p on p.id = h.property_id
       where h.org_id = app.current_org() and h.environment = app.current_env() and p.org_id = p_org) then
      raise exception 'an event for organisation % is not the calling tenant''s to record', p_org using errcode = 'insufficient_privilege';
    end if;
  end if;
  insert into app.events (org_id, environment, event, payload, simulated)
  values (coalesce(p_org, app.current_org()), coalesce(p_env, app.current_env()), p_event, p_payload, p_simulated)
  returning id into v_id;
  return v_id;
end $function$;

comment on function app.lease_status_follow() is 'Keeps the option''s lease_status equal to the status of its live contract version.';
