import { errorTable } from '../../shared/http/errors.ts';
import { routeDefiner } from '../../shared/http/routes.ts';

// The errors the usage routes answer with: only those every route and every write can give, each
// at the status the one table of codes gives it (shared/http/errors.ts). A route of this group
// documents only codes of this table (a code outside it fails the type check).
export const errors = errorTable();

/** defineRoute for the usage routes: their documented errors held to the table above. */
export const defineRoute = routeDefiner(errors);
