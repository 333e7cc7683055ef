-- One process runs the local server's timed background work for a database.
--
-- Each local server process runs the job runner, the webhook dispatcher, the retention purge and the
-- statistics refresh on a thread of its own. Two processes on one database ran each of them twice:
-- twice the claims polling the queues, twice the jobs and deliveries at once, twice the connections,
-- on the same cores (issue #49: a read's p99 during the surge went from 34x idle on one process to
-- 227x on two, the database's CPU from 55 to 68 seconds). Nothing was done twice (the claims skip
-- what another holds), but the work competed with itself and with the requests.
--
-- The process holding this lease runs the timers; the others answer requests and run only the jobs
-- their own requests queue, right after their commit. The holder renews it every few seconds; a lease
-- not renewed for `ttl` (a process that died or stalled) is taken by the next process to ask, so the
-- timers never stop for longer than that. A row, not an advisory lock: a session lock does not
-- survive a transaction pooler, and the local server may run through one (npm run test:pooler).
-- On Supabase pg_cron drives the same work and no lease is taken.
create table app.background_leases (
  name text primary key,
  holder text not null,
  expires_at timestamptz not null
);
alter table app.background_leases enable row level security;
comment on table app.background_leases is
  'Which local server process runs the timed background work (job runner, webhook dispatcher, retention, statistics) for this database; renewed every few seconds, taken over once expired. Bookkeeping: no API role reads it.';

-- Takes or renews the lease for p_holder: true when p_holder holds it until now() + p_ttl.
create function app.take_background_lease(p_name text, p_holder text, p_ttl interval) returns boolean
language sql as $$
  with taken as (
    insert into app.background_leases as l (name, holder, expires_at)
    values (p_name, p_holder, clock_timestamp() + p_ttl)
    on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
     where l.holder = excluded.holder or l.expires_at < clock_timestamp()
    returning 1)
  select exists (select 1 from taken)
$$;
revoke all on function app.take_background_lease(text, text, interval) from public;

-- Gives the lease up (a process stopping), so that another takes it at its next try.
create function app.release_background_lease(p_name text, p_holder text) returns void
language sql as $$
  delete from app.background_leases where name = p_name and holder = p_holder
$$;
revoke all on function app.release_background_lease(text, text) from public;
