// The generated security matrix (matrix.ts) for the housing-request and sandbox helper routes, the
// heaviest to set up; every other group's routes are in other-groups.matrix.test.ts.
import { securityMatrix } from './matrix.ts';
import { heavyGroups } from './routes.ts';

securityMatrix((route) => heavyGroups.includes(route.group));
