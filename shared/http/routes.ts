import { createRoute, OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.ts';
import { ApiError, apiErrors, type ErrorCode, type errorCodes, type ErrorTable, type everyRouteCodes, type everyWriteCodes } from './errors.ts';
import { allows, describeRule, type ScopeRule } from './scopes.ts';
import { idempotency } from './middleware/idempotency.ts';
import { boolSetting } from '../config.ts';
import { invalid, type DomainError } from '../domain-errors.ts';

// Route definitions: every route declares its scope and its zod schemas once; the same
// definition validates input, enforces the scope and produces the OpenAPI document.

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_field' }),
      message: z.string(),
      field: z.string().optional(),
      doc_url: z.string().url().describe(
        "The code's entry in the error reference (GET /docs/errors, anchored `#error-<code>`): what it means and what to do. Built from the service's public address.",
      ).openapi({ example: 'https://project-ref.supabase.co/functions/v1/docs/errors#error-invalid_field' }),
    }).passthrough(),
  })
  .openapi('Error');

type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

/** The codes a route of a group whose table is T may document under status S: those the table holds at S. */
export type CodesAt<T extends ErrorTable, S extends ErrorStatus> = { [C in keyof T]-?: T[C] extends readonly (infer N)[] | undefined ? (S extends N ? C : never) : never }[keyof T];

/**
 * A route's errors: by status, each code it can answer with and when. The OpenAPI document's error
 * responses are built from these (their `code` an enum of exactly these codes), so the document, the
 * group's table of errors and the route cannot drift: a misspelt code, a code outside the group's
 * table, or a code under a status the table does not give it, fails the type check.
 */
export type RouteErrors<T extends ErrorTable = typeof apiErrors> = { [S in ErrorStatus]?: Partial<Record<CodesAt<T, S>, string>> };

/**
 * Holds a route's inferred errors to RouteErrors<T> exactly: a code not allowed under its status (or
 * not in the table at all) becomes `never`, so its description fails to compile. Without it the
 * route's inferred type would carry the extra code past the check.
 */
type ExactErrors<R, T extends ErrorTable> = R extends { errors: infer E }
  ? { errors: { [S in keyof E]: AsStatus<S> extends ErrorStatus ? { [C in keyof E[S]]: C extends CodesAt<T, AsStatus<S>> ? string : never } : never } }
  : unknown;

/** A status key as a number (a spread object's keys arrive as strings). */
type AsStatus<S> = S extends `${infer N extends number}` ? N : S;

/** Errors naming exactly the codes C, each under its own status (every one of them, nothing else). */
type ErrorsNaming<C extends ErrorCode> = { [S in (typeof errorCodes)[C]]: { [K in C as (typeof errorCodes)[K] extends S ? K : never]: string } };

/** The errors every authenticated route can give (everyRouteCodes, in every group's table). */
const commonErrors: ErrorsNaming<(typeof everyRouteCodes)[number]> = {
  400: { invalid_json: 'the body could not be read: not JSON, not UTF-8, or a key named twice in one object (`field` names it).' },
  401: { missing_key: 'no key was sent.', invalid_key: 'the key is not a valid organisation key.' },
  403: { forbidden: 'the key lacks the scope; the message names it.' },
  422: { invalid_field: 'a field is missing or wrong; `field` names it.' },
  429: { rate_limited: 'over the per-minute limit; see Retry-After.' },
  500: { server_error: 'server fault; retry with backoff.' },
};

/** The errors every write can give besides (everyWriteCodes; a write's body is read within the limit, a GET's is never read). */
const writeErrors: ErrorsNaming<(typeof everyWriteCodes)[number]> = {
  400: { idempotency_key_too_long: 'the Idempotency-Key is over 255 characters.' },
  413: { file_too_large: 'the body is over 10 MB (a multipart upload may add 64 KB of framing); nothing past the limit is read.' },
  409: {
    idempotency_key_reused: 'the Idempotency-Key was used with a different method, path or body.',
    request_in_progress: 'the first call with the Idempotency-Key is still running.',
    idempotent_answer_lost: 'the first call with the Idempotency-Key made its change, but the server stopped before keeping its answer: the change is not made again; read the resource.',
  },
};

/** The common and the route's errors of each status, merged (the route's text wins for a code both name). */
function mergeErrors(...sets: RouteErrors<ErrorTable>[]): Map<number, Map<string, string>> {
  const merged = new Map<number, Map<string, string>>();
  for (const set of sets) {
    for (const [status, codes] of Object.entries(set)) {
      const into = merged.get(Number(status)) ?? merged.set(Number(status), new Map()).get(Number(status))!;
      for (const [code, when] of Object.entries(codes as Record<string, string>)) into.set(code, when);
    }
  }
  return merged;
}

/** One status's error response: the codes as an enum, each with its condition in the description. */
function errorResponse(codes: Map<string, string>) {
  const list = [...codes.keys()] as [string, ...string[]];
  return {
    description: `${[...codes].map(([code, when]) => `${code}: ${when.replace(/\.$/, '')}`).join('; ')}.`,
    content: {
      'application/json': {
        // The shared Error object, with `code` narrowed to this status's codes.
        schema: ErrorSchema.and(z.object({ error: z.object({ code: z.enum(list) }) })),
      },
    },
  };
}

export const requireScope = (rule: ScopeRule): MiddlewareHandler<AppEnv> => async (c, next) => {
  const caller = c.get('caller');
  if (!caller || !allows(rule, caller.scopes)) {
    throw new ApiError('forbidden', `This call needs ${describeRule(rule)}; the key does not have it.`);
  }
  await next();
};

const isWrite = (method: string) => method !== 'get';

type Responses = Record<string, { content?: Record<string, { schema: unknown }> }>;

/**
 * With STRICT_RESPONSES=true (the test suite), every JSON answer is checked against the schema the
 * route documents for its status, so an answer that drifts from the document (a null where the
 * document promises a value, a value outside an enum) fails the test that made it, as the typed
 * client would be wrong about it. Off in service: it costs a parse per answer.
 */
const checkResponse = (responses: Responses): MiddlewareHandler<AppEnv> => async (c, next) => {
  await next();
  const schema = responses[String(c.res.status)]?.content?.['application/json']?.schema;
  if (!(schema instanceof z.ZodType) || !c.res.headers.get('content-type')?.includes('application/json')) return;
  const result = schema.safeParse(await c.res.clone().json());
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`${c.req.method} ${c.req.path} answered ${c.res.status} outside its documented schema: ${problems}`);
  }
};

type Extra<T extends ErrorTable> = {
  /**
   * The operation's name in the document, unique across it, for what the route does
   * (`createHousingRequest`): SDK generators name their methods by it, so a published one is never
   * renamed (tests/foundation/operation-ids.json holds them).
   */
  operationId: string;
  scope: ScopeRule;
  /** Errors specific to the route, by status and code (merged with the common ones), from its group's table. */
  errors?: RouteErrors<T>;
};

/**
 * The defineRoute of a route group whose table of errors is `table` (functions/<group>/errors.ts):
 * createRoute with the service's conventions: the scope check as the route's first middleware and,
 * on writes, the Idempotency-Key's lookup after it (a key without the scope is refused before its
 * Idempotency-Key is read or remembered, so it neither sees another key's answer nor claims the
 * key), bearer/x-api-key security, the Idempotency-Key header on writes, and the error responses:
 * the common ones and the route's, each code at a status its group's table holds (typed, and
 * checked again as the route is built, so the group's part of the document is built through its table).
 */
export function routeDefiner<T extends ErrorTable>(table: T) {
  return function defineRoute<const R extends Omit<RouteConfig, 'middleware'>>(config: R & Extra<T> & ExactErrors<R, T>) {
    return buildRoute(table, config);
  };
}

/** defineRoute held to every code of the API (apiErrors): for routes outside a group, such as the tests' probes. */
export const defineRoute = routeDefiner(apiErrors);

function buildRoute<R extends Omit<RouteConfig, 'middleware'>>(table: ErrorTable, config: R & Extra<ErrorTable>) {
  const { scope, errors = {}, ...route } = config;
  const write = isWrite(route.method);
  const merged = mergeErrors(commonErrors, write ? writeErrors : {}, errors);
  for (const [status, codes] of merged) {
    for (const code of codes.keys()) {
      if (!table[code as ErrorCode]?.includes(status)) {
        throw new Error(`${route.method.toUpperCase()} ${route.path}: ${code} at ${status} is not in its group's table of errors`);
      }
    }
  }
  const errorResponses = Object.fromEntries([...merged].map(([status, codes]) => [status, errorResponse(codes)]));
  const description = [route.description, `Requires: ${describeRule(scope)}.`].filter(Boolean).join('\n\n');
  return createRoute({
    ...route,
    description,
    // The rule, machine-readable: the security tests generate their cases from it.
    'x-scope': scope,
    middleware: [
      requireScope(scope),
      ...(write ? [idempotency()] : []),
      ...(boolSetting('STRICT_RESPONSES', false) ? [checkResponse({ ...errorResponses, ...route.responses } as Responses)] : []),
    ] as unknown as readonly [MiddlewareHandler<AppEnv>],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    ...(write
      ? {
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header' as const,
              required: false,
              description:
                'Makes the write safe to retry for 48 hours (at most 255 characters): the same method, path and body with the same key, from any API key of the organisation and environment holding the route\'s scope, replays the first answer (Idempotent-Replayed: true), except a secret it issued, which is null in the replay. The scope is checked first: a key without it is 403 forbidden and its Idempotency-Key is not looked at.',
              schema: { type: 'string' as const, minLength: 1, maxLength: 255 },
            },
          ],
        }
      : {}),
    responses: { ...errorResponses, ...route.responses },
  } as unknown as R & { middleware: [MiddlewareHandler<AppEnv>] });
}

/** The scope rule a route was defined with (its operation's `x-scope`). */
export const scopeOf = (route: RouteConfig): ScopeRule | undefined => (route as { 'x-scope'?: ScopeRule })['x-scope'];

/**
 * Turns the first zod issue into the specification's 422 invalid_field naming the field. `schema` is
 * the schema that refused the input: with it, an unknown field names the nearest known one of the
 * object it was sent in (`houshold_language is not a known field; did you mean household_language?`).
 * Every strict object of every route, batch item and simulated payload is refused here, so the hint
 * is given once for all of them. The refusal is the domain's `invalid` (a batch hands a refused item
 * to its command as a value), answered 422 like every other.
 */
export function validationError(error: z.ZodError, schema?: unknown): DomainError<'invalid'> {
  const issue = error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]].join('.');
    const nearest = nearestField(issue.keys[0], knownFieldsAt(schema, issue.path));
    const hint = nearest === undefined ? '' : `; did you mean ${[...path, nearest].join('.')}?`;
    return invalid('invalid_field', `${field} is not a known field${hint || '.'}`, field);
  }
  const field = path.join('.') || 'body';
  // zod does not keep the input; its message for an absent value ends in "received undefined".
  const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  const message = missing ? `${field} is required.` : `${field}: ${issue.message}`;
  return invalid('invalid_field', message, field);
}

/** What a zod schema's definition holds, as far as walking to a field needs it. */
interface SchemaDef {
  type?: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  in?: unknown;
  getter?: () => unknown;
  options?: unknown[];
  left?: unknown;
  right?: unknown;
  valueType?: unknown;
  items?: unknown[];
}

const defOf = (schema: unknown): SchemaDef | undefined => (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;

/**
 * The field names of the objects `schema` may hold at `path` (the path of an unrecognized-keys
 * issue): through wrappers (optional, nullable, default, pipes, lazy), arrays, records, tuples, and
 * every branch of a union or intersection, since the input's branch is not known here.
 */
function knownFieldsAt(schema: unknown, path: readonly PropertyKey[], depth = 0): string[] {
  const def = defOf(schema);
  if (!def || depth > 64) return [];
  const inner = (next: unknown, rest = path) => knownFieldsAt(next, rest, depth + 1);
  switch (def.type) {
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'catch': case 'nonoptional': case 'success':
      return inner(def.innerType);
    case 'pipe':
      return inner(def.in);
    case 'lazy':
      return def.getter ? inner(def.getter()) : [];
    case 'union':
      return (def.options ?? []).flatMap((option) => inner(option));
    case 'intersection':
      return [...inner(def.left), ...inner(def.right)];
  }
  if (path.length === 0) return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
  const [step, ...rest] = path;
  switch (def.type) {
    case 'object':
      return inner(def.shape?.[String(step)], rest);
    case 'array':
      return inner(def.element, rest);
    case 'record':
      return inner(def.valueType, rest);
    case 'tuple':
      return inner(def.items?.[Number(step)], rest);
    default:
      return [];
  }
}

/** Edit distance (insertions, deletions, substitutions, and swaps of neighbours) between two names. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** How a name is compared: case and the hyphen/underscore choice do not count as typos. */
const comparable = (name: string) => name.toLowerCase().replace(/-/g, '_');

/**
 * The known field closest to `sent`, when it is close enough to be a typo of it (about one edit in
 * three characters, at most three); undefined otherwise, so an unrelated name gets no guess. Names
 * longer than 100 characters are not compared (the work grows with the product of the lengths).
 */
export function nearestField(sent: string, known: readonly string[]): string | undefined {
  if (sent.length > 100) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(sent.length / 3)));
  let best: { name: string; edits: number } | undefined;
  for (const name of new Set(known)) {
    const edits = distance(comparable(sent), comparable(name));
    if (edits <= allowed && (!best || edits < best.edits)) best = { name, edits };
  }
  return best?.name;
}

/** The schema a route validates `target` with (zValidator's targets), for the unknown-field hint. */
function requestSchema(route: RouteConfig, target: string): unknown {
  const request = route.request;
  if (target === 'query') return request?.query;
  if (target === 'param') return request?.params;
  if (target === 'header') return request?.headers;
  if (target === 'cookie') return request?.cookies;
  const content = Object.entries(request?.body?.content ?? {});
  const form = (type: string) => type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded');
  const found = content.find(([type]) => (target === 'form' ? form(type) : !form(type)))?.[1];
  return found && 'schema' in found ? found.schema : undefined;
}

/**
 * A group's routes: an OpenAPIHono whose failed validations become 422 invalid_field. Each route's
 * validation failure is mapped knowing the route's schemas (so an unknown field can name the nearest
 * known one).
 */
export function createRoutes() {
  const routes = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
  const openapi = routes.openapi;
  routes.openapi = ((route: RouteConfig, handler: never, hook?: never) =>
    openapi(route as never, handler, hook ?? (((result: { success: boolean; error?: z.ZodError; target: string }) => {
      if (!result.success) throw validationError(result.error!, requestSchema(route, result.target));
    }) as never))) as typeof routes.openapi;
  return routes;
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

/** `{ data: T[], count }`, the envelope of a whole (unpaged) list. */
export const listOf = <T extends z.ZodType>(schema: T) => z.object({ data: z.array(schema), count: z.number().int() });

/** `{ data: T[], count, next_cursor }`, the envelope of a paged list. */
export const pageOf = <T extends z.ZodType>(schema: T) =>
  z.object({ data: z.array(schema), count: z.number().int(), next_cursor: z.string().nullable() });
