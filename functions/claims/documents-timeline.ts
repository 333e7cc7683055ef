import type { TimelineRow, TimelineSource } from '../../shared/claims/timeline-source.ts';

// The documents on the request's timeline: one entry per document filed, from its own row.

export const documentTimeline: TimelineSource = {
  summaries: {
    'document.added': (d) => `Document "${d.filename}" (${d.kind}) added ${d.via_api ? 'through the API' : "by the service's team"}.`,
  },
  entries: (tx, claim) => tx<TimelineRow[]>`
    select d.created_at as at, 'document.added' as type, null::uuid as property_id,
           jsonb_build_object('document_id', d.id, 'kind', d.kind, 'filename', d.filename, 'via_api', d.uploaded_via = 'api') as detail
      from app.claim_documents d where d.claim_id = ${claim.id}`,
};
