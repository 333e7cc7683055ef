// The type of a response body, read from the OpenAPI document through the generated client types:
// a test that calls a documented route gets that operation's documented body, so reading a field the
// API does not answer fails the type check instead of passing as undefined.
import type { components, paths } from '../client/schema.generated.ts';

type Documented = keyof paths;

/** '/claims/{reference}/options' → ['', 'claims', '{reference}', 'options']. */
type Segments<Path extends string> = Path extends `${infer Head}/${infer Tail}` ? [Head, ...Segments<Tail>] : [Path];

type WithoutQuery<Path extends string> = Path extends `${infer Base}?${string}` ? Base : Path;

/** Whether the segments of a concrete path fit a documented template segment by segment; a
 * `{param}` segment takes any one segment, never several, so /claims/X/options/Y/budget cannot
 * land on /claims/{reference}. */
type Fits<Actual extends string[], Template extends string[]> = Actual extends [infer A extends string, ...infer ARest extends string[]]
  ? Template extends [infer T extends string, ...infer TRest extends string[]]
    ? (T extends `{${string}}` ? true : [A] extends [T] ? true : false) extends true
      ? Fits<ARest, TRest>
      : false
    : false
  : Template extends []
    ? true
    : false;

type Candidates<Path extends string> = {
  [Route in Documented]: Fits<Segments<Path>, Segments<Route>> extends true ? Route : never;
}[Documented];

/** Route, when another candidate is more literal than it (/claims/batch over /claims/{reference}). */
type Outranked<Route extends Documented, Others extends Documented> = Others extends Route
  ? never
  : Fits<Segments<Others>, Segments<Route>> extends true
    ? Route
    : never;

type MostLiteral<Found extends Documented, All extends Documented = Found> = Found extends Documented
  ? [Outranked<Found, All>] extends [never]
    ? Found
    : never
  : never;

/** The documented route a concrete path such as `/claims/${ref}/options?limit=5` is served by, per
 * member of a union of paths (a describe.each table); never when no route documents it, including a
 * path only known as `string`. */
export type RouteOf<Path extends string> = Path extends string ? MostLiteral<Candidates<WithoutQuery<Path>>> : never;

type Operation<Method extends string, Route extends Documented> = Lowercase<Method> extends keyof paths[Route]
  ? NonNullable<paths[Route][Lowercase<Method>]>
  : never;

type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

type Bodies<Responses, Success extends boolean> = {
  [Status in keyof Responses]: `${Status & (string | number)}` extends `2${string}`
    ? Success extends true
      ? JsonBody<Responses[Status]>
      : never
    : Success extends true
      ? never
      : JsonBody<Responses[Status]>;
}[keyof Responses];

type ErrorMember<Responses> = Bodies<Responses, false> extends infer Failure
  ? Failure extends { error: infer Detail }
    ? Detail
    : never
  : never;

/**
 * The body a test reads: the operation's success body, with the documented error object as an
 * optional member. Tests assert the status with expect() and then read the body, which does not
 * narrow a status-discriminated union, so a union of success and error bodies would force a
 * narrowing at every read; this shape keeps reads direct while every field stays one the document
 * declares. A success without a JSON body (204) leaves only the error member.
 */
type OperationBody<Op> = Op extends { responses: infer Responses }
  ? ([Bodies<Responses, true>] extends [never] ? unknown : Bodies<Responses, true>) & { error?: ErrorMember<Responses> }
  : unknown;

/** The error object every error answer carries. */
export type ErrorDetail = components['schemas']['Error']['error'];

/** A JSON Schema node as the document renders the zod schemas: the keywords tests read. */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
}

interface MediaType {
  schema: SchemaNode;
}

export interface OpenApiOperation {
  description?: string;
  'x-scope'?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, MediaType> };
  /** Every answer the service documents has a JSON body (there is no 204). */
  responses: Record<string, { description: string; content: Record<string, MediaType> }>;
}

/** The OpenAPI document itself, which is served but (being the document) not described in it. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  /** Every path item holds operations only, keyed by lower-case method. */
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, SchemaNode>; securitySchemes: Record<string, unknown> };
}

/** Served paths outside the public API document whose answers tests read, with their precise types
 * (the payment processor's notifications endpoint is internal: see functions/payments-webhook). */
interface Undocumented {
  '/openapi.json': OpenApiDocument;
  '/docs/openapi.json': OpenApiDocument;
  '/docs/openapi.json/': OpenApiDocument;
  '/payments-webhook': { data: { received: true; event_id?: string; outcome: string }; error?: ErrorDetail };
}

/** The body of `method path`: unknown for what no route documents (404/405 probes, HTML pages,
 * health, a path only known as a string), to be narrowed explicitly by the test that reads it. */
export type ResponseBody<Method extends string, Path extends string> = WithoutQuery<Path> extends keyof Undocumented
  ? Undocumented[WithoutQuery<Path>]
  : [RouteOf<Path>] extends [never]
  ? unknown
  : RouteOf<Path> extends infer Route extends Documented
    ? [Operation<Method, Route>] extends [never]
      ? unknown
      : OperationBody<Operation<Method, Route>>
    : unknown;
