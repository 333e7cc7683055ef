-- A plan is made once and kept: a connection keeps its foreign-key checks' plans and
-- app.match_candidates' generic plan until the table is analyzed again. Made while a table was empty
-- or had never been analyzed, every index of it looks as cheap as its key's own, and the one taken
-- may read an organisation's rows for every row checked: the sourcing rounds' check of app.claims
-- went quadratic while the table had no statistics (issue #51: a bulk load still running after 66 s;
-- ANALYZE fixed it). Autovacuum analyzes a table within a minute of its first rows, and
-- app.refresh_grown_statistics analyzes a table that doubled every few seconds where it is run (the
-- local server's background thread), judged from row counts that reach the statistics views
-- seconds after a commit; the requests that follow a bulk call come sooner than either looks.
--
-- So each bulk path (POST /claims/batch, POST /properties/batch, POST /properties/availability, a
-- calendar import) asks, once its write has committed, for the tables it loaded to be analyzed
-- when they have doubled in size since their last analyze (or were never analyzed) and hold at
-- least p_min_pages pages. Size is read from the files (pg_relation_size), not from the statistics
-- collector's row counts, which reach the views up to seconds after the commit. The analyze
-- replaces every connection's plans on that table, so the checks and matching after the bulk call
-- are planned on its true size. A table grows by doubling a few times in its life (ten times from
-- 8 pages to 8,000), so the bulk calls that pay for an analyze are few; a call that finds the table
-- being analyzed by another leaves it to that one (a transaction-scoped advisory lock per table).
create or replace function app.analyze_grown(p_tables text[], p_min_pages integer default 8) returns text[]
language plpgsql security definer set search_path = app, pg_temp as $$
declare
  v_table text;
  v_analyzed text[] := '{}';
begin
  for v_table in
    select c.relname
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'app' and c.relkind = 'r' and c.relname = any (p_tables)
       -- relpages is the size at the last analyze or vacuum (0 when never analyzed).
       and pg_relation_size(c.oid) / current_setting('block_size')::integer >= greatest(p_min_pages, 2 * c.relpages)
     order by c.relname
  loop
    if pg_try_advisory_xact_lock(hashtext('app.analyze_grown'), hashtext(v_table)) then
      execute format('analyze app.%I', v_table);
      v_analyzed := v_analyzed || v_table;
    end if;
  end loop;
  return v_analyzed;
end $$;
revoke all on function app.analyze_grown(text[], integer) from public;

comment on function app.analyze_grown(text[], integer) is
  'Analyzes those of the named tables of app whose size on disk has doubled since their last analyze or vacuum (or that were never analyzed), from p_min_pages pages; returns the tables analyzed. Called by the bulk paths after their commit, so that plans kept by connections are made again on the tables they loaded.';
