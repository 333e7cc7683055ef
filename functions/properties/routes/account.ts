import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { allows } from '../../../shared/http/scopes.ts';
import { PayoutStatus } from '../../../shared/properties/payouts.ts';
import { bookingsPage, payoutStatus } from '../account.ts';
import { setupPageUrl } from '../../../shared/placements/commands/payout-setup.ts';
import { renderBooking } from '../bookings-repository.ts';
import { cursorRowId, pageQuery, pageSizes, rowPage } from '../../../shared/http/paging.ts';
import { Booking } from '../schemas.ts';

// The provider's account: bookings with earnings, and the payout account status.

export const accountRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/bookings',
      operationId: 'listBookings',
      tags: ['Bookings and payouts'],
      summary: "Bookings in the provider's homes, with earnings",
      description:
        'Newest first, keyset-paged. Each settled charge shows `gross` (what the payer was charged), `platform_fee` (the service\'s fee, ' +
        'from rent only), `processing_fee` (the card processor\'s fee on the whole charge) and `net_to_you`. Failed charges are not listed.',
      scope: 'bookings:read',
      request: { query: pageQuery(pageSizes.bookings) },
      responses: { 200: jsonResponse(pageOf(Booking), 'One page of bookings.') },
      errors: {
        422: {
          invalid_field: 'a bad limit or cursor.',
        },
      },
    }),
    async (c) => {
      const { limit, cursor } = c.req.valid('query');
      const rows = await bookingsPage(c.get('caller'), { limit, after: cursorRowId(cursor) });
      return c.json(rowPage(rows, limit, renderBooking), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/payouts',
      operationId: 'getPayoutAccount',
      tags: ['Bookings and payouts'],
      summary: 'Payout account status',
      description: [
        'Setup happens in a browser at the payment processor (`finish_setup_url`), not through this interface. Live accounts start not ' +
          'connected; sandbox accounts start connected with charges and payouts enabled. While `charges_enabled` is false no family can ' +
          "be placed in the provider's homes.",
        '`payouts:read` reads the state and writes nothing. The setup link starts onboarding at the processor, so it is a write: ' +
          '`finish_setup_url` is given only to a key that also holds `properties:write` (call this route with such a key to get it); ' +
          'for a key without it the field is null whatever the state, and `onboarding_status` says whether setup is still to finish.',
      ].join('\n\n'),
      scope: 'payouts:read',
      responses: { 200: jsonResponse(dataOf(PayoutStatus), "The account of the key's environment.") },
    }),
    async (c) => {
      const caller = c.get('caller');
      // The link's page asks for bank and identity details and starts the processor's onboarding:
      // a read scope does not hand it out.
      const link = !allows('properties:write', caller.scopes)
        ? false
        : { liveSetupUrl: caller.environment === 'live' ? await setupPageUrl(caller.orgId) : undefined };
      return c.json(single(await payoutStatus(caller, link)), 200);
    },
  );
