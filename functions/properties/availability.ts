import { isUuid } from '../../shared/ids.ts';
import { isStorableText } from '../../shared/values.ts';
import type { Tx } from '../../shared/db/client.ts';
import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { analyzeAfterBulkLoad } from '../../shared/db/statistics.ts';
import type { z } from '@hono/zod-openapi';
import { conflict, DomainError, missing, notFound } from '../../shared/domain-errors.ts';
import { addBlock, deleteProviderBlock, hasBlock, listBlocks, renderBlock, writeBlocks, type BlockWindow, type SentBlock } from './availability-repository.ts';
import { lockHomesByRef, resolveHome } from './homes-repository.ts';
import type { BlockInput, BulkBlockInput } from './schemas.ts';

// The calendar's commands and its query: the bulk calendar sync (per-item checks, then its homes
// locked and the accepted blocks written in one statement each), a home's blocks, blocking dates,
// and releasing a provider block. Each opens its own unit of work (the routes open none); the SQL is
// in availability-repository.ts.

const trimmedString = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);

/**
 * POST /properties/availability: each block as it was sent and as the route parsed it (its value, or
 * the refusal naming the field inside it); the items' homes are found (and locked) in one statement,
 * and the accepted blocks written in one more. A refused item changes nothing: with replace, a home
 * is cleared only for an accepted block of it, so a block refused for its dates never leaves its home
 * without the blocks it had. Outcomes in input order, for the route to render.
 */
export async function syncCalendars(caller: Caller, blocks: readonly SentItem[], replace: boolean) {
  const synced = await withTenant(caller, (tx) => sync(tx, blocks, replace));
  // A calendar sync can outgrow the statistics matching was planned on: analyzed once it doubled (analyzeGrown).
  if (synced.blocked > 0) await analyzeAfterBulkLoad(['availability_blocks']);
  return synced;
}

/** One block of a sync: the item as sent (its home named by property_id or external_id) and as parsed. */
export interface SentItem {
  sent: unknown;
  parsed: BulkBlockInput | DomainError;
}

/** What became of one block: the home it meant (`ref` as sent, `property_id` when found), and the block added or why it was refused. */
export type SyncOutcome = { ref: string | null; property_id: string | null } & (
  | { ok: true; externalId: string | null; block_id: string }
  | { ok: false; error: DomainError }
);

async function sync(tx: Tx, blocks: readonly SentItem[], replace: boolean) {
  const items = blocks.map(({ sent: raw, parsed }) => {
    const sent = (raw ?? {}) as { property_id?: unknown; external_id?: unknown };
    const propertyId = trimmedString(sent.property_id);
    const ref = propertyId ?? trimmedString(sent.external_id) ?? null;
    return { ref, byId: propertyId !== undefined, parsed };
  });

  // Every item's home, also a refused item's, so that its result names the home it meant.
  const homes = await lockHomesByRef(
    tx,
    items.flatMap((i) => (i.byId && isUuid(i.ref!) ? [i.ref!] : [])),
    items.flatMap((i) => (!i.byId && i.ref !== null && isStorableText(i.ref) ? [i.ref] : [])),
  );
  const ids = new Set(homes.map((h) => h.id));
  const byExternalId = new Map(homes.flatMap((h) => (h.external_id ? [[h.external_id, h.id] as const] : [])));
  const homeOf = (item: (typeof items)[number]) =>
    item.ref === null ? undefined : item.byId ? (ids.has(item.ref) ? item.ref : undefined) : byExternalId.get(item.ref);

  const resolved = items.map((item): { homeId?: string; block?: SentBlock; externalId?: string | null; error?: DomainError } => {
    const homeId = homeOf(item);
    if (item.parsed instanceof DomainError) return { homeId, error: item.parsed };
    if (!homeId) {
      const field = item.byId ? 'property_id' : 'external_id';
      return { error: missing('not_found', `No home ${item.ref} for this organisation in this environment.`, field) };
    }
    const { start_date, end_date, reason, external_id } = item.parsed;
    const block = { id: crypto.randomUUID(), property_id: homeId, start_date, end_date, reason: reason ?? null };
    return { homeId, block, externalId: external_id ?? null };
  });
  const accepted = resolved.flatMap((r) => (r.block ? [r.block] : []));
  const { replaced_existing, homes_touched } =
    accepted.length > 0 ? await writeBlocks(tx, accepted, replace) : { replaced_existing: 0, homes_touched: 0 };

  const outcomes = resolved.map((r, index): SyncOutcome => {
    const home = { ref: items[index].ref, property_id: r.homeId ?? null };
    return r.block ? { ...home, ok: true, externalId: r.externalId ?? null, block_id: r.block.id } : { ...home, ok: false, error: r.error! };
  });
  return { blocked: accepted.length, replaced_existing, homes_touched, outcomes };
}

/** The blocks of the home `ref` touching the window. */
export const homeBlocks = (caller: Caller, ref: string, window: BlockWindow) =>
  withTenant(caller, async (tx) => listBlocks(tx, await resolveHome(tx, ref), window));

/** A provider block on the home `ref`. */
export const blockDates = (caller: Caller, ref: string, input: z.infer<typeof BlockInput>) =>
  withTenant(caller, async (tx) => addBlock(tx, await resolveHome(tx, ref), input));

/** Removes one provider block of the home `ref`; a service hold or an imported range is refused. */
export const releaseBlock = (caller: Caller, ref: string, blockId: string) =>
  withTenant(caller, async (tx) => release(tx, await resolveHome(tx, ref), blockId));

async function release(tx: Tx, homeId: string, blockId: string) {
  if (!isUuid(blockId)) throw notFound('availability block');
  // The source guard is in the delete itself; only when nothing was removed do we look at why.
  const released = await deleteProviderBlock(tx, homeId, blockId);
  if (released) return renderBlock(released);
  if (!(await hasBlock(tx, homeId, blockId))) throw notFound('availability block');
  throw conflict(
    'not_yours_to_release',
    'This block is a hold the service took for a lease or booking (cancel the placement to free these dates), or nights read from an imported calendar (they follow that calendar).',
  );
}
