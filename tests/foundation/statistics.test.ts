// Statistics that follow a table growing from empty (app.refresh_grown_statistics, run by the local
// server's background thread): a table whose rows doubled since its last analyze is analyzed, so the
// plans connections keep are made again with its true size; one that did not grow is left alone.
import { afterAll, describe, expect, it } from 'vitest';
import { refreshGrownStatistics } from '../../shared/db/statistics.ts';
import { ownerSql } from '../helpers.ts';

const table = `statistics_probe_${crypto.randomUUID().slice(0, 8)}`;
const sql = ownerSql();

afterAll(async () => {
  await sql`drop table if exists ${sql('app')}.${sql(table)}`;
});

const counted = async (rows: number) => {
  // The statistics' counters reach the view within a second or so of the inserting transaction.
  for (let waited = 0; waited < 10_000; waited += 100) {
    const [row] = await sql<{ live: number }[]>`select n_live_tup::int as live from pg_stat_user_tables where schemaname = 'app' and relname = ${table}`;
    if (row?.live >= rows) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${table}: ${rows} rows never counted`);
};
const estimate = async () =>
  (await sql<{ reltuples: number }[]>`select reltuples::float8 as reltuples from pg_class where oid = ${`app.${table}`}::regclass`)[0].reltuples;

describe('statistics that follow growth', () => {
  it('analyzes a table once its rows have doubled, not before', async () => {
    // Autovacuum off for the probe, so only the refresh analyzes it. Other test files' servers refresh
    // the same database on their own timers, so the test reads the table's estimate, not whose call did it.
    await sql`create table ${sql('app')}.${sql(table)} (id integer primary key) with (autovacuum_enabled = false)`;
    await sql`insert into ${sql('app')}.${sql(table)} select generate_series(1, 150)`;
    await counted(150);
    // Fewer than the 200 rows a table needs at least.
    await refreshGrownStatistics(sql);
    expect(await estimate()).toBe(-1);

    await sql`insert into ${sql('app')}.${sql(table)} select generate_series(151, 300)`;
    await counted(300);
    await refreshGrownStatistics(sql);
    expect(await estimate()).toBe(300);

    // 400 rows is not yet twice the 300 of the last analyze; 600 is.
    await sql`insert into ${sql('app')}.${sql(table)} select generate_series(301, 400)`;
    await counted(400);
    await refreshGrownStatistics(sql);
    expect(await estimate()).toBe(300);
    await sql`insert into ${sql('app')}.${sql(table)} select generate_series(401, 600)`;
    await counted(600);
    await refreshGrownStatistics(sql);
    expect(await estimate()).toBe(600);
  });
});
