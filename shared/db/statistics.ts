import { db, type Sql } from './client.ts';
import { errorFields, log } from '../log.ts';

// Statistics that follow a table growing from empty (see migrations/*_lookups_stay_lookups.sql):
// the plans each connection keeps are made again once a table has doubled, and use its indexes.

/** Analyzes the tables that doubled since their last analyze; returns their names. */
export async function refreshGrownStatistics(sql: Sql = db()): Promise<string[]> {
  const [row] = await sql<{ analyzed: string[] }[]>`select app.refresh_grown_statistics() as analyzed`;
  return row.analyzed;
}

/** The tables the bulk paths load, by the name app.analyze_grown takes. */
export type LoadedTable = 'claims' | 'properties' | 'availability_blocks';

/**
 * After a bulk path's commit: analyzes those of `tables` that doubled in size since their last
 * analyze (see migrations/*_bulk_paths_analyze_what_they_load.sql), so that the plans connections
 * keep for them (foreign-key checks, matching) are made again on what was loaded. One statement of
 * its own, outside the bulk call's transaction: an analyze inside it would hold its lock, and keep
 * the new statistics from other connections, until that commit. Returns the tables analyzed.
 */
export async function analyzeGrown(tables: LoadedTable[], sql: Sql = db()): Promise<string[]> {
  const [row] = await sql<{ analyzed: string[] }[]>`select app.analyze_grown(${tables}::text[]) as analyzed`;
  return row.analyzed;
}

/**
 * analyzeGrown for a bulk path whose write has committed: a failure is logged, not thrown, since the
 * caller's write stands either way (autovacuum analyzes the table within its next look).
 */
export async function analyzeAfterBulkLoad(tables: LoadedTable[]): Promise<void> {
  try {
    const analyzed = await analyzeGrown(tables);
    if (analyzed.length) log.info('statistics refreshed after a bulk load', { analyzed });
  } catch (error) {
    log.warn('statistics not refreshed after a bulk load', { tables, ...errorFields(error) });
  }
}
