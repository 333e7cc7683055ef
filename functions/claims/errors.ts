import { errorTable } from '../../shared/http/errors.ts';
import { routeDefiner } from '../../shared/http/routes.ts';

// The errors the claims routes answer with (requests, sourcing, documents, timeline, the
// placement and the booking), besides those every route and every write can give: each at the
// status the one table of codes gives it (shared/http/errors.ts). A route of this group documents
// only codes of this table (a code outside it fails the type check), and a code here that no route
// documents fails tests/foundation/error-tables.test.ts.
export const errors = errorTable(
  'could_not_create',
  'could_not_place',
  'could_not_set_dates',
  'not_yours',
  'not_found',
  // At both its statuses: 404 on some routes, 409 on others (alsoAt in shared/http/errors.ts).
  'not_on_request',
  'unsupported_type',
  'stay_too_short',
  'budget_not_approved',
  'dates_unavailable',
  'option_not_open',
  'already_signed',
  'already_paid',
  'not_booked',
  'move_in_not_yet',
  'extension_pending',
  'no_proposal',
  'nothing_to_refund',
  'refund_pending',
  'no_coordinator',
  'no_billing_account',
  'not_configured',
);

/** defineRoute for the claims routes: their documented errors held to the table above. */
export const defineRoute = routeDefiner(errors);
