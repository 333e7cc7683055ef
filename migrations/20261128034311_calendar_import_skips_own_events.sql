-- A channel that imports a home's feed and exports it again (channel managers do) hands the service
-- its own stays back. Read as another channel's nights, each became a conflict with itself. An
-- import now leaves out the events whose UID is one this service gave the same home: a stay
-- ('stay-<placement id>@<host>', whatever has become of the stay since) or a provider block still on
-- the home ('block-<block id>@<host>'). The placement belongs to the carrier that placed it, beyond
-- the provider's row-level security, hence a security definer function that answers only for a home
-- of the calling tenant, and only which of the given UIDs are its own (what the home's feed already
-- shows its owner).
create function app.calendar_own_event_uids(p_property_id uuid, p_uids text[]) returns setof text
language sql stable security definer set search_path = app, pg_temp as $$
  select u.uid
    from unnest(p_uids) as u (uid)
   where exists (select 1 from app.properties p
                  where p.id = p_property_id and p.org_id = app.current_org() and p.environment = app.current_env())
     and ((u.uid ~* '^stay-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@'
           and exists (select 1 from app.claim_homes h
                        where h.id = substring(u.uid from 6 for 36)::uuid and h.property_id = p_property_id))
       or (u.uid ~* '^block-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@'
           and exists (select 1 from app.availability_blocks b
                        where b.id = substring(u.uid from 7 for 36)::uuid and b.property_id = p_property_id and b.source = 'provider')))
$$;
comment on function app.calendar_own_event_uids(uuid, text[]) is
  'Which of the UIDs read from an imported calendar are this service''s own events of that home (its stays, its provider blocks): an import leaves them out. Answers only for a home of the calling tenant.';
revoke all on function app.calendar_own_event_uids(uuid, text[]) from public;
grant execute on function app.calendar_own_event_uids(uuid, text[]) to svc_api;
