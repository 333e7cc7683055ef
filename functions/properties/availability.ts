import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import { ApiError, notFound } from '../../shared/http/errors.ts';
import { isUuid } from './homes.ts';
import type { Block } from './schemas.ts';

// Availability blocks in the database. Every statement runs under the caller's tenant, so only
// blocks of the caller's environment are seen or touched: a sandbox hold on a real home never
// shows to a live key. Provider blocks may overlap (a retry without replace duplicates them);
// service holds never overlap one another (exclusion constraint).

interface BlockRow {
  id: string;
  property_id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
  source: 'provider' | 'service';
  lease_agreement_id: string | null;
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
    created_at: row.created_at.toISOString(),
  };
}

export interface NewBlock {
  id: string;
  property_id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
}

/** Adds provider blocks, any number in one statement. */
export function insertProviderBlocks(tx: Tx, blocks: NewBlock[]) {
  return tx<BlockRow[]>`
    insert into app.availability_blocks (id, property_id, org_id, environment, start_date, end_date, reason, source)
    select b.id, b.property_id, app.current_org(), app.current_env(), b.start_date, b.end_date, b.reason, 'provider'
      from jsonb_to_recordset(${tx.json(blocks as never)}) as b (id uuid, property_id uuid, start_date date, end_date date, reason text)
    returning *`;
}

/** Clears the caller's own blocks on the given homes (service holds survive); returns how many. */
export async function clearProviderBlocks(tx: Tx, homeIds: string[]): Promise<number> {
  const [row] = await tx<{ cleared: number }[]>`
    with gone as (
      delete from app.availability_blocks b
       where b.property_id = any(${homeIds}::uuid[]) and b.source = 'provider'
      returning 1)
    select count(*)::int as cleared from gone`;
  return row.cleared;
}

/** Records that the bulk calendar sync wrote these homes' calendars (availability_via calendar_synced). */
export async function markCalendarSynced(tx: Tx, homeIds: string[]): Promise<void> {
  await tx`update app.properties set calendar_synced_at = clock_timestamp() where id = any(${homeIds}::uuid[])`;
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

/** Removes one provider block of the home; a service hold is refused (cancel the placement instead). */
export async function releaseBlock(tx: Tx, homeId: string, blockId: string) {
  if (!isUuid(blockId)) throw notFound('availability block');
  // The source guard is in the delete itself; only when nothing was removed do we look at why.
  const [released] = await tx<BlockRow[]>`
    delete from app.availability_blocks
     where id = ${blockId} and property_id = ${homeId} and source = 'provider'
    returning *`;
  if (released) return renderBlock(released);
  const [held] = await tx`select 1 from app.availability_blocks where id = ${blockId} and property_id = ${homeId}`;
  if (!held) throw notFound('availability block');
  throw new ApiError(
    'not_yours_to_release',
    'This block is a hold the service took for a lease or booking; cancel the placement to free these dates.',
  );
}
