-- A key's per-minute limit (the specification: limits "are defaults and may be raised on request").
-- The defaults per environment move into one function that both the API (app.authenticate) and the
-- operator console (`key list`, `key limit`) read, so what the console shows is what the API enforces.

create or replace function app.default_rate_limit(p_environment text) returns integer
  language sql immutable as $$ select case p_environment when 'live' then 600 else 120 end $$;

-- Authentication and rate limiting in one statement (one database round trip per request).
-- Returns the key's tenant when the hash matches a live organisation key, and the state of the
-- caller's rate-limit window: the key's own, or the address's failed-authentication window.
-- A fault in the limiter lets the request pass (limiter_ok = false).
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
