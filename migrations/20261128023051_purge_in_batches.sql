-- The hourly retention purge holds no lock beyond a batch. app.purge_expired_events deleted in
-- 5,000-row batches, but all of them inside its one function call, so one transaction: at a season's
-- volume an expired day (22,000 events, 55,000 deliveries by cascade, 10,400 Idempotency-Keys) held
-- its row locks and its snapshot for 1.5 s, and a write during it waited twice as long at p99.
--
-- Now app.purge_expired_batch deletes one bounded batch of each kind and returns how much it
-- deleted; each call is a transaction of its own when called on its own. The local server's timer
-- calls it until a batch finds less than a batch of every kind (shared/webhooks/retention.ts); pg_cron calls the procedure
-- app.purge_expired, which does the same and commits after each batch. The rules are those of
-- 20261125075408: events past 90 days (their deliveries by cascade) and pings as old,
-- Idempotency-Keys past 48 hours, rate windows unused for an hour.

create or replace function app.purge_expired_batch(p_batch integer default 1000,
  out events integer, out pings integer, out idempotency_keys integer, out rate_windows integer)
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_cutoff timestamptz := now() - interval '90 days';
begin
  -- Events by age through events_recorded_brin; each takes its deliveries with it (on delete
  -- cascade, through webhook_deliveries_event), about 2.5 a event.
  delete from app.events where id in (select id from app.events where created_at < v_cutoff limit p_batch);
  get diagnostics events = row_count;
  delete from app.webhook_deliveries
   where id in (select id from app.webhook_deliveries where event_id is null and created_at < v_cutoff limit p_batch);
  get diagnostics pings = row_count;
  delete from app.idempotency_keys
   where (org_id, environment, key) in (
     select org_id, environment, key from app.idempotency_keys where created_at < now() - interval '48 hours' limit p_batch);
  get diagnostics idempotency_keys = row_count;
  delete from app.rate_windows
   where bucket in (select bucket from app.rate_windows where window_start < now() - interval '1 hour' limit p_batch);
  get diagnostics rate_windows = row_count;
end $$;
revoke all on function app.purge_expired_batch(integer) from public;
comment on function app.purge_expired_batch(integer) is
  'One batch of the hourly retention, at most p_batch rows of each kind: events past 90 days (their deliveries by cascade), pings as old, Idempotency-Keys past 48 hours, rate windows unused for an hour. Call until every count is under p_batch, each call its own transaction.';

-- No SECURITY DEFINER and no SET clause: either would forbid its COMMIT. It runs as its caller
-- (pg_cron's job owner, the database owner), and names every object in full.
create or replace procedure app.purge_expired(p_batch integer default 1000)
language plpgsql as $$
declare
  v_batch record;
begin
  loop
    select * into v_batch from app.purge_expired_batch(p_batch);
    commit;
    -- Fewer than a batch of every kind: nothing is left.
    exit when greatest(v_batch.events, v_batch.pings, v_batch.idempotency_keys, v_batch.rate_windows) < p_batch;
  end loop;
end $$;
revoke all on procedure app.purge_expired(integer) from public;
comment on procedure app.purge_expired(integer) is
  'The hourly retention (pg_cron job event-retention): app.purge_expired_batch until nothing is left, committing after each batch. Call it on its own, outside a transaction block.';

-- The one-transaction purge goes; the job that called it is scheduled again below.
drop function app.purge_expired_events(integer);

create or replace function app.schedule_webhook_jobs() returns boolean
language plpgsql set search_path = app, pg_temp as $$
declare
  v_extension text;
  v_schema text;
  v_errors text[] := '{}';
  v_missing text;
  v_command constant text := 'select app.invoke_webhook_dispatcher()';
begin
  -- Each extension in a subtransaction of its own: one's absence never undoes the other. The schemas
  -- Supabase installs them in.
  for v_extension, v_schema in values ('pg_cron', 'pg_catalog'), ('pg_net', 'extensions') loop
    begin
      execute format('create extension if not exists %I with schema %I', v_extension, v_schema);
    exception when others then
      v_errors := v_errors || format('%s: %s', v_extension, sqlerrm);
    end;
  end loop;
  select string_agg(format('%s (fix: %s)', g.missing, g.fix), '; ') into v_missing
    from unnest(array['pg_cron', 'pg_net']) e, app.scheduling_extension_gap(e) g
   where g.missing is not null;
  if v_missing is not null then
    raise warning 'webhook scheduling not set up: %; webhooks are delivered only by the local server''s timer', v_missing
      using detail = array_to_string(v_errors, '; ');
    return false;
  end if;
  begin
    -- cron.schedule replaces a job of the same name, so running this again changes nothing.
    perform cron.schedule('webhook-dispatch', '10 seconds', v_command);
  exception when others then
    -- Seconds schedules arrived in pg_cron 1.5; older versions refuse them ("invalid schedule").
    raise warning 'webhook dispatch scheduled every minute: pg_cron refused a 10-second schedule (%; seconds need pg_cron 1.5 or later)', sqlerrm;
    perform cron.schedule('webhook-dispatch', '* * * * *', v_command);
  end;
  -- A procedure, called on its own (pg_cron runs a job's command as one statement): it commits after
  -- each batch, which only a CALL outside any transaction block may do.
  perform cron.schedule('event-retention', '17 * * * *', 'call app.purge_expired()');
  return true;
exception when others then
  raise warning 'webhook scheduling not set up: % (no pg_cron job was created)', sqlerrm;
  return false;
end $$;
revoke all on function app.schedule_webhook_jobs() from public;
comment on function app.schedule_webhook_jobs() is
  'Enables pg_cron and pg_net (each on its own) and schedules pg_cron jobs webhook-dispatch (every 10 seconds, every minute before pg_cron 1.5) and event-retention (hourly: call app.purge_expired()); never raises: returns false with a WARNING naming what is missing and the fix when nothing was scheduled.';

-- Databases that scheduled the old command get the new one (cron.schedule replaces a job of the same name).
select app.schedule_webhook_jobs();
