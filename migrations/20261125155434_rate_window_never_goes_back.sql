-- A rate-limit window never moves back.
--
-- app.authenticate counted a request in the minute its statement began. A request that began just
-- before a minute's end but reached the window row after the next minute's first request (behind
-- other requests of the key on the row's lock, say) set the window back to its own minute with a
-- count of 1, and the next request of the new minute set it forward again with a count of 1: the
-- new minute's count so far was lost, and the late request passed whatever the old minute's count
-- was. It now counts in the window as it stands (the later minute), and reports that window's
-- reset. Otherwise as in 20261124150000.
create or replace function app.authenticate(p_key_hash text, p_address text)
returns table (
  key_id uuid, org_id uuid, side text, environment text, scopes text[],
  rate_limit integer, rate_count integer, rate_reset timestamptz, limiter_ok boolean
)
language plpgsql security definer set search_path = app, pg_temp set lock_timeout = '250ms' as $$
declare
  k record;
  v_bucket text;
  v_window timestamptz := date_trunc('minute', now());
  v_counted_in timestamptz;
begin
  -- Local to the transaction of the calling statement, which is this call alone.
  perform set_config('synchronous_commit', 'off', true);

  select a.id, a.org_id, o.side, a.environment, a.scopes,
         coalesce(a.rate_limit_per_minute, app.default_rate_limit(a.environment)) as lim
    into k
    from app.api_keys a join app.organisations o on o.id = a.org_id
   where a.key_hash = p_key_hash and a.revoked_at is null and a.user_email is null;

  if found then
    key_id := k.id; org_id := k.org_id; side := k.side; environment := k.environment;
    scopes := k.scopes; rate_limit := k.lim; v_bucket := 'key:' || k.id;
    -- last_used_at is kept to the minute so that busy keys do not rewrite their row on every call.
    update app.api_keys a set last_used_at = now()
     where a.id = k.id and (a.last_used_at is null or a.last_used_at < now() - interval '1 minute');
  else
    rate_limit := 60; v_bucket := 'addr:' || coalesce(p_address, 'unknown');
  end if;

  -- A request whose statement began in a minute the window has already left (it reached the row
  -- after the next minute's first request) counts in the window as it is, never moves it back.
  insert into app.rate_windows as w (bucket, window_start, count)
  values (v_bucket, v_window, 1)
  on conflict (bucket) do update
    set count = case when w.window_start >= excluded.window_start then w.count + 1 else 1 end,
        window_start = greatest(w.window_start, excluded.window_start)
  returning w.count, w.window_start into rate_count, v_counted_in;
  rate_reset := v_counted_in + interval '1 minute';
  limiter_ok := true;
  return next;
end $$;

comment on function app.authenticate(text, text) is 'Per request, in one statement: finds the live organisation key by hash and counts the request in its rate-limit window (or the address''s window when the key is unknown); a window never moves back to an earlier minute. Commits asynchronously, into an unlogged table: a crash restarts every current window from zero. Fails after 250 ms waiting for a lock; the caller then uses app.authenticate_uncounted.';
