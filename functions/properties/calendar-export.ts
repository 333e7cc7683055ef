import type { z } from '@hono/zod-openapi';
import { withTenant, type Tenant } from '../../shared/db/tenant.ts';
import { notFound } from '../../shared/domain-errors.ts';
import { publicBaseUrl } from '../../shared/public-url.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { deleteExport, readExport, replaceExport, type ExportRow } from '../../shared/properties/calendar-export-repository.ts';
import { generateFeedToken } from '../../shared/properties/ical-feed.ts';
import { resolveHome } from './homes-repository.ts';
import type { CalendarExport } from './schemas.ts';

// The commands on a home's iCalendar export address: issue (or rotate), read, revoke; each in its own
// unit of work in the caller's tenant.

const render = (row: ExportRow, url: string | null): z.infer<typeof CalendarExport> => ({
  property_id: row.property_id,
  url,
  issued_at: row.created_at.toISOString(),
  last_modified: row.changed_at.toISOString(),
});

/** Issues a new address for the home's feed; the one before it stops answering in the same commit. */
export function issueExport(tenant: Tenant, ref: string) {
  return withTenant(tenant, async (tx) => {
    const homeId = await resolveHome(tx, ref);
    const token = generateFeedToken(tenant.environment);
    const row = await replaceExport(tx, homeId, await sha256Hex(token));
    return render(row, `${publicBaseUrl()}/calendar/${token}.ics`);
  });
}

export function showExport(tenant: Tenant, ref: string) {
  return withTenant(tenant, async (tx) => {
    const row = await readExport(tx, await resolveHome(tx, ref));
    if (!row) throw notFound('calendar export');
    return render(row, null);
  });
}

export function revokeExport(tenant: Tenant, ref: string) {
  return withTenant(tenant, async (tx) => {
    const homeId = await resolveHome(tx, ref);
    if (!(await deleteExport(tx, homeId))) throw notFound('calendar export');
    return { property_id: homeId, revoked: true as const };
  });
}
