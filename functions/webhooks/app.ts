import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { endpointRoutes } from './routes/endpoints.ts';

// Webhook endpoints of the caller's organisation in the key's environment, and their deliveries.
// The fixed path /deliveries is mounted before the endpoints' /{id}.
export const routes = createRoutes().route('/', deliveryRoutes).route('/', endpointRoutes);

export const app = createFunctionApp('webhooks', routes);

/** The group's table of errors, for the tests that hold its routes to it. */
export { errors } from './errors.ts';
