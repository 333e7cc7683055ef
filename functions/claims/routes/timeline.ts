import { createRoutes, defineRoute, jsonResponse } from '../../../shared/http/routes.ts';
import { withTenant } from '../../../shared/db/tenant.ts';
import { findClaim } from '../repository.ts';
import { ReferenceParam, Timeline } from '../schemas.ts';

// The request's timeline, assembled from the timestamps the records already carry (so an old
// request's timeline is as complete as a new one's). Each source below is one entry type; the
// placement work adds its own (offers, responses, dates, lease, booking, payments) the same way.

interface EntryRow {
  at: Date;
  type: string;
  property_id: string | null;
  detail: Record<string, unknown>;
}

const summaries: Record<string, (detail: Record<string, unknown>) => string> = {
  'request.opened': (d) => `Housing request ${d.reference} opened.`,
  'document.added': (d) =>
    `Document "${d.filename}" (${d.kind}) added ${d.via_api ? 'through the API' : "by the service's team"}.`,
  'home.added': () => 'Home put on the request.',
};

export const timelineRoutes = createRoutes().openapi(
  defineRoute({
    method: 'get',
    path: '/{reference}/timeline',
    tags: ['Housing requests'],
    summary: "The request's history, oldest first",
    description:
      'Entries: request.opened, document.added (detail.via_api tells whether it arrived over this interface), home.added, ' +
      'and the placement entries as they happen. days_open counts whole days since opened_at.',
    scope: 'claims:read',
    request: { params: ReferenceParam },
    responses: { 200: jsonResponse(Timeline, 'The timeline.') },
    errors: { 404: 'not_found: no such request for this organisation in this environment.' },
  }),
  async (c) => {
    const { claim, entries } = await withTenant(c.get('caller'), async (tx) => {
      const claim = await findClaim(tx, c.req.valid('param').reference);
      const entries = await tx<EntryRow[]>`
        select at, type, property_id, detail from (
          select c.created_at as at, 'request.opened' as type, null::uuid as property_id,
                 jsonb_build_object('reference', c.claim_ref, 'external_id', c.external_id) as detail
            from app.claims c where c.id = ${claim.id}
          union all
          select d.created_at, 'document.added', null,
                 jsonb_build_object('document_id', d.id, 'kind', d.kind, 'filename', d.filename, 'via_api', d.uploaded_via = 'api')
            from app.claim_documents d where d.claim_id = ${claim.id}
          union all
          select h.added_at, 'home.added', h.property_id, jsonb_build_object('option_status', h.option_status)
            from app.claim_homes h where h.claim_id = ${claim.id}
        ) entries
        order by at, type`;
      return { claim, entries };
    });
    const data = entries.map((entry) => ({
      at: entry.at.toISOString(),
      type: entry.type,
      summary: summaries[entry.type](entry.detail),
      ...(entry.property_id ? { property_id: entry.property_id } : {}),
      detail: entry.detail,
    }));
    return c.json(
      { reference: claim.claim_ref, opened_at: claim.created_at.toISOString(), days_open: Math.floor((Date.now() - claim.created_at.getTime()) / 86_400_000), count: data.length, data },
      200,
    );
  },
);
