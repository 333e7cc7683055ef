import { hasNoNul } from '../../shared/http/text.ts';
import { isUuid } from '../../shared/ids.ts';
import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import { ApiError, notFound } from '../../shared/http/errors.ts';
import { parseItems, refusedItem, succeededItem } from '../../shared/http/batch.ts';
import { BulkBlockInput, type Block, type BlockInput } from './schemas.ts';

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

function renderBlock(row: BlockRow): z.infer<typeof Block> {
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

/** Adds one provider block to the home. */
export async function addBlock(tx: Tx, homeId: string, input: z.infer<typeof BlockInput>) {
  const [row] = await tx<BlockRow[]>`
    insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, reason, source)
    values (${homeId}, app.current_org(), app.current_env(), ${input.start_date}, ${input.end_date}, ${input.reason ?? null}, 'provider')
    returning *`;
  return renderBlock(row);
}

interface SentBlock {
  id: string;
  property_id: string;
  start_date: string;
  end_date: string;
  reason: string | null;
}

/**
 * The caller's homes named by id or external_id, locked until the end of the transaction, so that
 * two syncs of one home run one after the other (otherwise two concurrent replaces each clear only
 * the blocks they saw and both sets of new blocks stay). Locked in the order of the publish upsert
 * (external_id, then id), so that a sync and a batch publish of the same homes never deadlock.
 */
function lockHomes(tx: Tx, ids: string[], externalIds: string[]) {
  return tx<{ id: string; external_id: string | null }[]>`
    select p.id, p.external_id from app.properties p
     where p.id = any(${ids}::uuid[]) or p.external_id = any(${externalIds}::text[])
     order by p.external_id nulls last, p.id
       for no key update`;
}

/**
 * Writes the accepted blocks in one statement: with replace, the provider blocks of their homes are
 * cleared (the delete does not see the rows inserted beside it, so only earlier blocks go; service
 * holds never); the blocks are added; their homes are marked calendar-synced. The homes are passed
 * as a list of distinct ids so that clearing and marking are index look-ups.
 */
async function writeBlocks(tx: Tx, blocks: SentBlock[], replace: boolean) {
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

const trimmedString = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);

/**
 * POST /properties/availability: items are checked one by one and their homes found (and locked)
 * in one statement; the accepted blocks are then written in one more. A refused item changes
 * nothing: with replace, a home is cleared only for an accepted block of it, so a block refused for
 * its dates never leaves its home without the blocks it had. Results in input order.
 */
export async function syncCalendars(tx: Tx, blocks: unknown[], replace: boolean) {
  const parsed = parseItems(BulkBlockInput, blocks);
  const items = blocks.map((raw, index) => {
    const sent = (raw ?? {}) as { property_id?: unknown; external_id?: unknown };
    const propertyId = trimmedString(sent.property_id);
    const ref = propertyId ?? trimmedString(sent.external_id) ?? null;
    return { ref, byId: propertyId !== undefined, parsed: parsed[index] };
  });

  // Every item's home, also a refused item's, so that its result names the home it meant.
  const homes = await lockHomes(
    tx,
    items.flatMap((i) => (i.byId && isUuid(i.ref!) ? [i.ref!] : [])),
    items.flatMap((i) => (!i.byId && i.ref !== null && hasNoNul(i.ref) ? [i.ref] : [])),
  );
  const ids = new Set(homes.map((h) => h.id));
  const byExternalId = new Map(homes.flatMap((h) => (h.external_id ? [[h.external_id, h.id] as const] : [])));
  const homeOf = (item: (typeof items)[number]) =>
    item.ref === null ? undefined : item.byId ? (ids.has(item.ref) ? item.ref : undefined) : byExternalId.get(item.ref);

  const resolved = items.map((item): { homeId?: string; block?: SentBlock; externalId?: string | null; error?: ApiError } => {
    const homeId = homeOf(item);
    if (item.parsed instanceof ApiError) return { homeId, error: item.parsed };
    if (!homeId) {
      const field = item.byId ? 'property_id' : 'external_id';
      return { error: new ApiError('not_found', `No home ${item.ref} for this organisation in this environment.`, field) };
    }
    const { start_date, end_date, reason, external_id } = item.parsed;
    const block = { id: crypto.randomUUID(), property_id: homeId, start_date, end_date, reason: reason ?? null };
    return { homeId, block, externalId: external_id ?? null };
  });
  const accepted = resolved.flatMap((r) => (r.block ? [r.block] : []));
  const { replaced_existing, homes_touched } =
    accepted.length > 0 ? await writeBlocks(tx, accepted, replace) : { replaced_existing: 0, homes_touched: 0 };

  const results = resolved.map((r, index) => {
    const home = { ref: items[index].ref, property_id: r.homeId ?? null };
    return r.block
      ? succeededItem(index, r.externalId ?? null, { ...home, block_id: r.block.id })
      : refusedItem(index, blocks[index], r.error!, home);
  });
  return { blocked: accepted.length, replaced_existing, homes_touched, results };
}

interface BlockWindow {
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
