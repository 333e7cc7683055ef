// A check for any test that drives a lifecycle: every event recorded for the organisation must
// match its definition in the registry (for the organisation's side). An empty list means every
// emitted payload has the documented shape.
import { ownerSql } from '../helpers.ts';
import { payloadIssues } from '../../shared/events/registry.ts';
import type { Side } from '../../shared/db/tenant.ts';

export async function emittedPayloadIssues(orgId: string): Promise<string[]> {
  const rows = await ownerSql()<{ id: string; event: string; payload: unknown; side: Side }[]>`
    select e.id, e.event, e.payload, o.side
      from app.events e join app.organisations o on o.id = e.org_id
     where e.org_id = ${orgId}`;
  return rows.flatMap((row) => payloadIssues(row.event, row.side, row.payload).map((issue) => `${row.event} ${row.id}: ${issue}`));
}
