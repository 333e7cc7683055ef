-- Work the service gave up on reaches a person.
--
-- - staff.abandoned_jobs: every job that ran out of attempts (a refund that was never issued, an
--   email that never went out), with the money at stake and the console command that retries it.
--   The runner also logs each one at error level and, for a refund, tells the carrier and the
--   landlord (payment.refund_failed).
-- - app.recover_deliveries: an endpoint's owner replays the events whose delivery to that endpoint
--   was abandoned since a time and which it never received (POST /webhooks/{id}/recover).
-- - app.queue_replays: the one statement that queues replay deliveries, shared by the replay of one
--   event (app.queue_replay, now written over it) and the recovery of one endpoint.

-- Replays ---------------------------------------------------------------------------------------

-- Queues the tenant's events again to its active endpoints subscribed to them now (only the given
-- endpoint when one is named). A replay already waiting for an event and endpoint is not queued
-- twice (webhook_deliveries_one_waiting_replay). Returns the (event, endpoint) pairs subscribed and
-- how many deliveries were queued.
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
  ), inserted as (
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, replay, signing_secret, next_attempt_at)
    select org_id, environment, endpoint_id, event_id, event, true, secret, now() from targets
    on conflict (event_id, endpoint_id) where replay and status = 'pending' do nothing
    returning 1
  )
  select (select count(*) from targets)::integer, (select count(*) from inserted)::integer
$$;
comment on function app.queue_replays(uuid[], uuid) is
  'Queues events of the current tenant again (replay: true) to its active endpoints subscribed now, or to the one endpoint named; a replay already waiting is not queued twice. Returns subscribed pairs and queued deliveries.';

create or replace function app.queue_replay(p_event_id uuid)
returns table (subscribed integer, queued integer)
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  if not exists (select 1 from app.events where id = p_event_id and org_id = app.current_org() and environment = app.current_env()) then
    return;
  end if;
  return query select r.subscribed, r.queued from app.queue_replays(array[p_event_id]) r;
end $$;

-- Recovery: the events whose delivery to the endpoint, queued after p_since, was abandoned and that no
-- delivery to it ever succeeded (a replay that got through since counts), replayed to that endpoint
-- only. Safe to repeat: what is received is never sent again, what waits is not queued twice.
-- No rows when the endpoint is not the tenant's; an inactive endpoint is reported and nothing queued.
create or replace function app.recover_deliveries(p_endpoint_id uuid, p_since timestamptz)
returns table (active boolean, abandoned integer, queued integer)
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_active boolean;
  v_events uuid[];
begin
  select w.is_active into v_active from app.webhook_endpoints w
   where w.id = p_endpoint_id and w.org_id = app.current_org() and w.environment = app.current_env();
  if not found then return; end if;
  select coalesce(array_agg(distinct d.event_id), '{}') into v_events
    from app.webhook_deliveries d
   where d.endpoint_id = p_endpoint_id and d.status = 'abandoned' and d.event_id is not null and d.created_at > p_since
     and not exists (select 1 from app.webhook_deliveries s
                      where s.endpoint_id = d.endpoint_id and s.event_id = d.event_id and s.status = 'succeeded');
  if not v_active then
    return query select false, cardinality(v_events), 0;
    return;
  end if;
  return query select true, cardinality(v_events), coalesce((select r.queued from app.queue_replays(v_events, p_endpoint_id) r), 0);
end $$;
comment on function app.recover_deliveries(uuid, timestamptz) is
  'POST /webhooks/{id}/recover: replays to one endpoint of the current tenant the events whose delivery to it, queued after p_since, was abandoned and never succeeded. Returns whether the endpoint is active, how many such events and how many replays were queued; no rows when the endpoint is not the tenant''s.';

revoke all on function app.queue_replays(uuid[], uuid), app.recover_deliveries(uuid, timestamptz) from public;
grant execute on function app.recover_deliveries(uuid, timestamptz) to svc_api;

-- Abandoned jobs ----------------------------------------------------------------------------------

create view staff.abandoned_jobs as
select j.id as job_id,
       o.name as organisation,
       j.org_id,
       j.environment,
       j.kind,
       case j.kind
         when 'issue_refund' then 'refund request ' || (j.payload ->> 'refund_request_id')
         when 'send_email' then (j.payload ->> 'topic') || ' email to ' || coalesce((select string_agg(t, ', ') from jsonb_array_elements_text(j.payload -> 'to') t), 'nobody')
         else j.payload::text
       end as concerns,
       round(r.amount_cents / 100.0, 2) as amount,
       r.currency,
       c.claim_ref as reference,
       j.attempts,
       j.last_error,
       j.completed_at as abandoned_at,
       j.created_at,
       'admin job retry --id ' || j.id as retry
  from app.jobs j
  join app.organisations o on o.id = j.org_id
  left join app.refund_requests r on j.kind = 'issue_refund' and r.id = (j.payload ->> 'refund_request_id')::uuid
  left join app.claims c on c.id = r.claim_id
 where j.status = 'abandoned'
 order by j.completed_at desc;
comment on view staff.abandoned_jobs is 'Jobs the service gave up on after their last attempt (a refund never issued: the money is still with the landlord; an email that never went out), newest first. Each was logged at error level; a refund was also announced as payment.refund_failed. Retry one with the console command in retry once its cause is fixed.';
comment on column staff.abandoned_jobs.concerns is 'What the job was for: the refund request, an email''s topic and addresses, else its payload.';
comment on column staff.abandoned_jobs.amount is 'The money at stake, in major units: the refund not issued (null for jobs that move no money).';
comment on column staff.abandoned_jobs.reference is 'The housing request the money belongs to (REQ-XXXXXX), when the job names one.';
comment on column staff.abandoned_jobs.last_error is 'Why the last attempt failed, as the third party or the handler said it.';
comment on column staff.abandoned_jobs.abandoned_at is 'When the last attempt failed.';
comment on column staff.abandoned_jobs.retry is 'The operator console command (npm run --silent admin -- ...) that queues the job again for one more attempt.';

-- Readable by the Studio roles only, as every staff view (the staff views migration).
do $$
declare r text;
begin
  foreach r in array array['postgres', 'service_role', 'supabase_admin'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('grant select on staff.abandoned_jobs to %I', r);
    end if;
  end loop;
  foreach r in array array['svc_api', 'anon', 'authenticated'] loop
    if exists (select 1 from pg_roles where rolname = r) then
      execute format('revoke all on staff.abandoned_jobs from %I', r);
    end if;
  end loop;
end $$;
