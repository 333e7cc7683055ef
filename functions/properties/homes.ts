import type { Tx } from '../../shared/db/client.ts';
import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { analyzeAfterBulkLoad } from '../../shared/db/statistics.ts';
import { DomainError, invalid } from '../../shared/domain-errors.ts';
import { listHomes, patchHome, readHome, readReadiness, resolveHome, summarizeHome, upsertHomes, type HomePageQuery } from './homes-repository.ts';
import type { HomeInput, HomePatch } from './schemas.ts';

// The homes' commands and queries: publishing in a batch (the per-item checks, then one upsert for
// every accepted item), publishing one, reading, listing, changing, and the portfolio's readiness.
// Each opens its own unit of work (the routes open none); homes-repository.ts holds the statements.

/**
 * POST /properties/batch: each item as the route parsed it (its value, or the refusal naming the
 * field inside it) is checked on its own (a bad item never affects the others, and an external_id
 * may appear once), then every accepted item is written by one upsert statement. Outcomes in input
 * order, for the route to render; `created` counts new homes, `updated` homes refreshed under their
 * external_id.
 */
export async function publishBatch(caller: Caller, items: readonly (HomeInput | DomainError)[]) {
  const published = await withTenant(caller, (tx) => publish(tx, items));
  // A bulk publish can outgrow the statistics matching was planned on: analyzed once it doubled (analyzeGrown).
  if (published.created > 0) await analyzeAfterBulkLoad(['properties']);
  return published;
}

/** What became of one item: the home it published (created or updated), or why it was refused. */
export type PublishOutcome =
  | { ok: true; externalId: string | null; updated: boolean; data: ReturnType<typeof summarizeHome> }
  | { ok: false; error: DomainError };

async function publish(tx: Tx, items: readonly (HomeInput | DomainError)[]) {
  const seen = new Set<string>();
  const checked = items.map((parsed) => {
    const externalId = parsed instanceof DomainError ? null : parsed.external_id;
    if (externalId == null) return parsed;
    if (seen.has(externalId)) return invalid('invalid_field', `external_id ${externalId} appears earlier in this batch.`, 'external_id');
    seen.add(externalId);
    return parsed;
  });
  const accepted = checked.filter((c): c is HomeInput => !(c instanceof DomainError));
  const saved = await upsertHomes(tx, accepted);
  const savedOf = new Map(accepted.map((input, i) => [input, saved[i]]));
  const outcomes = checked.map((c): PublishOutcome => {
    if (c instanceof DomainError) return { ok: false, error: c };
    const { row, created } = savedOf.get(c)!;
    return { ok: true, externalId: row.external_id, updated: !created, data: summarizeHome(row) };
  });
  const created = saved.filter((s) => s.created).length;
  return { created, updated: saved.length - created, outcomes };
}

/** One home, created or refreshed under its external_id. */
export const publishHome = async (caller: Caller, input: HomeInput) => (await withTenant(caller, (tx) => upsertHomes(tx, [input])))[0];

/** The portfolio's readiness: listed and not listed homes, and what holds them back. */
export const portfolioReadiness = (caller: Caller) => withTenant(caller, readReadiness);

/** A page of the portfolio. */
export const homesPage = (caller: Caller, query: HomePageQuery) => withTenant(caller, (tx) => listHomes(tx, query));

/** The home `ref` (its id or external_id). */
export const homeOf = (caller: Caller, ref: string) => withTenant(caller, async (tx) => readHome(tx, await resolveHome(tx, ref)));

/** The home `ref` with the fields of `patch` changed. */
export const changeHome = (caller: Caller, ref: string, patch: HomePatch) =>
  withTenant(caller, async (tx) => patchHome(tx, await resolveHome(tx, ref), patch));
