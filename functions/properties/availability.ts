import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import { ApiError, notFound } from '../../shared/http/errors.ts';
import { parseItem, type ItemError } from './batch.ts';
import { findHomes, isUuid } from './homes.ts';
import { BulkBlockInput, type Block, type BulkBlocksResult } from './schemas.ts';

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
async function clearProviderBlocks(tx: Tx, homeIds: string[]): Promise<number> {
  const [row] = await tx<{ cleared: number }[]>`
    with gone as (
      delete from app.availability_blocks b
       where b.property_id = any(${homeIds}::uuid[]) and b.source = 'provider'
      returning 1)
    select count(*)::int as cleared from gone`;
  return row.cleared;
}

/** Records that the bulk calendar sync wrote these homes' calendars (availability_via calendar_synced). */
async function markCalendarSynced(tx: Tx, homeIds: string[]): Promise<void> {
  await tx`update app.properties set calendar_synced_at = clock_timestamp() where id = any(${homeIds}::uuid[])`;
}

/**
 * POST /properties/availability: items are checked one by one, their homes found in one statement,
 * then (with replace) the provider blocks of every named home are cleared, the accepted blocks
 * added and the touched homes marked as calendar-synced, in the caller's transaction.
 */
export async function syncCalendars(tx: Tx, blocks: unknown[], replace: boolean): Promise<z.infer<typeof BulkBlocksResult>> {
  const items = blocks.map((raw) => {
    const sent = (raw ?? {}) as { property_id?: unknown; external_id?: unknown };
    const byId = typeof sent.property_id === 'string';
    const ref = byId ? (sent.property_id as string) : typeof sent.external_id === 'string' ? sent.external_id : null;
    return { ref, byId, parsed: parseItem(BulkBlockInput, raw) };
  });

  // Every item's home, also a refused item's: with replace, naming a home is what clears it.
  const homes = await findHomes(
    tx,
    items.flatMap((i) => (i.byId && isUuid(i.ref!) ? [i.ref!] : [])),
    items.flatMap((i) => (!i.byId && i.ref !== null ? [i.ref] : [])),
  );
  const ids = new Set(homes.map((h) => h.id));
  const byExternalId = new Map(homes.flatMap((h) => (h.external_id ? [[h.external_id, h.id] as const] : [])));
  const homeOf = (item: (typeof items)[number]) =>
    item.ref === null ? undefined : item.byId ? (ids.has(item.ref) ? item.ref : undefined) : byExternalId.get(item.ref);

  const resolved = items.map((item) => {
    const homeId = homeOf(item);
    if (!item.parsed.ok) return { homeId, error: item.parsed.error };
    if (!homeId) {
      const field = item.byId ? 'property_id' : 'external_id';
      const error: ItemError = { code: 'not_found', message: `No home ${item.ref} for this organisation in this environment.`, field };
      return { homeId, error };
    }
    const { start_date, end_date, reason } = item.parsed.value;
    return { homeId, block: { id: crypto.randomUUID(), property_id: homeId, start_date, end_date, reason: reason ?? null } };
  });
  const named = [...new Set(resolved.flatMap((r) => (r.homeId ? [r.homeId] : [])))];
  const added = resolved.flatMap((r) => (r.block ? [r.block] : []));
  const touched = replace ? named : [...new Set(added.map((b) => b.property_id))];
  // Sent together, run in this order on the transaction's connection: clear, add, mark synced.
  const [replaced] = await Promise.all([
    replace ? clearProviderBlocks(tx, named) : 0,
    added.length > 0 ? insertProviderBlocks(tx, added) : [],
    touched.length > 0 ? markCalendarSynced(tx, touched) : undefined,
  ]);

  const results = resolved.map((r, index) => ({
    index,
    ref: items[index].ref,
    ok: r.block !== undefined,
    property_id: r.homeId ?? null,
    ...(r.block ? { block_id: r.block.id } : { error: r.error }),
  }));
  return { blocked: added.length, failed: results.length - added.length, replaced_existing: replaced, homes_touched: touched.length, results };
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
