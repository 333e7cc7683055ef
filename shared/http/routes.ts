import { createRoute, OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';
import { allows, describeRule, type ScopeRule } from './scopes.ts';

// Route definitions: every route declares its scope and its zod schemas once; the same
// definition validates input, enforces the scope and produces the OpenAPI document.

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_field' }),
      message: z.string(),
      field: z.string().optional(),
    }).passthrough(),
  })
  .openapi('Error');

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorSchema } },
});

/** Error responses every authenticated route can give. */
const commonErrors = {
  400: errorResponse('The body could not be read (invalid_json) or the write was refused.'),
  401: errorResponse('Key missing (missing_key) or not a valid organisation key (invalid_key).'),
  403: errorResponse('The key lacks the scope (forbidden); the message names it.'),
  422: errorResponse('A field is missing or wrong (invalid_field); `field` names it.'),
  429: errorResponse('Over the per-minute limit (rate_limited); see Retry-After.'),
  500: errorResponse('Server fault (server_error); retry with backoff.'),
};

const writeErrors = {
  409: errorResponse('The call does not fit the current state, or the Idempotency-Key conflicts (idempotency_key_reused, request_in_progress).'),
};

export const requireScope = (rule: ScopeRule): MiddlewareHandler<AppEnv> => async (c, next) => {
  const caller = c.get('caller');
  if (!caller || !allows(rule, caller.scopes)) {
    throw new ApiError('forbidden', `This call needs ${describeRule(rule)}; the key does not have it.`);
  }
  await next();
};

const isWrite = (method: string) => method !== 'get';

type Extra = {
  scope: ScopeRule;
  /** Errors specific to the route: status to description (codes named in the description). */
  errors?: Record<number, string>;
};

/**
 * createRoute with the service's conventions: the scope check as the route's first middleware,
 * bearer/x-api-key security, the Idempotency-Key header on writes, and the shared error responses.
 */
export function defineRoute<const R extends Omit<RouteConfig, 'middleware'>>(config: R & Extra) {
  const { scope, errors = {}, ...route } = config;
  const routeErrors = Object.fromEntries(Object.entries(errors).map(([status, text]) => [status, errorResponse(text)]));
  const write = isWrite(route.method);
  const description = [route.description, `Requires: ${describeRule(scope)}.`].filter(Boolean).join('\n\n');
  return createRoute({
    ...route,
    description,
    // The rule, machine-readable: the security tests generate their cases from it.
    'x-scope': scope,
    middleware: [requireScope(scope)] as const,
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    ...(write
      ? {
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header' as const,
              required: false,
              description: 'Makes the write safe to retry for 48 hours (at most 255 characters).',
              schema: { type: 'string' as const, maxLength: 255 },
            },
          ],
        }
      : {}),
    responses: { ...commonErrors, ...(write ? writeErrors : {}), ...routeErrors, ...route.responses },
  } as unknown as R & { middleware: [MiddlewareHandler<AppEnv>] });
}

/** The scope rule a route was defined with (its operation's `x-scope`). */
export const scopeOf = (route: RouteConfig): ScopeRule | undefined => (route as { 'x-scope'?: ScopeRule })['x-scope'];

/** Turns the first zod issue into the specification's 422 invalid_field naming the field. */
export function validationError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]].join('.');
    return new ApiError('invalid_field', `${field} is not a known field.`, field);
  }
  const field = path.join('.') || 'body';
  // zod does not keep the input; its message for an absent value ends in "received undefined".
  const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  const message = missing ? `${field} is required.` : `${field}: ${issue.message}`;
  return new ApiError('invalid_field', message, field);
}

/** A group's routes: an OpenAPIHono whose failed validations become 422 invalid_field. */
export function createRoutes() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}

export type Routes = ReturnType<typeof createRoutes>;

/** A required JSON request body with the given schema. */
export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema } },
});

/** A JSON response with the given schema. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** `{ data: T }`, the envelope of a single resource. */
export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/** `{ data: T[], count, next_cursor }`, the envelope of a paged list. */
export const pageOf = <T extends z.ZodType>(schema: T) =>
  z.object({ data: z.array(schema), count: z.number().int(), next_cursor: z.string().nullable() });
