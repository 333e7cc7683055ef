-- The hourly retention run also forgets what the middleware no longer needs, so neither table grows
-- without bound: Idempotency-Keys older than their 48 hours (specification, Limits), and rate
-- windows untouched for an hour (a key or an address that stopped calling; each bucket is one row
-- whose window moves on, so only buckets no longer used are left behind). Same function, same
-- schedule (pg_cron on Supabase, the local server's timer elsewhere); it still answers the events
-- deleted.
create or replace function app.purge_expired_events(p_batch integer default 5000) returns bigint
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_cutoff timestamptz := now() - interval '90 days';
  v_total bigint := 0;
  v_count integer;
begin
  loop
    delete from app.events where id in (select id from app.events where created_at < v_cutoff limit p_batch);
    get diagnostics v_count = row_count;
    v_total := v_total + v_count;
    exit when v_count < p_batch;
  end loop;
  delete from app.webhook_deliveries where event_id is null and created_at < v_cutoff;
  delete from app.idempotency_keys where created_at < now() - interval '48 hours';
  delete from app.rate_windows where window_start < now() - interval '1 hour';
  return v_total;
end $$;
revoke all on function app.purge_expired_events(integer) from public;

comment on function app.purge_expired_events(integer) is
  'Hourly retention: events past 90 days (their deliveries with them) and pings as old; Idempotency-Keys past 48 hours; rate windows unused for an hour. Returns the events deleted.';
