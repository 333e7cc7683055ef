import type { Tx } from '../../shared/db/client.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { parseItems, refusedItem, succeededItem } from '../../shared/http/batch.ts';
import { summarizeHome, upsertHomes } from './homes-repository.ts';
import { HomeInput } from './schemas.ts';

// Publishing homes in a batch: the per-item checks, then one upsert for every accepted item
// (homes-repository.ts holds the statement).

/**
 * POST /properties/batch: items are checked one by one (a bad item never affects the others, and an
 * external_id may appear once), then every accepted item is written by one upsert statement.
 * Results in input order; `created` counts new homes, `updated` homes refreshed under their external_id.
 */
export async function publishBatch(tx: Tx, items: unknown[]) {
  const seen = new Set<string>();
  const checked = parseItems(HomeInput, items).map((parsed) => {
    const externalId = parsed instanceof ApiError ? null : parsed.external_id;
    if (externalId == null) return parsed;
    if (seen.has(externalId)) return new ApiError('invalid_field', `external_id ${externalId} appears earlier in this batch.`, 'external_id');
    seen.add(externalId);
    return parsed;
  });
  const accepted = checked.filter((c): c is HomeInput => !(c instanceof ApiError));
  const saved = await upsertHomes(tx, accepted);
  const savedOf = new Map(accepted.map((input, i) => [input, saved[i]]));
  const results = checked.map((c, index) => {
    if (c instanceof ApiError) return refusedItem(index, items[index], c, { updated: false });
    const { row, created } = savedOf.get(c)!;
    return succeededItem(index, row.external_id, { updated: !created, data: summarizeHome(row) });
  });
  const created = saved.filter((s) => s.created).length;
  return { created, updated: saved.length - created, results };
}
