-- An endpoint deleted while events are written. The fan-out, the replay and the ping read the
-- endpoints they queue to without locking them: a deletion not yet committed is still visible to
-- them, the delivery they insert then waits on the endpoint's row for its foreign key check, and
-- when the deletion commits the check fails (a 500 on replay and simulate; a business write lost
-- its event, whose recording runs under a savepoint).
--
-- Each now takes a key-share lock on the endpoints it reads, the lock the foreign key check takes
-- anyway, so nothing waits longer than before: after a deletion commits the endpoint is no longer
-- read (nothing is queued to it); after one rolls back it is, and the delivery stands. Skipping
-- locked endpoints instead would lose deliveries to an endpoint whose deletion rolls back. Updates
-- of an endpoint (deactivation, a new secret) take no lock that conflicts with a key share.

create or replace function app.fan_out_events() returns trigger
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, signing_secret, next_attempt_at)
  select e.org_id, e.environment, w.id, e.id, e.event, w.secret, now()
    from recorded e
    join app.webhook_endpoints w
      on w.org_id = e.org_id and w.environment = e.environment and w.is_active
     and (w.events is null or e.event = any (w.events))
     for key share of w;
  return null;
end $$;

create or replace function app.queue_replay(p_event_id uuid)
returns table (subscribed integer, queued integer)
language plpgsql security definer set search_path = app, pg_temp as $$
declare v_event app.events;
begin
  select * into v_event from app.events
   where id = p_event_id and org_id = app.current_org() and environment = app.current_env();
  if not found then return; end if;
  return query
  with targets as (
    select w.id, w.secret from app.webhook_endpoints w
     where w.org_id = v_event.org_id and w.environment = v_event.environment and w.is_active
       and (w.events is null or v_event.event = any (w.events))
       for key share
  ), inserted as (
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, replay, signing_secret, next_attempt_at)
    select v_event.org_id, v_event.environment, t.id, v_event.id, v_event.event, true, t.secret, now() from targets t
    on conflict (event_id, endpoint_id) where replay and status = 'pending' do nothing
    returning 1
  )
  select (select count(*) from targets)::integer, (select count(*) from inserted)::integer;
end $$;

create or replace function app.queue_ping(p_endpoint_id uuid) returns uuid
language sql security definer set search_path = app, pg_temp as $$
  insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, signing_secret, next_attempt_at)
  select w.org_id, w.environment, w.id, 'ping', w.secret, now() from app.webhook_endpoints w
   where w.id = p_endpoint_id and w.org_id = app.current_org() and w.environment = app.current_env()
     for key share
  returning id
$$;
