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

/**
 * The home's imported calendars, read under the home's calendar lock (app.lock_calendar, held to the
 * transaction's end): two registrations at once count the same feeds, the second after the first.
 */
export async function lockImportsOf(tx: Tx, homeId: string): Promise<ImportRow[]> {
  await tx`select app.lock_calendar(${homeId})`;
  return listImports(tx, homeId);
}

/** Registers an address for the home (the caller checked that the home has no such address). */
export async function insertImport(tx: Tx, homeId: string, url: string, name: string | null): Promise<ImportRow> {
  const [row] = await tx<ImportRow[]>`
    insert into app.calendar_imports (property_id, org_id, environment, url, name)
    values (${homeId}, app.current_org(), app.current_env(), ${url}, ${name})
    returning id, property_id, url, name, created_at, last_fetched_at, last_success_at, last_error, consecutive_failures, 0 as blocks`;
  return row;
}

export async function listImports(tx: Tx, homeId: string): Promise<ImportRow[]> {
  return tx<ImportRow[]>`select ${selection(tx)} from app.calendar_imports i where i.property_id = ${homeId} order by i.created_at, i.id`;
}

/** The feed, optionally of one home only; locked to the transaction's end when `lock` is set (a refresh). */
export async function readImport(tx: Tx, importId: string, homeId?: string, options: { lock?: boolean } = {}): Promise<ImportRow | undefined> {
  const [row] = await tx<ImportRow[]>`
    select ${selection(tx)} from app.calendar_imports i
     where i.id = ${importId} and (${homeId ?? null}::uuid is null or i.property_id = ${homeId ?? null}::uuid)
     ${options.lock ? tx`for update of i` : tx``}`;
  return row;
}

/** Whether the fetch a refresh (or the registration) queued last has yet to start: a refresh now is that one. */
export async function refreshPending(tx: Tx, importId: string): Promise<boolean> {
  const [row] = await tx`
    select 1 from app.calendar_imports i join app.jobs j on j.id = i.refresh_job_id
     where i.id = ${importId} and j.status = 'pending' and j.locked_until is null`;
  return row !== undefined;
}

/** Keeps the fetch a refresh (or the registration) queued, for the next refresh to find. */
export async function recordRefresh(tx: Tx, importId: string, jobId: string) {
  await tx`update app.calendar_imports set refresh_job_id = ${jobId} where id = ${importId}`;
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

/**
 * The UIDs among `uids` that are this service's own events of the home (its stays, its provider
 * blocks), as its export names them: a channel that re-exports the home's feed hands them back, and
 * read as another channel's nights each would be a conflict with itself (app.calendar_own_event_uids).
 */
export async function ownEventUids(tx: Tx, homeId: string, uids: string[]): Promise<Set<string>> {
  if (uids.length === 0) return new Set();
  const rows = await tx<{ uid: string }[]>`select uid from app.calendar_own_event_uids(${homeId}, ${uids}::text[]) as uid`;
  return new Set(rows.map((row) => row.uid));
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

/** A conflict a fetch found (or found again after it was resolved), as calendar.conflict announces it. */
export interface NewConflict {
  conflict_id: string;
  feed_id: string;
  feed_name: string | null;
  property_id: string;
  external_id: string | null;
  property_name: string | null;
  booking_id: string | null;
  start_date: string;
  end_date: string;
  detected_at: Date;
}

/**
 * After a fetch replaced the feed's blocks: the nights they share with a stay held or booked here
 * are recorded as conflicts (the booking stands; the service hold is not touched), and conflicts the
 * feed no longer causes are resolved. Returns the conflicts that are new (or open again), each to be
 * announced once.
 */
export async function reconcileConflicts(tx: Tx, importId: string): Promise<NewConflict[]> {
  const opened = await tx<{ id: string }[]>`
    with found as (
      select distinct i.property_id, h.lease_agreement_id,
             greatest(i.start_date, h.start_date) as start_date, least(i.end_date, h.end_date) as end_date
        from app.availability_blocks i
        join app.availability_blocks h
          on h.property_id = i.property_id and h.environment = i.environment and h.source = 'service'
         and h.held_for in ('lease', 'booking') and h.lease_agreement_id is not null
         and daterange(h.start_date, h.end_date, '[]') && daterange(i.start_date, i.end_date, '[]')
       where i.calendar_import_id = ${importId}
    ), resolved as (
      update app.calendar_conflicts c set resolved_at = clock_timestamp()
       where c.calendar_import_id = ${importId} and c.resolved_at is null
         and not exists (select 1 from found f
                          where f.lease_agreement_id = c.lease_agreement_id and f.start_date = c.start_date and f.end_date = c.end_date)
    )
    insert into app.calendar_conflicts as c (calendar_import_id, property_id, org_id, environment, lease_agreement_id, start_date, end_date)
    select ${importId}, f.property_id, app.current_org(), app.current_env(), f.lease_agreement_id, f.start_date, f.end_date from found f
    on conflict (calendar_import_id, lease_agreement_id, start_date, end_date)
      do update set resolved_at = null, detected_at = clock_timestamp() where c.resolved_at is not null
    returning c.id`;
  if (opened.length === 0) return [];
  return tx<NewConflict[]>`
    select c.id as conflict_id, c.calendar_import_id as feed_id, i.name as feed_name, c.property_id, p.external_id, p.name as property_name,
           b.id as booking_id, c.start_date::text as start_date, c.end_date::text as end_date, c.detected_at
      from app.calendar_conflicts c
      join app.calendar_imports i on i.id = c.calendar_import_id
      join app.properties p on p.id = c.property_id
      left join app.bookings b on b.lease_agreement_id = c.lease_agreement_id and b.booking_status = 'confirmed'
     where c.id = any(${opened.map((row) => row.id)}::uuid[])
     order by c.start_date, c.id`;
}

/** The home's name and external_id, as events name it. */
export async function readHomeRef(tx: Tx, homeId: string): Promise<{ name: string | null; api_external_id: string | null }> {
  const [row] = await tx<{ name: string | null; api_external_id: string | null }[]>`
    select name, external_id as api_external_id from app.properties where id = ${homeId}`;
  return row ?? { name: null, api_external_id: null };
}
