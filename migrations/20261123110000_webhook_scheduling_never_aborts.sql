-- Scheduling of the webhook dispatcher and event retention by pg_cron, replacing the function of the
-- webhooks migration so that it never aborts a migration and always says why it did not schedule:
--   * pg_cron or pg_net missing: a WARNING naming the reason, no jobs (the local server's timers
--     deliver instead);
--   * pg_cron older than 1.5 (no seconds schedules): the dispatcher every minute, with a WARNING;
--   * anything else failing: a WARNING with the error, no jobs.
-- The scheduled command stays `select app.invoke_webhook_dispatcher()`: whatever that function
-- decides is due (webhook deliveries today, other queues later) is drained by the same job.
-- Presence is judged by the functions the jobs call (cron.schedule, net.http_post), so the same code
-- runs against the real extensions and against stand-ins.

create or replace function app.schedule_webhook_jobs() returns boolean
language plpgsql set search_path = app, pg_temp as $$
declare
  v_unavailable text;
  v_command constant text := 'select app.invoke_webhook_dispatcher()';
begin
  begin
    -- The schemas Supabase installs them in.
    create extension if not exists pg_cron with schema pg_catalog;
    create extension if not exists pg_net with schema extensions;
  exception when others then
    v_unavailable := sqlerrm;
  end;
  if not app.has_function('cron', 'schedule') or not app.has_function('net', 'http_post') then
    raise warning 'webhook scheduling not set up: pg_cron/pg_net not available (%); webhooks are delivered only by the local server''s timer',
      coalesce(v_unavailable, 'their functions are missing');
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
  perform cron.schedule('event-retention', '17 * * * *', 'select app.purge_expired_events()');
  return true;
exception when others then
  raise warning 'webhook scheduling not set up: % (no pg_cron job was created)', sqlerrm;
  return false;
end $$;
revoke all on function app.schedule_webhook_jobs() from public;
comment on function app.schedule_webhook_jobs() is
  'Schedules pg_cron jobs webhook-dispatch (every 10 seconds, every minute before pg_cron 1.5) and event-retention (hourly); never raises: returns false with a WARNING saying why when nothing was scheduled.';

-- Whether schema.name exists as a function (any arguments).
create or replace function app.has_function(p_schema text, p_name text) returns boolean
language sql stable set search_path = pg_catalog, pg_temp as $$
  select exists (
    select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = p_schema and p.proname = p_name)
$$;
revoke all on function app.has_function(text, text) from public;
comment on function app.has_function(text, text) is
  'Whether a function of that schema and name exists; how the scheduling code detects pg_cron, pg_net and Vault.';

-- What the server reports at start-up: whether pg_cron delivers webhooks here, at what schedule, and
-- if not, why. Read-only; the reason is null when everything is in place.
create or replace function app.webhook_scheduling_status(out scheduled boolean, out schedule text, out reason text)
language plpgsql stable set search_path = app, pg_temp as $$
declare
  v_missing text;
begin
  scheduled := false;
  if not app.has_function('cron', 'schedule') then
    reason := case when exists (select 1 from pg_available_extensions where name = 'pg_cron')
      then 'pg_cron is available but not enabled' else 'pg_cron is not installed on this database server' end;
    return;
  end if;
  if not app.has_function('net', 'http_post') then
    reason := 'pg_net is not enabled';
    return;
  end if;
  if to_regclass('cron.job') is null then
    reason := 'pg_cron has no cron.job table';
    return;
  end if;
  execute 'select schedule from cron.job where jobname = $1 limit 1' into schedule using 'webhook-dispatch';
  if schedule is null then
    reason := 'no pg_cron job named webhook-dispatch (run: select app.schedule_webhook_jobs())';
    return;
  end if;
  if to_regclass('vault.decrypted_secrets') is null then
    reason := 'Supabase Vault is not enabled (it holds webhook_dispatcher_url and webhook_dispatcher_secret)';
    return;
  end if;
  execute $q$
    select string_agg(wanted, ' and ' order by wanted) from unnest(array['webhook_dispatcher_secret', 'webhook_dispatcher_url']) wanted
    where not exists (select 1 from vault.decrypted_secrets s where s.name = wanted and coalesce(s.decrypted_secret, '') <> '')
  $q$ into v_missing;
  if v_missing is not null then
    reason := format('Vault lacks %s', v_missing);
    return;
  end if;
  scheduled := true;
end $$;
revoke all on function app.webhook_scheduling_status() from public;
comment on function app.webhook_scheduling_status() is
  'Whether pg_cron delivers webhooks on this database (extensions, the webhook-dispatch job, the Vault secrets), the job''s schedule, and the reason when it does not.';

select app.schedule_webhook_jobs();
