import { createRoutes, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { ReferenceParam, Timeline } from '../schemas.ts';
import { timelineOf } from '../timeline.ts';

// The request's timeline: the entries of every source of ../timeline.ts, oldest first.

export const timelineRoutes = createRoutes().openapi(
  defineRoute({
    method: 'get',
    path: '/{reference}/timeline',
    operationId: 'getHousingRequestTimeline',
    tags: ['Housing requests'],
    summary: "The request's history, oldest first",
    description:
      'Entries, oldest first. Each is written once: its words and detail are those of its moment, and a later change is an entry ' +
      'of its own. request.opened, request.amended (each PATCH that changed something: detail.fields names every changed field; ' +
      'detail.changes gives from and to of the non-personal ones only, never of contact details, accessibility_needs or pet_details), ' +
      'document.added (detail.via_api tells whether it arrived over this interface), home.added (detail.option_status: sent or approved, ' +
      'as the home went on the request), home.offered, home.placed, application.approved, application.declined (detail.reason), ' +
      'household.responded (detail.action; the decline reason, the proposed dates), dates.set, dates.changed (both ranges; a stay ' +
      'shortened: shortened and refund_due; an extension in effect: extended and addendum_id), lease.sent, lease.signed_by_recipient, ' +
      'lease.signed_by_owner (an extension addendum\'s: detail.addendum), booking.created (the dates the booking was confirmed for), ' +
      'move_in.confirmed, payment.succeeded (amount and service fee), payment.duplicate, payment.refunded, refund.declined, ' +
      'deposit.refund_requested. Beyond the specification: booking.cancelled (detail.reason), booking.completed (the stay closed out ' +
      'on its move-out date), payment.failed (each failed charge, with amount and failure_reason; it stays when the same payment later ' +
      'clears), payment.refund_failed (an approved refund the service could not issue after its attempts, with its amount; ' +
      'payment.refunded follows when staff retry it), extension.requested (previous_move_out_date and the asked move_out_date), extension.declined (by the landlord), ' +
      'extension.lapsed (not signed and paid when the stay ended), extension.cancelled (withdrawn with the cancelled placement), ' +
      'extension.stay_shortened (withdrawn by a shortening of the stay before it took effect), ' +
      'extension.withdrawn (withdrawn before the service recorded why) and household_link.undelivered (the email with the ' +
      "household's link did not go out: detail.reason not_configured or failed, with detail.error: the missing settings, or a fixed phrase for failed). days_open counts whole days since opened_at.",
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
    const { claim, data } = await timelineOf(c.get('caller'), c.req.valid('param').reference);
    return c.json(
      { reference: claim.claim_ref, opened_at: claim.created_at.toISOString(), days_open: Math.floor((Date.now() - claim.created_at.getTime()) / 86_400_000), count: data.length, data },
      200,
    );
  },
);
