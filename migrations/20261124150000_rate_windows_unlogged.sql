-- The rate-limit count at its floor.
--
-- app.rate_windows becomes UNLOGGED: its updates write no WAL at all (the commit record of the
-- call is still written, asynchronously). The price: a crash (not a clean restart) empties the
-- table, so every key's and address's current minute starts again from zero and may be granted up
-- to its whole limit once more in that minute. The windows are bookkeeping, overwritten every
-- minute; nothing else is lost.
alter table app.rate_windows set unlogged;

-- app.authenticate as in 20261124100000, without the exception block around the count: entering
-- such a block starts a subtransaction on every call. A limiter fault (the window row locked for
-- more than the function's lock_timeout, or any other error of the call) now fails the statement,
-- and the caller asks app.authenticate_uncounted instead, which lets the request pass uncounted.
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

  rate_reset := v_window + interval '1 minute';
  insert into app.rate_windows as w (bucket, window_start, count)
  values (v_bucket, v_window, 1)
  on conflict (bucket) do update
    set count = case when w.window_start = excluded.window_start then w.count + 1 else 1 end,
        window_start = excluded.window_start
  returning w.count into rate_count;
  limiter_ok := true;
  return next;
end $$;

comment on function app.authenticate(text, text) is 'Per request, in one statement: finds the live organisation key by hash and counts the request in its rate-limit window (or the address''s window when the key is unknown). Commits asynchronously, into an unlogged table: a crash restarts every current window from zero. Fails after 250 ms waiting for a lock; the caller then uses app.authenticate_uncounted.';

-- The limiter's fault path: the same answer without counting, so that a limiter fault lets the
-- request pass (limiter_ok false: the full limit is reported as remaining).
create function app.authenticate_uncounted(p_key_hash text)
returns table (
  key_id uuid, org_id uuid, side text, environment text, scopes text[],
  rate_limit integer, rate_count integer, rate_reset timestamptz, limiter_ok boolean
)
language sql stable security definer set search_path = app, pg_temp as $$
  select k.id, k.org_id, o.side, k.environment, k.scopes,
         coalesce(k.lim, 60), 0, date_trunc('minute', now()) + interval '1 minute', false
    from (select 1) one
    left join lateral (
      select a.id, a.org_id, a.environment, a.scopes,
             coalesce(a.rate_limit_per_minute, app.default_rate_limit(a.environment)) as lim
        from app.api_keys a
       where a.key_hash = p_key_hash and a.revoked_at is null and a.user_email is null
    ) k on true
    left join app.organisations o on o.id = k.org_id
$$;

comment on function app.authenticate_uncounted(text) is 'The rate limiter''s fault path: app.authenticate''s answer for a key (or none) without counting the request (limiter_ok false), used when app.authenticate fails so that a limiter fault lets the request pass.';
