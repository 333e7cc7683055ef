import { errorTable } from '../../shared/http/errors.ts';
import { routeDefiner } from '../../shared/http/routes.ts';

// The errors the provider's routes answer with (homes, availability and calendars, bookings and
// payouts, applications, refund requests), besides those every route and every write can give:
// each at the status the one table of codes gives it (shared/http/errors.ts). A route of this group
// documents only codes of this table (a code outside it fails the type check), and a code here that
// no route documents fails tests/foundation/error-tables.test.ts.
export const errors = errorTable(
  'not_found',
  'not_yours_to_release',
  'option_not_open',
  'already_answered',
  'nothing_to_refund',
  'no_refund_request',
);

/** defineRoute for the provider's routes: their documented errors held to the table above. */
export const defineRoute = routeDefiner(errors);
