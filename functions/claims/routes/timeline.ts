import { createRoutes, defineRoute, jsonResponse } from '../../../shared/http/routes.ts';
import { withTenant } from '../../../shared/db/tenant.ts';
import { findClaim } from '../../../shared/claims/repository.ts';
import { ReferenceParam, Timeline } from '../schemas.ts';
import { assembleTimeline } from '../timeline.ts';

// The request's timeline: the entries of every source of ../timeline.ts, oldest first.

export const timelineRoutes = createRoutes().openapi(
  defineRoute({
    method: 'get',
    path: '/{reference}/timeline',
    tags: ['Housing requests'],
    summary: "The request's history, oldest first",
    description:
      'Entries: request.opened, request.amended (each PATCH that changed something: detail.fields names every changed field; ' +
      'detail.changes gives from and to of the non-personal ones only, never of contact details, accessibility_needs or pet_details), ' +
      'document.added (detail.via_api tells whether it arrived over this interface), home.added, home.offered, ' +
      'home.placed, household.responded (detail.action; the decline reason), dates.set, dates.changed (both ranges), lease.sent, ' +
      'lease.signed_by_recipient, lease.signed_by_owner. days_open counts whole days since opened_at.',
    scope: 'claims:read',
    request: { params: ReferenceParam },
    responses: { 200: jsonResponse(Timeline, 'The timeline.') },
    errors: {
      404: {
        not_found: 'no such request for this organisation in this environment.',
      },
    },
  }),
  async (c) => {
    const { claim, data } = await withTenant(c.get('caller'), async (tx) => {
      const claim = await findClaim(tx, c.req.valid('param').reference);
      return { claim, data: await assembleTimeline(tx, claim) };
    });
    return c.json(
      { reference: claim.claim_ref, opened_at: claim.created_at.toISOString(), days_open: Math.floor((Date.now() - claim.created_at.getTime()) / 86_400_000), count: data.length, data },
      200,
    );
  },
);
