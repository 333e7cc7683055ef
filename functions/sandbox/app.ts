import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { sandboxOnly } from './guard.ts';
import { payoutRoutes } from './routes/payouts.ts';
import { counterpartRoutes } from './routes/counterparts.ts';
import { paymentRoutes } from './routes/payment.ts';
import { clockRoutes } from './routes/clock.ts';

// Sandbox counterpart helpers (operating contract §3): one module per counterpart, each mounted
// here behind the sandbox-only check, which runs before each route's scope check and validation.
export const routes = createRoutes();
routes.use('*', sandboxOnly());
routes.route('/', payoutRoutes);
routes.route('/', counterpartRoutes);
routes.route('/', paymentRoutes);
routes.route('/', clockRoutes);

export const app = createFunctionApp('sandbox', routes);

/** The group's table of errors, for the tests that hold its routes to it. */
export { errors } from './errors.ts';
