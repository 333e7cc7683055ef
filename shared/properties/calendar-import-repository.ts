import type { Tx } from '../db/client.ts';
import type { ImportedRange } from './ical-import.ts';

// Imported calendars and their blocks in the database. Every statement runs under a tenant (the
// provider's routes, or the fetch job under the import's own organisation and environment).

export interface ImportRow {
  id: string;
  property_id: string;
  url: string;
  name: string | null;
  created_at: Date;
  last_fetched_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
  consecutive_failures: number;
  blocks: number;
}

const selection = (tx: Tx) => tx`
  i.id, i.property_id, i.url, i.name, i.created_at, i.last_fetched_at, i.last_success_at, i.last_error, i.consecutive_failures,
  (select count(*)::int from app.availability_blocks b where b.calendar_import_id = i.id) as blocks`;

/** Registers an address for the home; undefined when the home has it already. */
export async function insertImport(tx: Tx, homeId: string, url: string, name: string | null): Promise<ImportRow | undefined> {
  const [row] = await tx<ImportRow[]>`
    insert into app.calendar_imports (property_id, org_id, environment, url, name)
    values (${homeId}, app.current_org(), app.current_env(), ${url}, ${name})
    on conflict (property_id, environment, url) do nothing
    returning *, 0 as blocks`;
  return row;
}

export async function listImports(tx: Tx, homeId: string): Promise<ImportRow[]> {
  return tx<ImportRow[]>`select ${selection(tx)} from app.calendar_imports i where i.property_id = ${homeId} order by i.created_at, i.id`;
}

export async function readImport(tx: Tx, importId: string, homeId?: string): Promise<ImportRow | undefined> {
  const [row] = await tx<ImportRow[]>`
    select ${selection(tx)} from app.calendar_imports i
     where i.id = ${importId} and (${homeId ?? null}::uuid is null or i.property_id = ${homeId ?? null}::uuid)`;
  return row;
}

/** Removes the address and, with it, the blocks read from it (the nights it took are free again). */
export async function deleteImport(tx: Tx, homeId: string, importId: string): Promise<boolean> {
  const gone = await tx`delete from app.calendar_imports where id = ${importId} and property_id = ${homeId} returning 1`;
  return gone.length > 0;
}

/**
 * A fetch that read the feed: the address's blocks are replaced by the ranges read, in one
 * statement, so the calendar is never seen half replaced; the failure count starts again.
 */
export async function recordSuccess(tx: Tx, row: { id: string; property_id: string }, ranges: ImportedRange[], label: string) {
  // Two fetches of one feed at once (a refresh beside the scheduled run): without this lock each
  // statement clears only the blocks its snapshot saw and both sets stay. Taken in its own statement
  // so that the replacement below, run once the other commits, sees the blocks it wrote.
  const [locked] = await tx`select 1 from app.calendar_imports where id = ${row.id} for update`;
  // Removed meanwhile: its blocks went with it, none are written.
  if (!locked) return;
  await tx`
    with cleared as (
      delete from app.availability_blocks where calendar_import_id = ${row.id}
    ), added as (
      insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, reason, source, calendar_import_id)
      select ${row.property_id}, app.current_org(), app.current_env(), r.start_date, r.end_date, ${label}, 'ical', ${row.id}
        from jsonb_to_recordset(${tx.json(ranges as never)}) as r (start_date date, end_date date)
    )
    update app.calendar_imports
       set last_fetched_at = clock_timestamp(), last_success_at = clock_timestamp(), last_error = null, consecutive_failures = 0
     where id = ${row.id}`;
}

/** A fetch that failed: the blocks of the last success stay; the failure is counted and shown. */
export async function recordFailure(tx: Tx, importId: string, error: string): Promise<number> {
  const [row] = await tx<{ consecutive_failures: number }[]>`
    update app.calendar_imports
       set last_fetched_at = clock_timestamp(), last_error = ${error.slice(0, 500)}, consecutive_failures = consecutive_failures + 1
     where id = ${importId}
    returning consecutive_failures`;
  return row?.consecutive_failures ?? 0;
}
