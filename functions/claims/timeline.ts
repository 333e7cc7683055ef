import type { Tx } from '../../shared/db/client.ts';
import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import type { TimelineRow, TimelineSource } from '../../shared/claims/timeline-source.ts';
import { findClaim, type ClaimRow } from '../../shared/claims/repository.ts';
import { moneyTimeline, placementTimeline } from '../../shared/placements/timeline.ts';
import { documentTimeline } from './documents-timeline.ts';

// The request's timeline as a list of sources: each module contributes its own entries (assembled
// from the timestamps its records already carry, so an old request's timeline is as complete as a
// new one's) and the summaries of its entry types. The request's own sources (its opening and its
// amendments) are here; the documents' and the placement's live beside their repositories.

const requestTimeline: TimelineSource = {
  summaries: { 'request.opened': (d) => `Housing request ${d.reference} opened.` },
  entries: async (_tx, claim) => [{
    at: claim.created_at,
    type: 'request.opened',
    property_id: null,
    detail: { reference: claim.claim_ref, external_id: claim.external_id },
  }],
};

/** Amendments (amend.ts records them): the fields changed; from/to of the non-personal ones only. */
const amendmentTimeline: TimelineSource = {
  summaries: { 'request.amended': (d) => `Request amended: ${(d.fields as string[]).join(', ')}.` },
  entries: (tx, claim) => tx<TimelineRow[]>`
    select a.created_at as at, 'request.amended' as type, null::uuid as property_id,
           jsonb_build_object('fields', to_jsonb(a.fields), 'changes', a.changes) as detail
      from app.claim_amendments a where a.claim_id = ${claim.id}`,
};

export const timelineSources: readonly TimelineSource[] = [requestTimeline, amendmentTimeline, documentTimeline, placementTimeline, moneyTimeline];

/** Every source's entries, oldest first, each with its summary. */
export async function assembleTimeline(tx: Tx, claim: ClaimRow) {
  const parts = await Promise.all(timelineSources.map(async (source) => ({ source, rows: await source.entries(tx, claim) })));
  const entries = parts.flatMap(({ source, rows }) => rows.map((row) => ({ row, summary: source.summaries[row.type](row.detail) })));
  entries.sort((a, b) => a.row.at.getTime() - b.row.at.getTime() || (a.row.type < b.row.type ? -1 : a.row.type > b.row.type ? 1 : 0));
  return entries.map(({ row, summary }) => ({
    at: row.at.toISOString(),
    type: row.type,
    summary,
    ...(row.property_id ? { property_id: row.property_id } : {}),
    detail: row.detail,
  }));
}

/** The request `reference` and its timeline, read in one unit of work (the route opens none). */
export const timelineOf = (caller: Caller, reference: string) =>
  withTenant(caller, async (tx) => {
    const claim = await findClaim(tx, reference);
    return { claim, data: await assembleTimeline(tx, claim) };
  });
