-- The recovery of an endpoint's deliveries racing that endpoint's deletion. The replay statement
-- app.queue_replays (shared by the replay of one event and the recovery of one endpoint) read the
-- endpoints without the key-share lock that the fan-out, the single replay and the ping take
-- (20261126000845), so a recovery racing a deletion inserted a delivery whose foreign key check then
-- failed (a 500). And app.queue_replay had been written out again beside it, so the one replay
-- statement was two.
--
-- app.queue_replays now takes the same lock on the endpoints it reads: after a deletion commits the
-- endpoint is no longer read and nothing is queued to it; after one rolls back the replay stands.
-- app.queue_replay is written over it again, so each replay has one statement.

create or replace function app.queue_replays(p_event_ids uuid[], p_endpoint_id uuid default null)
returns table (subscribed integer, queued integer)
language sql security definer set search_path = app, pg_temp as $$
  with targets as (
    select e.org_id, e.environment, w.id as endpoint_id, e.id as event_id, e.event, w.secret
      from app.events e
      join app.webhook_endpoints w
        on w.org_id = e.org_id and w.environment = e.environment and w.is_active
       and (w.events is null or e.event = any (w.events))
     where e.id = any (p_event_ids) and e.org_id = app.current_org() and e.environment = app.current_env()
       and (p_endpoint_id is null or w.id = p_endpoint_id)
       for key share of w
  ), inserted as (
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, replay, signing_secret, next_attempt_at)
    select org_id, environment, endpoint_id, event_id, event, true, secret, now() from targets
    on conflict (event_id, endpoint_id) where replay and status = 'pending' do nothing
    returning 1
  )
  select (select count(*) from targets)::integer, (select count(*) from inserted)::integer
$$;

create or replace function app.queue_replay(p_event_id uuid)
returns table (subscribed integer, queued integer)
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  if not exists (select 1 from app.events where id = p_event_id and org_id = app.current_org() and environment = app.current_env()) then
    return;
  end if;
  return query select r.subscribed, r.queued from app.queue_replays(array[p_event_id]) r;
end $$;
