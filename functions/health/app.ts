import { createRoute, z } from '@hono/zod-openapi';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, jsonResponse } from '../../shared/http/routes.ts';
import { single } from '../../shared/http/envelope.ts';

export const routes = createRoutes().openapi(
  createRoute({
    method: 'get',
    path: '/',
    tags: ['Service'],
    summary: 'Health check (no key needed)',
    responses: { 200: jsonResponse(z.object({ data: z.object({ status: z.literal('ok') }) }), 'The service accepts traffic.') },
  }),
  (c) => c.json(single({ status: 'ok' as const }), 200),
);

export const app = createFunctionApp('health', routes, { public: true });
