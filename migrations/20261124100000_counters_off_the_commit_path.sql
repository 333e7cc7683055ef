-- Counters off the commit path.
--
-- Rate-limit windows and usage counts are bookkeeping: a crash may lose the last fraction of a
-- second of them, never data. Their writes therefore commit asynchronously
-- (synchronous_commit = off, for their own transaction only): the WAL record is written, but the
-- statement does not wait for it to reach disk, so a request never waits for a flush to count
-- itself, and the key's window row is locked only for the microseconds of its update. After a
-- crash, at most the last wal_writer_delay (200 ms by default) of counts can be lost: a key may be
-- granted that many more requests in the minute of the crash, and GET /usage may under-count them.

-- app.authenticate as in 20261123100000, with its window update committed asynchronously.
create or replace function app.authenticate(p_key_hash text, p_address text)
returns table (
  key_id uuid, org_id uuid, side text, environment text, scopes text[],
  rate_limit integer, rate_count integer, rate_reset timestamptz, limiter_ok boolean
)
language plpgsql security definer set search_path = app, pg_temp as $$
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
  begin
    perform set_config('lock_timeout', '250ms', true);
    insert into app.rate_windows as w (bucket, window_start, count)
    values (v_bucket, v_window, 1)
    on conflict (bucket) do update
      set count = case when w.window_start = excluded.window_start then w.count + 1 else 1 end,
          window_start = excluded.window_start
    returning w.count into rate_count;
    limiter_ok := true;
  exception when others then
    rate_count := 0;
    limiter_ok := false;
  end;
  return next;
end $$;

comment on function app.authenticate(text, text) is 'Per request, in one statement: finds the live organisation key by hash and counts the request in its rate-limit window (or the address''s window when the key is unknown). Commits asynchronously: a crash can lose the last fraction of a second of counts.';

-- Usage counts arrive aggregated: each API process adds up its requests per key, day and status
-- class in memory and hands them over about once a second (shared/http/middleware/usage.ts), so a
-- request never writes usage itself and no two requests of a key contend for a usage row.
create or replace function app.add_usage(p_counts jsonb) returns void
language plpgsql security definer set search_path = app, pg_temp as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  insert into app.usage_daily as u (org_id, environment, key_id, day, status_class, count)
  select c.org_id, c.environment, c.key_id, c.day, c.status_class, c.count
    from jsonb_to_recordset(p_counts)
           as c (org_id uuid, environment text, key_id uuid, day date, status_class text, count integer)
   order by c.key_id, c.day, c.status_class
  on conflict (key_id, day, status_class) do update set count = u.count + excluded.count;
end $$;

comment on function app.add_usage(jsonb) is 'Adds a batch of request counts ([{org_id, environment, key_id, day, status_class, count}]) to usage_daily, committed asynchronously: a crash can lose the last fraction of a second of counts, never other data.';
