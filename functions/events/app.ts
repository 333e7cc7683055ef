import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';

export const routes = createRoutes();

export const app = createFunctionApp('events', routes);
