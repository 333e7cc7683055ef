import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { catalogueRoutes } from './routes/catalogue.ts';
import { logRoutes } from './routes/log.ts';

// Both sides' events: the catalogue and simulate (driven by the event registry), and the event log
// with replay. The fixed paths (/types, /simulate) are mounted before the log's /{id}.
export const routes = createRoutes().route('/', catalogueRoutes).route('/', logRoutes);

export const app = createFunctionApp('events', routes);

/** The group's table of errors, for the tests that hold its routes to it. */
export { errors } from './errors.ts';
