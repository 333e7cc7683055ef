-- The household's page (GET /household/{token}): the link a household is emailed when a carrier
-- sends it a home is signed, expires, and names the version of the link it was issued as. Issuing
-- the link again (a re-send) moves the version, so every older link stops working.
alter table app.claim_homes add column household_link_at timestamptz;
comment on column app.claim_homes.household_link_at is
  'When the household''s link to this home was last issued (POST options with send, or a re-send); links of an earlier issue are refused.';

-- A home as the household's page shows it: the listing (photos, rooms, amenities, pets policy) and
-- the landlord's published contact address, for a home on a request of the calling tenant only.
create function app.home_listing(p_claim uuid, p_property uuid)
returns table (
  name text, address text, city text, state text, zip_code text, bedrooms integer, bathrooms numeric, sqft integer,
  furnished_status text, image_urls text[], description text, amenities text[], pet_policy text, landlord_contact text
)
language sql stable security definer set search_path = app, pg_temp as $$
  select p.name, p.address, p.city, p.state, p.zip_code, p.bedrooms, p.bathrooms, p.sqft, p.furnished_status, p.image_urls,
         p.description, p.amenities, p.pet_policy, o.contact_email
    from app.claim_homes h
    join app.properties p on p.id = h.property_id
    join app.organisations o on o.id = p.org_id
   where h.claim_id = p_claim and h.property_id = p_property
     and h.org_id = app.current_org() and h.environment = app.current_env()
$$;
grant execute on function app.home_listing(uuid, uuid) to svc_api;
comment on function app.home_listing(uuid, uuid) is 'The listing of a home on one of the calling tenant''s requests, as the household''s page shows it.';
