import { db, type Sql } from './client.ts';

// Statistics that follow a table growing from empty (see migrations/*_lookups_stay_lookups.sql):
// the plans each connection keeps are made again once a table has doubled, and use its indexes.

/** Analyzes the tables that doubled since their last analyze; returns their names. */
export async function refreshGrownStatistics(sql: Sql = db()): Promise<string[]> {
  const [row] = await sql<{ analyzed: string[] }[]>`select app.refresh_grown_statistics() as analyzed`;
  return row.analyzed;
}
