import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { usageRoutes } from './routes/usage.ts';

// The calling key's usage, and revoking it.
export const routes = createRoutes().route('/', usageRoutes);

export const app = createFunctionApp('usage', routes);

/** The group's table of errors, for the tests that hold its routes to it. */
export { errors } from './errors.ts';
