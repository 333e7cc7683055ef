import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { Context, Next } from 'hono';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes } from '../../shared/http/routes.ts';
import { apiGroups } from '../groups.ts';
import { openApiWebhooks } from '../../shared/events/registry.ts';

/** One OpenAPI 3.1 document for every function, built from the routes' own schemas. */
export function openApiDocument() {
  const all = new OpenAPIHono();
  for (const group of apiGroups) all.route(`/${group.name}`, group.routes);
  all.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer svc_pk_... (live) or svc_sk_... (sandbox)',
  });
  all.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
  });
  const document = all.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Housing Placement Service API',
      version: 'v1',
      description: [
        'Carriers open housing requests and place households in temporary homes; providers publish homes and keep calendars current.',
        'Keys: `svc_pk_` live, `svc_sk_` sandbox. Every response carries `X-Request-Id` and `X-RateLimit-Limit/Remaining/Reset`.',
        'Writes accept an `Idempotency-Key` (48 hours, per organisation and environment).',
        'Errors: `{ "error": { "code", "message", "field"? } }`.',
      ].join('\n\n'),
    },
    servers: [{ url: '/functions/v1' }],
  });
  return { ...document, webhooks: openApiWebhooks() };
}

let cached: ReturnType<typeof openApiDocument> | undefined;

const documentRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  tags: ['Service'],
  summary: 'The OpenAPI 3.1 document (no key needed)',
  responses: { 200: { description: 'OpenAPI document', content: { 'application/json': { schema: z.object({}).passthrough() } } } },
});

const page = Scalar({ url: './docs/openapi.json', pageTitle: 'Housing Placement Service API' });
const slashedPage = Scalar({ url: './openapi.json', pageTitle: 'Housing Placement Service API' });

export const routes = createRoutes()
  .openapi(documentRoute, (c) => c.json((cached ??= openApiDocument()) as unknown as Record<string, unknown>, 200))
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Service'],
      summary: 'Interactive API reference (no key needed)',
      responses: { 200: { description: 'HTML page' } },
    }),
    // Relative to the page, so it works locally and on Supabase alike; `/docs/` (a trailing slash
    // routes as without) resolves relative URLs one folder deeper.
    ((c: Context, next: Next) => (new URL(c.req.url).pathname.endsWith('/') ? slashedPage : page)(c, next)) as never,
  );

export const app = createFunctionApp('docs', routes, { public: true });
