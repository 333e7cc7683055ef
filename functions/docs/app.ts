import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import { createFunctionApp } from '../../shared/http/app.ts';
import type { Context } from 'hono';
import type { AppEnv } from '../../shared/http/context.ts';
import { ApiError, errorAnchor, errorCodes, type ErrorCode } from '../../shared/http/errors.ts';
import { errorMeanings, statusesOf } from '../../shared/http/error-reference.ts';
import { escapeHtml, html, layout } from '../../shared/http/page.ts';
import { createRoutes, ErrorSchema } from '../../shared/http/routes.ts';
import { bundleStream, gzippedBundle, referenceBundle } from './reference-bundle.ts';
import { apiGroups, apiTags } from '../groups.ts';
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
        'Errors: `{ "error": { "code", "message", "field"?, "doc_url" } }`; `doc_url` is the code\'s entry on the error reference page, `/functions/v1/docs/errors#error-<code>`, which lists every code the service answers with its status, what it means and what to do.',
      ].join('\n\n'),
      contact: { name: 'Your account manager: the address given when your organisation was set up' },
    },
    servers: [{ url: '/functions/v1' }],
    tags: apiTags,
  });
  // No public licence: the API and this document are for organisations with an agreement with the service. Set here
  // because the generator takes OpenAPI 3.0's info object, whose licence has no SPDX `identifier`.
  const license = { name: "Proprietary: for use under your organisation's agreement with the service", identifier: 'LicenseRef-Proprietary' };
  return { ...document, info: { ...document.info, license }, webhooks: openApiWebhooks() };
}

let cached: ReturnType<typeof openApiDocument> | undefined;

const documentRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  tags: ['Service'],
  summary: 'The OpenAPI 3.1 document (no key needed)',
  responses: { 200: { description: 'OpenAPI document', content: { 'application/json': { schema: z.object({}).passthrough() } } } },
});

/**
 * The reference page, built from the pinned bundle and the document, both served by this function:
 * the page loads nothing from another origin (no CDN, no web fonts, no telemetry, no vendor toolbar). Addresses are
 * relative to the page, so it works at `/functions/v1/docs` and `/functions/v1/docs/`, locally and on
 * Supabase alike.
 */
function referencePage(c: Context<AppEnv>) {
  const here = new URL(c.req.url).pathname.endsWith('/') ? './' : './docs/';
  return Scalar({
    url: `${here}openapi.json`,
    cdn: `${here}assets/${referenceBundle.name}`,
    pageTitle: 'Housing Placement Service API',
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    // Its Share and Deploy buttons talk to the vendor's service.
    showDeveloperTools: 'never',
  } as Parameters<typeof Scalar>[0])(c as never, async () => {});
}

/** `code` spans of the reference's backquoted words, the rest escaped. */
const withCode = (text: string) =>
  text.split('`').map((part, i) => (i % 2 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part))).join('');

/**
 * The error reference: every code the service answers, each under its anchor (`#error-<code>`, where
 * an error's doc_url points), with its status and what it means. Plain HTML from the code's own
 * table, so it works offline like the rest of this function.
 */
function errorReferencePage(c: Context<AppEnv>) {
  const entries = (Object.keys(errorCodes) as ErrorCode[])
    .sort()
    .map((code) => `<section class="card" id="${errorAnchor(code)}"><h2><a href="#${errorAnchor(code)}"><code>${code}</code></a> · ${statusesOf(code).join(' or ')}</h2>
<p>${withCode(errorMeanings[code])}</p></section>`)
    .join('\n');
  const intro = `<section class="card"><h1>Error codes</h1><p class="muted">Every error is <code>{"error": {"code", "message", "field"?, "doc_url"}}</code>,
some with more members (<code>conflicts</code>, <code>payment</code>). <code>field</code> names the field at fault as a dot path;
<code>doc_url</code> leads here, to the code's entry. The <a href="./">API reference</a> lists the codes each operation answers.</p></section>`;
  return html(c, layout('Error codes: Housing Placement Service API', `${intro}\n${entries}`), 200);
}

/** The page's script: gzip bytes as embedded when the client accepts gzip, else decompressed. */
function referenceScript(c: Context<AppEnv>) {
  if (c.req.param('name') !== referenceBundle.name) {
    throw new ApiError('not_found', `No endpoint at /functions/v1${new URL(c.req.url).pathname}.`);
  }
  const headers: Record<string, string> = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=31536000, immutable',
    vary: 'Accept-Encoding',
  };
  if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
    return c.body(gzippedBundle(), 200, { ...headers, 'content-encoding': 'gzip' });
  }
  return c.body(bundleStream(), 200, headers);
}

export const routes = createRoutes()
  .openapi(documentRoute, (c) => c.json((cached ??= openApiDocument()) as unknown as Record<string, unknown>, 200))
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Service'],
      summary: 'Interactive API reference (no key needed)',
      description: 'Served entirely by this function (also at `/docs/`): it makes no request to another origin.',
      responses: { 200: { description: 'HTML page' } },
    }),
    referencePage as never,
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/errors',
      tags: ['Service'],
      summary: 'Error reference (no key needed)',
      description: "Every error code with its status, what it means and what to do, each at `#error-<code>`: where an error's `doc_url` points.",
      responses: { 200: { description: 'HTML page' } },
    }),
    errorReferencePage as never,
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/assets/{name}',
      tags: ['Service'],
      summary: "The reference page's script (no key needed)",
      description: `The pinned ${referenceBundle.package}@${referenceBundle.version} browser build; cacheable for good (the name carries the version).`,
      request: { params: z.object({ name: z.string() }) },
      responses: {
        200: { description: 'JavaScript (gzip-encoded when the client accepts gzip)' },
        404: { description: 'No such asset (not_found)', content: { 'application/json': { schema: ErrorSchema } } },
      },
    }),
    referenceScript as never,
  );

export const app = createFunctionApp('docs', routes, { public: true });
