-- Under the surge (npm run surge) the database read whole tables by the hundred thousand: in one
-- run at full size `availability_blocks` 108 million rows in 433,423 scans, `events` 18.9 million in
-- 4,115, `claims` 11.6 million in 13,682, `claim_homes` 2.9 million in 14,120, to serve 2,000
-- requests and 500 placements. Traced statement by statement (SURGE_EXPLAIN logs every plan), each
-- was a lookup by key whose table was small when its plan was made:
--
-- * app.match_candidates asks, for each candidate home, whether a block covers the move-in date
--   (and joins the provider's payout account). Its plan is generic and kept for the connection's
--   life (20261126015156); with a few hundred blocks a sequential scan of them costs the planner
--   less than an index probe, so every candidate of every call read every block. With sequential
--   scans off for the function alone the same plan probes availability_blocks_calendar and the
--   accounts' primary key: its walk of the homes is an index walk already, and nothing in it is
--   meant to read a table whole. Same homes, order and distances
--   (tests/claims/matching-equivalence.test.ts).
-- * app.authenticate, once per request, finds the key by its hash (a table of a few pages) the
--   same way; likewise kept to its indexes.
-- * Everything else (the requests read by reference, a placement's homes, the foreign-key checks
--   of every insert on claims, claim_homes and events): plans made when a table held a few rows are
--   kept by each connection until the table is analyzed, and autovacuum looks at most once a minute
--   (autovacuum_naptime), by which time a table filled from empty in a catastrophe's first minutes
--   has grown a hundredfold. app.refresh_grown_statistics analyzes the tables of the schema whose
--   rows have doubled since they were last analyzed (at least p_min_rows of them): the plans of
--   every connection are made again with their true size, and they use the indexes. A table grows
--   by doubling at most a few times (ten times from 200 rows to 200,000), and analyzing one of that
--   size is a few milliseconds; a table that only changes in place (rate windows) never qualifies.
alter function app.match_candidates(uuid, integer) set enable_seqscan = off;
alter function app.authenticate(text, text) set enable_seqscan = off;

create or replace function app.refresh_grown_statistics(p_min_rows integer default 200) returns text[]
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_table text;
  v_analyzed text[] := '{}';
begin
  for v_table in
    select s.relname
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     where s.schemaname = 'app'
       -- reltuples is -1 before the first analyze: the rows' count alone decides then.
       and s.n_live_tup >= greatest(p_min_rows, 2 * c.reltuples)
  loop
    execute format('analyze app.%I', v_table);
    v_analyzed := v_analyzed || v_table;
  end loop;
  return v_analyzed;
end $$;
revoke all on function app.refresh_grown_statistics(integer) from public;

comment on function app.refresh_grown_statistics(integer) is
  'Analyzes the tables of app whose live rows have doubled since their last analyze (and number at least p_min_rows), so that plans kept by connections follow a table growing from empty faster than autovacuum looks; returns the tables analyzed. Run every few seconds by the local server''s background thread.';
