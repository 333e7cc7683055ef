-- The hourly retention purge gives way to the service's own work: after each batch it waits three
-- times as long as the batch took, so it takes at most a quarter of one core, however busy the
-- database is (a batch that took longer because the machine is busy is followed by a longer pause).
--
-- Measured at a season's volume (issue #51) on two cores, with `POST /claims` one at a time during a
-- day's purge (22,000 events, 55,000 deliveries) and as many without, in turns. Back to back in
-- batches of 1,000 (three runs), the purge took a core for its second or so, and every write during
-- it was slower, not only the tail: p50 12.4 against 8.0 ms, 9.0 against 5.8, 12.2 against 8.5;
-- p99 2.13x, 1.68x, 1.59x. Smaller batches alone did not change that (250 a batch: p99 2.59x), as
-- the purge kept its core. In batches of 250, each followed by three times its time (three runs):
-- p50 5.4 against 5.0 ms, 10.7 against 8.5 (a test run shared the machine) and 4.8 against 4.7;
-- p99 1.29x, 1.38x, 1.08x; the day purged in about 5 s instead of 1. An hour's expired events (the
-- job's usual work) take a fifth of a second that way, and the day of a job missed for a day five
-- seconds: nothing waits on the purge.
--
-- Batches of 250 keep the work a write can meet short (about 15 ms a batch here, 50 for 1,000).
-- The pause is a pg_sleep between two transactions: it holds no lock, and the snapshot of the
-- sleeping statement holds nothing back but the vacuum of rows deleted in those milliseconds.
-- The procedure's argument list changes, so the old one is dropped first (CREATE OR REPLACE would
-- add an overload, and `call app.purge_expired()` would then be ambiguous). pg_cron's job,
-- 'call app.purge_expired()', takes the new defaults unchanged.
drop procedure app.purge_expired(integer);

-- No SECURITY DEFINER and no SET clause: either would forbid its COMMIT. It runs as its caller
-- (pg_cron's job owner, the database owner), and names every object in full.
create procedure app.purge_expired(p_batch integer default 250, p_give_way double precision default 3)
language plpgsql as $$
declare
  v_batch record;
  v_started timestamptz;
begin
  loop
    v_started := clock_timestamp();
    select * into v_batch from app.purge_expired_batch(p_batch);
    commit;
    -- Fewer than a batch of every kind: nothing is left.
    exit when greatest(v_batch.events, v_batch.pings, v_batch.idempotency_keys, v_batch.rate_windows) < p_batch;
    perform pg_sleep(p_give_way * extract(epoch from clock_timestamp() - v_started));
    commit;
  end loop;
end $$;
revoke all on procedure app.purge_expired(integer, double precision) from public;
comment on procedure app.purge_expired(integer, double precision) is
  'The hourly retention (pg_cron job event-retention): app.purge_expired_batch until nothing is left, committing after each batch, then waiting p_give_way times as long as the batch took, so that it takes at most 1 / (1 + p_give_way) of one core. Call it on its own, outside a transaction block.';
