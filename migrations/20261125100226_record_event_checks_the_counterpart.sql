-- app.record_event runs as its owner, so that an operation can record an event for its
-- counterpart (a carrier's placement telling the home's provider of its booking). It accepted any
-- organisation and environment: a tenant could have filed events in anyone's log. The counterpart
-- must now be the calling tenant itself, or the provider of a home on one of its requests, in the
-- calling environment. Called outside a tenant (the operator's own connection), it is unchanged.
create or replace function app.record_event(
  p_event text, p_payload jsonb, p_org uuid default null, p_env text default null, p_simulated boolean default false
) returns uuid
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_id uuid;
begin
  if app.current_org() is not null then
    if p_env is not null and p_env <> app.current_env() then
      raise exception 'an event of environment % is not the calling tenant''s to record', p_env using errcode = 'insufficient_privilege';
    end if;
    if p_org is not null and p_org <> app.current_org() and not exists (
      select 1 from app.claim_homes h join app.properties p on p.id = h.property_id
       where h.org_id = app.current_org() and h.environment = app.current_env() and p.org_id = p_org) then
      raise exception 'an event for organisation % is not the calling tenant''s to record', p_org using errcode = 'insufficient_privilege';
    end if;
  end if;
  insert into app.events (org_id, environment, event, payload, simulated)
  values (coalesce(p_org, app.current_org()), coalesce(p_env, app.current_env()), p_event, p_payload, p_simulated)
  returning id into v_id;
  return v_id;
end $$;
comment on function app.record_event(text, jsonb, uuid, text, boolean) is
  'Records an event in the outbox (app.events) for the calling tenant, or for the provider of a home on one of its requests; fanned out to webhooks by trigger.';
