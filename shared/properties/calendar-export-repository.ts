import type { Tx } from '../db/client.ts';
import { db } from '../db/client.ts';

// A home's iCalendar export address in the database: only the token's hash is kept, and the feed is
// found by that hash (a unique index look-up, as API keys are), never by comparing tokens.

export interface ExportRow {
  property_id: string;
  created_at: Date;
  changed_at: Date;
}

/** Issues the home's feed address in the caller's environment, replacing any earlier one (which stops answering at once). */
export async function replaceExport(tx: Tx, homeId: string, tokenHash: string): Promise<ExportRow> {
  const [row] = await tx<ExportRow[]>`
    insert into app.calendar_exports (property_id, org_id, environment, token_hash)
    values (${homeId}, app.current_org(), app.current_env(), ${tokenHash})
    on conflict (property_id, environment) do update
      set token_hash = excluded.token_hash, created_at = clock_timestamp()
    returning property_id, created_at, changed_at`;
  return row;
}

/** The home's feed in the caller's environment, if one is issued. */
export async function readExport(tx: Tx, homeId: string): Promise<ExportRow | undefined> {
  const [row] = await tx<ExportRow[]>`select property_id, created_at, changed_at from app.calendar_exports where property_id = ${homeId}`;
  return row;
}

/** Revokes the home's feed in the caller's environment; whether there was one. */
export async function deleteExport(tx: Tx, homeId: string): Promise<boolean> {
  const gone = await tx`delete from app.calendar_exports where property_id = ${homeId} returning 1`;
  return gone.length > 0;
}

export type FeedEventKind = 'booked' | 'held' | 'blocked';

export interface FeedEvent {
  uid: string;
  kind: FeedEventKind;
  start_date: string;
  /** Last night taken (inclusive). */
  end_date: string;
}

export interface Feed {
  changedAt: Date;
  events: FeedEvent[];
}

/** The feed behind a token's hash, or undefined when no feed has it (never issued, rotated away or revoked). */
export async function feedByTokenHash(tokenHash: string): Promise<Feed | undefined> {
  const [row] = await db()<{ feed: { changed_at: string; events: FeedEvent[] } | null }[]>`
    select app.calendar_export_feed(${tokenHash}) as feed`;
  if (!row?.feed) return undefined;
  return { changedAt: new Date(row.feed.changed_at), events: row.feed.events };
}
