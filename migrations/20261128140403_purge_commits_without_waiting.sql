-- The retention purge's batches commit without waiting for their WAL to reach the disk.
--
-- Measured in the season benchmark at full size (`BENCH_SEASON_SCALE=1 npm run bench:season`), with
-- every backend's wait sampled every 10 ms: the writes a purge slowed most all ran while a
-- checkpoint was in progress, and waited at their commit for the WAL (LWLock WALWrite, IO WalSync).
-- The purge's own backend waited the same way at each batch's commit. After a checkpoint begins,
-- the first change to a page writes the whole page to the WAL, so deleting a day's old rows fills it
-- quickly; each batch's commit flushed that to disk while holding the WAL's write lock.
--
-- A batch is safe to lose: a crash forgets at most the deletions not yet flushed (up to three times
-- wal_writer_delay, 0.6 s by default) and the next purge deletes the same rows again. So each batch
-- commits asynchronously (synchronous_commit off for its transaction, as the usage counters do since
-- 20261124100000), and the WAL writer flushes the purge's WAL in the background. The setting lasts
-- to the end of the caller's transaction, so a batch must be a transaction of its own, as it is for
-- both callers (the procedure commits after each; the local server's purge sends each alone).
-- One run each, same code otherwise: a day's purge took 2.0 s of batches (longest 101 ms) instead of
-- 2.5 s (172 ms), 8.0 s in all instead of 10.1; but a run of the code before both, the same
-- afternoon, took 1.2 s of batches: their time moves with the checkpoints as much as with this. The writes during it still wait for the WAL at their
-- commit: their p99 was 1.72x the writes' without a purge, against 1.93x, inside the spread of runs of
-- the same code (1.46x to 2.17x; the target is 1.3x). This also lowers the function's own default
-- batch from 1,000 to 250, what its callers pass (the procedure's default since 20261128104914).
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
comment on function app.purge_expired_batch(integer) is 'One batch of the hourly retention, at most p_batch rows of each kind: events past 90 days (their deliveries by cascade; found tenant by tenant through events_feed), pings as old, Idempotency-Keys past 48 hours, rate windows unused for an hour. Call until every count is under p_batch, each call its own transaction: it commits without waiting for the disk (synchronous_commit off to the end of the transaction; a lost batch is purged again).';
