// The generated security matrix (matrix.ts) for every group but those of carrier-placement.matrix.test.ts.
import { securityMatrix } from './matrix.ts';
import { heavyGroups } from './routes.ts';

securityMatrix((route) => !heavyGroups.includes(route.group));
