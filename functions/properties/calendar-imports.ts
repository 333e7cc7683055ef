import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import { config } from '../../shared/config.ts';
import { withTenant, type Tenant } from '../../shared/db/tenant.ts';
import { invalid, notFound } from '../../shared/domain-errors.ts';
import { isUuid } from '../../shared/ids.ts';
import { enqueue } from '../../shared/jobs/queue.ts';
import {
  deleteImport, insertImport, listImports, lockImportsOf, readImport, recordRefresh, refreshPending, type ImportRow,
} from '../../shared/properties/calendar-import-repository.ts';
import { maxFeedsPerHome } from '../../shared/properties/calendar-import-job.ts';
import { shownUrl } from '../../shared/properties/feed-address.ts';
import { checkEndpointUrl } from '../../shared/webhooks/destination.ts';
import { resolveHome } from './homes-repository.ts';
import type { CalendarImport, CalendarImportInput } from './schemas.ts';

// The commands on a home's imported calendars: register an address (fetched at once, then on a
// schedule), list them with their fetch state, remove one (its blocks go with it), fetch one now;
// each in its own unit of work in the caller's tenant.

const renderImport = (row: ImportRow): z.infer<typeof CalendarImport> => ({
  id: row.id,
  property_id: row.property_id,
  url: shownUrl(row.url),
  name: row.name,
  created_at: row.created_at.toISOString(),
  last_fetched_at: row.last_fetched_at?.toISOString() ?? null,
  last_success_at: row.last_success_at?.toISOString() ?? null,
  last_error: row.last_error,
  consecutive_failures: row.consecutive_failures,
  blocks: row.blocks,
});

/**
 * Queues a fetch now, unless the one queued by the last refresh (or the registration) has not
 * started: a refresh while one is pending is that refresh, whatever the number of calls.
 */
async function fetchNow(tx: Tx, importId: string) {
  if (await refreshPending(tx, importId)) return;
  const jobId = await enqueue(tx, 'fetch_calendar_import', { import_id: importId });
  await recordRefresh(tx, importId, jobId!);
}

/**
 * Registers the address under the rules of webhook destinations; a second registration of it answers
 * the first. A home imports a limited number of calendars (each is fetched every interval).
 */
export function registerImport(tenant: Tenant, ref: string, input: z.infer<typeof CalendarImportInput>) {
  const checked = checkEndpointUrl(input.url, config.webhookAllowPrivateNetworks(), 'calendar');
  if (!checked.ok) throw invalid('invalid_field', checked.reason, 'url');
  return withTenant(tenant, async (tx) => {
    const homeId = await resolveHome(tx, ref);
    const feeds = await lockImportsOf(tx, homeId);
    const registered = feeds.find((row) => row.url === checked.url);
    if (registered) return { created: false, feed: renderImport(registered) };
    const most = maxFeedsPerHome();
    if (feeds.length >= most) {
      throw invalid('invalid_field', `The home imports ${feeds.length} calendars, the most one home may import (${most}): remove one (DELETE …/calendar-feeds/{feed_id}) to add another.`, 'url');
    }
    const created = await insertImport(tx, homeId, checked.url, input.name ?? null);
    await fetchNow(tx, created.id);
    return { created: true, feed: renderImport(created) };
  });
}

export function homeImports(tenant: Tenant, ref: string) {
  return withTenant(tenant, async (tx) => (await listImports(tx, await resolveHome(tx, ref))).map(renderImport));
}

export function removeImport(tenant: Tenant, ref: string, importId: string) {
  return withTenant(tenant, async (tx) => {
    const homeId = await resolveHome(tx, ref);
    if (!isUuid(importId) || !(await deleteImport(tx, homeId, importId))) throw notFound('calendar feed');
    return { id: importId, deleted: true as const };
  });
}

/** Fetches the feed now; the feed is locked meanwhile, so that two refreshes at once queue one fetch. */
export function refreshImport(tenant: Tenant, ref: string, importId: string) {
  return withTenant(tenant, async (tx) => {
    const homeId = await resolveHome(tx, ref);
    const row = isUuid(importId) ? await readImport(tx, importId, homeId, { lock: true }) : undefined;
    if (!row) throw notFound('calendar feed');
    await fetchNow(tx, row.id);
    return renderImport(row);
  });
}
