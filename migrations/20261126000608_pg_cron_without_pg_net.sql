-- pg_cron and pg_net are enabled each on its own, the status names exactly what is missing and the
-- fix, and a cron run whose dispatcher call cannot be made fails instead of warning.
--
-- Why a new migration: 20261123110000 created both extensions in ONE subtransaction. Where pg_cron
-- is installed but pg_net is not (a self-hosted PostgreSQL with Debian's postgresql-NN-cron),
-- pg_net's failure rolled pg_cron back with it, so such a database got neither. That block is
-- wrapped in an exception handler, so its failure never aborted the migration: it only warned and
-- returned false. Migrations are never edited, so on a new database 20261123110000 still runs first
-- and still warns; this migration then replaces the function with one that creates each extension
-- in a subtransaction of its own and runs it, so pg_cron is enabled whatever pg_net's state. A
-- database that applied 20261123110000 long ago gets pg_cron here the same way.
--
-- A pg_cron run's WARNINGs reach only PostgreSQL's server log (pg_cron records the run as
-- `succeeded`), so the missing Vault secrets are now an error of the run: `cron.job_run_details`
-- says `failed` with what is missing, where the dashboard and Studio show the runs.

-- What one of the two extensions lacks on this database, and the fix; both null when it is enabled.
-- Presence is judged by the functions the jobs call (cron.schedule, net.http_post), as before, so the
-- same code runs against the real extensions and against stand-ins.
create or replace function app.scheduling_extension_gap(p_extension text, out missing text, out fix text)
language plpgsql stable set search_path = pg_catalog, pg_temp as $$
declare
  v_cron_database text := current_setting('cron.database_name', true);
begin
  if (p_extension = 'pg_cron' and app.has_function('cron', 'schedule'))
     or (p_extension = 'pg_net' and app.has_function('net', 'http_post')) then
    return;
  end if;
  if not exists (select 1 from pg_available_extensions where name = p_extension) then
    missing := format('%s is not installed on this database server', p_extension);
    fix := format('install %s on the database server (Supabase ships it%s), add it to shared_preload_libraries, restart PostgreSQL, then run select app.schedule_webhook_jobs()',
      p_extension, case p_extension when 'pg_cron' then '; Debian: apt-get install postgresql-<major>-cron' else '' end);
  elsif p_extension = 'pg_cron' and v_cron_database is null then
    -- pg_cron's settings exist only once its library is loaded at server start.
    missing := 'pg_cron is installed but not loaded at server start';
    fix := 'add pg_cron to shared_preload_libraries, restart PostgreSQL, then run select app.schedule_webhook_jobs()';
  elsif p_extension = 'pg_cron' and v_cron_database <> current_database() then
    missing := format('pg_cron keeps its jobs in database %s, not in this one', v_cron_database);
    fix := format('set cron.database_name = ''%s'' in postgresql.conf, restart PostgreSQL, then run select app.schedule_webhook_jobs()', current_database());
  else
    missing := format('%s is available but not enabled in this database', p_extension);
    fix := format('run select app.schedule_webhook_jobs() (it enables %s; on Supabase also Database > Extensions > %s)', p_extension, p_extension);
  end if;
end $$;
revoke all on function app.scheduling_extension_gap(text) from public;
comment on function app.scheduling_extension_gap(text) is
  'What pg_cron or pg_net lacks on this database (not installed, not preloaded, another cron.database_name, not enabled) and the fix; nulls when it is enabled.';

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
  perform cron.schedule('event-retention', '17 * * * *', 'select app.purge_expired_events()');
  return true;
exception when others then
  raise warning 'webhook scheduling not set up: % (no pg_cron job was created)', sqlerrm;
  return false;
end $$;
revoke all on function app.schedule_webhook_jobs() from public;
comment on function app.schedule_webhook_jobs() is
  'Enables pg_cron and pg_net (each on its own) and schedules pg_cron jobs webhook-dispatch (every 10 seconds, every minute before pg_cron 1.5) and event-retention (hourly); never raises: returns false with a WARNING naming what is missing and the fix when nothing was scheduled.';

-- What Vault lacks for the dispatcher call, or null when both secrets are there. Dynamic SQL, so
-- the function exists where Vault does not.
create or replace function app.dispatcher_vault_gap() returns text
language plpgsql stable security definer set search_path = app, pg_temp as $$
declare
  v_missing text;
begin
  if to_regclass('vault.decrypted_secrets') is null then
    return 'Supabase Vault is not enabled (it holds webhook_dispatcher_url and webhook_dispatcher_secret)';
  end if;
  execute $q$
    select string_agg(wanted, ' and ' order by wanted) from unnest(array['webhook_dispatcher_secret', 'webhook_dispatcher_url']) wanted
    where not exists (select 1 from vault.decrypted_secrets s where s.name = wanted and coalesce(s.decrypted_secret, '') <> '')
  $q$ into v_missing;
  return case when v_missing is not null then format('Vault lacks %s', v_missing) end;
end $$;
revoke all on function app.dispatcher_vault_gap() from public;
comment on function app.dispatcher_vault_gap() is
  'What Vault lacks for pg_cron''s call of the webhook-dispatcher function (Vault itself, webhook_dispatcher_url, webhook_dispatcher_secret); null when nothing.';

-- The status gains `fix`; its result type changes, so it is dropped and created again.
drop function app.webhook_scheduling_status();
create function app.webhook_scheduling_status(out scheduled boolean, out schedule text, out reason text, out fix text)
language plpgsql stable set search_path = app, pg_temp as $$
declare
  v_missing text;
begin
  scheduled := false;
  select string_agg(g.missing, '; '), string_agg(g.fix, '; ') into reason, fix
    from unnest(array['pg_cron', 'pg_net']) e, app.scheduling_extension_gap(e) g
   where g.missing is not null;
  if reason is not null then
    return;
  end if;
  if to_regclass('cron.job') is null then
    reason := 'pg_cron has no cron.job table';
    fix := 'reinstall pg_cron: drop extension pg_cron, then run select app.schedule_webhook_jobs()';
    return;
  end if;
  execute 'select schedule from cron.job where jobname = $1 limit 1' into schedule using 'webhook-dispatch';
  if schedule is null then
    reason := 'no pg_cron job named webhook-dispatch';
    fix := 'run select app.schedule_webhook_jobs()';
    return;
  end if;
  v_missing := app.dispatcher_vault_gap();
  if v_missing is not null then
    reason := v_missing;
    fix := 'store the address and the secret of the webhook-dispatcher function in Vault: select vault.create_secret(''https://<project-ref>.supabase.co/functions/v1/webhook-dispatcher'', ''webhook_dispatcher_url''); select vault.create_secret(''<the WEBHOOK_DISPATCHER_SECRET of the function>'', ''webhook_dispatcher_secret'')';
    return;
  end if;
  scheduled := true;
end $$;
revoke all on function app.webhook_scheduling_status() from public;
comment on function app.webhook_scheduling_status() is
  'Whether pg_cron delivers webhooks on this database (extensions, the webhook-dispatch job, the Vault secrets), the job''s schedule, and when it does not, the reason and the fix.';

-- The call pg_cron's job makes when deliveries or jobs are due. Missing secrets are an error, so the
-- run is recorded as failed with the reason (a WARNING would leave it `succeeded`).
create or replace function app.call_dispatcher() returns bigint
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_missing text := app.dispatcher_vault_gap();
  v_url text;
  v_secret text;
begin
  if v_missing is not null then
    raise exception 'webhook dispatch not called: %; store them in Vault (see docs/webhooks.md)', v_missing
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  execute 'select decrypted_secret from vault.decrypted_secrets where name = $1' into v_url using 'webhook_dispatcher_url';
  execute 'select decrypted_secret from vault.decrypted_secrets where name = $1' into v_secret using 'webhook_dispatcher_secret';
  return net.http_post(url := v_url, body := '{}'::jsonb, timeout_milliseconds := 30000,
    headers := jsonb_build_object('Content-Type', 'application/json', 'Authorization', 'Bearer ' || v_secret));
end $$;
revoke all on function app.call_dispatcher() from public;

select app.schedule_webhook_jobs();
