-- The retention purge's batches commit without waiting for their WAL to reach the disk.
--
-- Measured in the season benchmark at full size (`BENCH_SEASON_SCALE=1 npm run bench:season`), with
-- every backend's wait sampled every 10 ms: the writes a purge slowed most all ran while a
-- checkpoint was in progress, and waited at their commit for the WAL (LWLock WALWrite, IO WalSync).
-- The purge's own backend waited the same way at each batch's commit. After a checkpoint begins,
-- the first change to a page writes the whole page to the WAL, so deleting a day's old rows fills it
-- quickly; each batch's commit flushed that to disk while holding the WAL's write lock.
--
-- A batch is safe to lose: a crash forgets at most the deletions not yet flushed (a fraction of a
-- second, wal_writer_delay) and the next purge deletes the same rows again. So each batch commits
-- asynchronously (synchronous_commit off for its own transaction, as the usage counters do since
-- 20261124100000), and the WAL writer flushes the purge's WAL in the background. One run each, same
-- code otherwise: a day's purge took 2.0 s of batches (longest 101 ms) instead of 2.5 s (172 ms), 8.0 s
-- in all instead of 10.1. The writes during it still wait for the WAL at their commit: their p99 was
-- 1.72x the writes' without a purge, against 1.93x (the ratio moves by 0.3x between runs of the
-- same code; the target is 1.3x). The default batch is 250, as both callers pass (20261128104914).
create or replace function app.purge_expired_batch(
  p_batch integer default 250, out events integer, out pings integer, out idempotency_keys integer, out rate_windows integer
)
returns record
language plpgsql security definer
set search_path = app, pg_temp
as $$
declare
  v_cutoff timestamptz := now() - interval '90 days';
begin
  -- Only this batch's transaction: a crash loses deletions the next purge makes again.
  perform set_config('synchronous_commit', 'off', true);
  -- Events by age, tenant by tenant through events_feed; each takes its deliveries with it (on
  -- delete cascade, through webhook_deliveries_event), about 2.5 an event.
  delete from app.events where id in (
    select e.id
      from app.organisations o
     cross join (values ('live'), ('sandbox')) as v (environment)
     cross join lateral (
       select x.id from app.events x
        where x.org_id = o.id and x.environment = v.environment and x.created_at < v_cutoff
        limit p_batch) e
     limit p_batch);
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
