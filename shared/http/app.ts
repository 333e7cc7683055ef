import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './context.ts';
import { ApiError, refusalOf } from './errors.ts';
import { authenticate } from './middleware/authenticate.ts';
import { readBody } from './middleware/body.ts';
import { loggablePath, requestId } from './middleware/request-id.ts';
import { countUsage } from './middleware/usage.ts';
import type { Routes } from './routes.ts';
import { log, errorFields } from '../log.ts';
import { errorFingerprint } from './fingerprint.ts';

interface KnownRoute {
  method: string;
  pattern: RegExp;
  takesBody: boolean;
}

/** The group's declared routes, as full paths under the function name (`/claims/{reference}`). */
function knownRoutes(name: string, routes: Routes): KnownRoute[] {
  return routes.openAPIRegistry.definitions.flatMap((definition) => {
    if (definition.type !== 'route') return [];
    const path = `/${name}${definition.route.path === '/' ? '' : definition.route.path}`;
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return [{ method: definition.route.method.toUpperCase(), pattern: new RegExp(`^${source}/?$`), takesBody: Boolean(definition.route.request?.body) }];
  });
}

/** 404 not_found for a path no route has; 405 (with Allow) for a known path and another method. */
const routeExists = (known: KnownRoute[]): MiddlewareHandler<AppEnv> => async (c, next) => {
  // Hono's path (parsed once per request; without a trailing slash, which every pattern allows);
  // the path as sent only for the messages.
  const matching = known.filter((r) => r.pattern.test(c.req.path));
  const methods = matching.map((r) => r.method);
  const path = () => new URL(c.req.url).pathname;
  if (methods.length === 0) throw new ApiError('not_found', `No endpoint at /functions/v1${path()}.`);
  const requested = c.req.method;
  const method = requested === 'HEAD' ? 'GET' : requested;
  if (!methods.includes(method)) {
    c.header('Allow', [...new Set(methods)].join(', '));
    throw new ApiError('method_not_allowed', `${requested} is not allowed on /functions/v1${path()}; use ${[...new Set(methods)].join(' or ')}.`);
  }
  c.set('takesBody', matching.some((r) => r.method === method && r.takesBody));
  await next();
};

/** The one place where failures become responses of the specification's error shape. */
export async function renderError(error: Error, c: Context<AppEnv>) {
  // The API's own refusals, and the domains' mapped to their statuses (shared/http/errors.ts).
  let apiError = refusalOf(error);
  if (apiError) {
    // answered as it is
  } else if (error instanceof HTTPException && (error.status === 400 || error.status === 415)) {
    // Hono's JSON validator and media-type gate: malformed JSON, or a body sent as something else.
    apiError = new ApiError('invalid_json', 'The body could not be read as JSON; send valid JSON with Content-Type: application/json.');
  } else {
    // Every 500 is one log line an operator can group (fingerprint) and trace (request id); the
    // usage counter records it under 5xx.
    log.error('unhandled error', {
      request_id: c.get('requestId'),
      fingerprint: await errorFingerprint(error),
      method: c.req.method,
      path: loggablePath(new URL(c.req.url).pathname),
      ...errorFields(error),
    });
    apiError = new ApiError('server_error', 'Something went wrong on our side. Retry with backoff; quote the X-Request-Id if it persists.');
  }
  // The calling key's environment, where the request was authenticated: a 404 says what the other
  // environment may hold (NotFound).
  return c.json(apiError.toBody(c.get('caller')?.environment), apiError.status as 400);
}

/**
 * One edge function: the shared middleware in the order docs/architecture.md describes (request id,
 * auth and rate limit, route check, body; the scope check, then idempotency on writes, then
 * validation run per route, see defineRoute), then the group's routes under `/<name>`, the path at
 * which Supabase hands requests to a function.
 * Public functions (health, docs) skip authentication.
 */
export function createFunctionApp(name: string, routes: Routes, options: { public?: boolean } = {}) {
  const app = functionApp();
  app.use('*', requestId());
  if (!options.public) app.use('*', authenticate(), countUsage());
  app.use('*', routeExists(knownRoutes(name, routes)));
  if (!options.public) app.use('*', readBody());
  app.route(`/${name}`, routes);
  return app;
}

/**
 * The Hono app every function starts from, on both runtimes: a trailing slash names the same route
 * as without (`/health/` is `/health`), and a path no route has is the JSON 404 naming it, never
 * Hono's text/plain default.
 */
export function functionApp() {
  const app = new Hono<AppEnv>({ strict: false });
  app.notFound((c) => renderError(new ApiError('not_found', `No endpoint at /functions/v1${new URL(c.req.url).pathname}.`), c));
  app.onError(renderError);
  return app;
}
