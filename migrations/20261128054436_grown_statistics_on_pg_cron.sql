-- The statistics of a table growing from empty follow it on Supabase too. app.refresh_grown_statistics
-- (migration *_lookups_stay_lookups.sql says why) was run only by the local server's background
-- thread, every two seconds; a deployment on Supabase has no such thread, so there the plans kept
-- by the functions' connections followed autovacuum alone, a minute or more behind a catastrophe's
-- first tables. pg_cron now runs it too, every 10 seconds (every minute before pg_cron 1.5, which
-- has no seconds schedules), beside the dispatcher and the retention. A run that finds nothing
-- grown analyzes nothing, so running it where the local server also does costs one catalog read.
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
  begin
    perform cron.schedule('grown-statistics', '10 seconds', 'select app.refresh_grown_statistics()');
  exception when others then
    perform cron.schedule('grown-statistics', '* * * * *', 'select app.refresh_grown_statistics()');
  end;
  return true;
exception when others then
  raise warning 'webhook scheduling not set up: % (no pg_cron job was created)', sqlerrm;
  return false;
end $$;
revoke all on function app.schedule_webhook_jobs() from public;
comment on function app.schedule_webhook_jobs() is
  'Enables pg_cron and pg_net (each on its own) and schedules pg_cron jobs webhook-dispatch (every 10 seconds, every minute before pg_cron 1.5), event-retention (hourly: call app.purge_expired()) and grown-statistics (every 10 seconds, every minute before pg_cron 1.5: app.refresh_grown_statistics()); never raises: returns false with a WARNING naming what is missing and the fix when nothing was scheduled.';

comment on function app.refresh_grown_statistics(integer) is
  'Analyzes the tables of app whose live rows have doubled since their last analyze (and number at least p_min_rows), so that plans kept by connections follow a table growing from empty faster than autovacuum looks; returns the tables analyzed. Run every few seconds by the local server''s background thread, and by pg_cron job grown-statistics where pg_cron is.';

-- Databases already scheduled get the new job (cron.schedule replaces a job of the same name).
select app.schedule_webhook_jobs();
