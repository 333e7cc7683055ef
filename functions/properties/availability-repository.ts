import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import type { Block, BlockInput } from './schemas.ts';

// Availability blocks in the database. Every statement runs under the caller's tenant, so only
// blocks of the caller's environment are seen or touched: a sandbox hold on a real home never
// shows to a live key. Provider blocks may overlap (a retry without replace duplicates them);
// service holds never overlap one another (exclusion constraint).

export interface BlockRow {
  id: string;
  property_id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
  source: 'provider' | 'service' | 'ical';
  calendar_import_id: string | null;
  lease_agreement_id: string | null;
  held_for: 'lease' | 'booking' | 'completed' | null;
  created_at: Date;
}

export function renderBlock(row: BlockRow): z.infer<typeof Block> {
  return {
    id: row.id,
    property_id: row.property_id,
    start_date: row.start_date,
    end_date: row.end_date,
    reason: row.reason,
    source: row.source,
    lease_agreement_id: row.lease_agreement_id,
    held_for: row.held_for,
    calendar_import_id: row.calendar_import_id,
    created_at: row.created_at.toISOString(),
  };
}

/** Adds one provider block to the home. */
export async function addBlock(tx: Tx, homeId: string, input: z.infer<typeof BlockInput>) {
  const [row] = await tx<BlockRow[]>`
    insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, reason, source)
    values (${homeId}, app.current_org(), app.current_env(), ${input.start_date}, ${input.end_date}, ${input.reason ?? null}, 'provider')
    returning *`;
  return renderBlock(row);
}

export interface SentBlock {
  id: string;
  property_id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
}

/**
 * Writes the accepted blocks in one statement: with replace, the provider blocks of their homes are
 * cleared (the delete does not see the rows inserted beside it, so only earlier blocks go; service
 * holds never); the blocks are added; their homes are marked calendar-synced. The homes are passed
 * as a list of distinct ids so that clearing and marking are index look-ups.
 */
export async function writeBlocks(tx: Tx, blocks: SentBlock[], replace: boolean) {
  const homeIds = [...new Set(blocks.map((b) => b.property_id))];
  const [counts] = await tx<{ replaced_existing: number; homes_touched: number }[]>`
    with cleared as (
      delete from app.availability_blocks b
       where ${replace} and b.property_id = any(${homeIds}::uuid[]) and b.source = 'provider'
      returning 1
    ), added as (
      insert into app.availability_blocks (id, property_id, org_id, environment, start_date, end_date, reason, source)
      select b.id, b.property_id, app.current_org(), app.current_env(), b.start_date, b.end_date, b.reason, 'provider'
        from jsonb_to_recordset(${tx.json(blocks as never)}) as b (id uuid, property_id uuid, start_date date, end_date date, reason text)
      returning 1
    ), synced as (
      update app.properties p set calendar_synced_at = clock_timestamp()
       where p.id = any(${homeIds}::uuid[])
      returning 1
    )
    select (select count(*) from cleared)::int as replaced_existing, (select count(*) from synced)::int as homes_touched`;
  return counts;
}

export interface BlockWindow {
  from?: string;
  to?: string;
}

/** The home's blocks in the caller's environment, in date order, optionally those touching [from, to]. */
export async function listBlocks(tx: Tx, homeId: string, window: BlockWindow) {
  const rows = await tx<BlockRow[]>`
    select * from app.availability_blocks b
     where b.property_id = ${homeId}
       and (${window.to ?? null}::date is null or b.start_date <= ${window.to ?? null}::date)
       and (${window.from ?? null}::date is null or b.end_date >= ${window.from ?? null}::date)
     order by b.start_date, b.end_date, b.id`;
  return rows.map(renderBlock);
}

/** Removes one provider block of the home (never a service hold); undefined when none was removed. */
export async function deleteProviderBlock(tx: Tx, homeId: string, blockId: string): Promise<BlockRow | undefined> {
  const [released] = await tx<BlockRow[]>`
    delete from app.availability_blocks
     where id = ${blockId} and property_id = ${homeId} and source = 'provider'
    returning *`;
  return released;
}

/** Whether the home has a block of this id (of either source). */
export async function hasBlock(tx: Tx, homeId: string, blockId: string): Promise<boolean> {
  const [held] = await tx`select 1 from app.availability_blocks where id = ${blockId} and property_id = ${homeId}`;
  return held !== undefined;
}
