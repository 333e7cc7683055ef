import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { payoutRoutes } from './payouts.ts';

// Sandbox counterpart helpers (operating contract §3): one module per counterpart, each mounted here.
export const routes = createRoutes().route('/', payoutRoutes);

export const app = createFunctionApp('sandbox', routes);
