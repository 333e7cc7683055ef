-- The landlord answers a household's application through the provider API (GET /properties/
-- applications, POST /properties/applications/{id}), live as in sandbox.
--
-- - app.claim_homes.application_status gains declined: the landlord turned the application down,
--   with its reason and time. The offer itself (option_status) is the household's and stays as it
--   was; a home whose application was declined is no longer in play on the request.
-- - The provider reads the applications on its homes through a function that runs as its owner
--   and answer only for homes of the calling organisation, in its environment (the placement rows
--   belong to the carrier).

alter table app.claim_homes drop constraint claim_homes_application_status_check;
alter table app.claim_homes
  add constraint claim_homes_application_status check (application_status in ('not_applied', 'applied', 'approved_to_lease', 'declined')),
  add column application_declined_at timestamptz,
  add column application_decline_reason text check (length(application_decline_reason) between 1 and 2000),
  add constraint claim_homes_application_declined
    check ((application_status = 'declined') = (application_declined_at is not null) and (application_declined_at is null) = (application_decline_reason is null));
comment on column app.claim_homes.application_status is
  'not_applied, applied (with the landlord), approved_to_lease (dates may be set), declined (the landlord turned the application down).';
comment on column app.claim_homes.application_declined_at is 'When the landlord declined the household''s application.';
comment on column app.claim_homes.application_decline_reason is 'Why the landlord declined, in the landlord''s words (shown to the carrier).';

create index claim_homes_applications on app.claim_homes (property_id, applied_at desc, id desc) where applied_at is not null;

-- An application as the landlord sees it: the request's reference and what the household needs,
-- never the household's contact details.
create function app.provider_applications(p_status text, p_limit integer, p_after uuid, p_id uuid default null)
returns table (
  id uuid, carrier_org_id uuid, claim_id uuid, reference text, property_id uuid, application_status text, applied_at timestamptz,
  application_approved_at timestamptz, application_declined_at timestamptz, application_decline_reason text,
  target_move_in date, est_length_months integer, adults integer, children integer, has_pets boolean, number_of_pets integer,
  proposed_move_in date, proposed_move_out date
)
language sql stable security definer set search_path = app, pg_temp as $$
  select h.id, h.org_id, h.claim_id, c.claim_ref, h.property_id, h.application_status, h.applied_at,
         h.application_approved_at, h.application_declined_at, h.application_decline_reason,
         c.target_move_in, c.est_length_months, c.adults, c.children, c.has_pets, c.number_of_pets,
         h.proposed_move_in, h.proposed_move_out
    from app.claim_homes h
    join app.properties p on p.id = h.property_id
    join app.claims c on c.id = h.claim_id
   where p.org_id = app.current_org() and h.environment = app.current_env() and h.applied_at is not null
     and (p_id is null or h.id = p_id)
     and (p_status is null or h.application_status = p_status)
     and (p_after is null or (h.applied_at, h.id) < (select a.applied_at, a.id from app.claim_homes a where a.id = p_after))
   order by h.applied_at desc, h.id desc
   limit p_limit
$$;

grant execute on function app.provider_applications(text, integer, uuid, uuid) to svc_api;
comment on function app.provider_applications(text, integer, uuid, uuid) is
  'The applications on the calling provider''s homes in its environment, newest first, keyset-paged after an application id; or the one named by p_id.';
