import { errorTable } from '../../shared/http/errors.ts';
import { routeDefiner } from '../../shared/http/routes.ts';

// The errors the sandbox helpers answer with (acting as the household, the landlord, the payer,
// the payment processor; the emails; the clock), besides those every route and every write can
// give: each at the status the one table of codes gives it (shared/http/errors.ts). A route of this
// group documents only codes of this table (a code outside it fails the type check), and a code
// here that no route documents fails tests/foundation/error-tables.test.ts.
export const errors = errorTable(
  'sandbox_only',
  'not_found',
  'stay_too_short',
  // The helpers answer it 409 only (alsoAt in shared/http/errors.ts).
  ['not_on_request', 409],
  'option_not_open',
  'lease_not_signable',
  'lease_not_signed',
  'already_signed',
  'already_answered',
  'proposal_pending',
  'charges_disabled',
  'nothing_due',
  'nothing_to_refund',
  'no_refund_request',
);

/** defineRoute for the sandbox helpers: their documented errors held to the table above. */
export const defineRoute = routeDefiner(errors);
