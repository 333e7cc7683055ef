import type { Environment } from '../db/tenant.ts';
import { DomainError, domainErrorCodes, NotFoundError, type DomainErrorKind } from '../domain-errors.ts';
import { publicBaseUrl } from './public-url.ts';

// The one error type of the API and the table of codes, mirroring the specification's Errors section.
// Codes the specification lists without a status get the status chosen here (documented in
// docs/errors.md, with every code's meaning; shared/http/error-reference.ts holds the same for the
// reference page each error's doc_url points at).

export const errorCodes = {
  missing_key: 401,
  invalid_key: 401,
  forbidden: 403,
  sandbox_only: 403,
  invalid_field: 422,
  stay_too_short: 422,
  invalid_json: 400,
  could_not_create: 400,
  could_not_place: 400,
  could_not_set_dates: 400,
  could_not_read: 400,
  idempotency_key_too_long: 400,
  not_found: 404,
  not_on_request: 404,
  method_not_allowed: 405,
  budget_not_approved: 409,
  dates_unavailable: 409,
  already_signed: 409,
  already_paid: 409,
  nothing_to_refund: 409,
  refund_pending: 409,
  no_coordinator: 409,
  idempotency_key_reused: 409,
  request_in_progress: 409,
  // This service's addition: a keyed write that was done, whose answer the server could not keep.
  idempotent_answer_lost: 409,
  no_endpoint: 409,
  not_yours_to_release: 409,
  could_not_replay: 409,
  no_such_adjuster: 422,
  no_billing_account: 409,
  not_yours: 403,
  unknown_event: 422,
  unsupported_type: 415,
  file_too_large: 413,
  // Placement: a call that does not fit the placement's state (sandbox helpers, proposals).
  option_not_open: 409,
  lease_not_signable: 409,
  proposal_pending: 409,
  no_proposal: 409,
  no_refund_request: 409,
  invalid_signature: 401,
  // A callback reached a deployment that has not set up the party it comes from (retry later).
  not_configured: 503,
  // Payments: a payment, move-in or refund answer that does not fit the placement's state.
  lease_not_signed: 409,
  charges_disabled: 409,
  nothing_due: 409,
  amount_changed: 409,
  not_booked: 409,
  already_moved_in: 409,
  // A move-in confirmed before the booking's move-in date has come.
  move_in_not_yet: 409,
  refund_not_found: 404,
  // The stay over time: an extension already open on the placement.
  extension_pending: 409,
  // The landlord answered the application before.
  already_answered: 409,
  rate_limited: 429,
  server_error: 500,
} as const;

export type ErrorCode = keyof typeof errorCodes;

/**
 * Codes the specification gives another status on some routes besides their own (above):
 * not_on_request is 404 on cancel-booking and refund-request, 409 on dates and the helpers.
 */
export const alsoAt = { not_on_request: [409] } as const satisfies Partial<Record<ErrorCode, readonly number[]>>;

/** The statuses a code is answered with: its own, and those some routes give it besides. */
export type StatusOf<C extends ErrorCode> = (typeof errorCodes)[C] | (C extends keyof typeof alsoAt ? (typeof alsoAt)[C][number] : never);

/** The statuses a code is answered with: its own, and those some routes give it besides. */
export const statusesOf = (code: ErrorCode): number[] =>
  [errorCodes[code], ...((alsoAt as Partial<Record<ErrorCode, readonly number[]>>)[code] ?? [])];

// Each route group's table of errors (functions/<group>/errors.ts): the codes its routes answer with,
// picked from the one table above, so a code's status is written once and cannot differ between
// groups. A route's documented errors are typed by its group's table (a code outside it fails the
// type check), and the group's part of the OpenAPI document is built through it
// (shared/http/routes.ts, routeDefiner).

/** The codes every route can answer with: no key or a bad one, a missing scope, an unreadable or invalid body, the rate limit, a fault. */
export const everyRouteCodes = ['invalid_json', 'missing_key', 'invalid_key', 'forbidden', 'invalid_field', 'rate_limited', 'server_error'] as const satisfies readonly ErrorCode[];

/** The codes every write can answer with besides: its Idempotency-Key and its size. */
export const everyWriteCodes = ['idempotency_key_too_long', 'file_too_large', 'idempotency_key_reused', 'request_in_progress', 'idempotent_answer_lost'] as const satisfies readonly ErrorCode[];

type CommonCode = (typeof everyRouteCodes)[number] | (typeof everyWriteCodes)[number];

/** A code picked for a group's table: with every status it is answered with, or, as `[code, status]`, with one of them. */
export type TablePick = ErrorCode | { [C in ErrorCode]: readonly [C, StatusOf<C>] }[ErrorCode];

type PickedCode<P> = P extends readonly [infer C, unknown] ? C : P;
type PickedStatus<P, C extends ErrorCode> = P extends C ? StatusOf<C> : P extends readonly [C, infer S] ? S : never;

/** A table of errors: each code, and the statuses it is answered with where the table holds. */
export type ErrorTable = { readonly [C in ErrorCode]?: readonly number[] };

/** The table of the codes picked by P and the common ones, each with its statuses as the type. */
export type TableOf<P extends TablePick> = {
  readonly [C in (PickedCode<P> | CommonCode) & ErrorCode]: readonly ((C extends CommonCode ? StatusOf<C> : never) | PickedStatus<P, C>)[];
};

/**
 * A route group's table: the codes its routes answer with beyond the common ones (which every
 * table holds: everyRouteCodes, everyWriteCodes), each at the statuses the table of codes gives it,
 * or at one of them (`['not_on_request', 409]`).
 */
export function errorTable<const P extends readonly TablePick[]>(...picks: P): TableOf<P[number]> {
  const table: Partial<Record<ErrorCode, number[]>> = {};
  const add = (code: ErrorCode, statuses: readonly number[]) => {
    table[code] = [...new Set([...(table[code] ?? []), ...statuses])];
  };
  for (const code of [...everyRouteCodes, ...everyWriteCodes]) add(code, statusesOf(code));
  for (const pick of picks) {
    const [code, status] = typeof pick === 'string' ? [pick as ErrorCode, undefined] : (pick as readonly [ErrorCode, number]);
    if (status !== undefined && !statusesOf(code).includes(status)) throw new Error(`${code} is not answered with ${status} (the table of codes gives ${statusesOf(code).join(', ')})`);
    add(code, status === undefined ? statusesOf(code) : [status]);
  }
  return table as unknown as TableOf<P[number]>;
}

/** Every code at every status: the table a route outside a group's is held to (tests' probe routes). */
export const apiErrors = errorTable(...(Object.keys(errorCodes) as ErrorCode[]));

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** Extra members of `error`, such as `conflicts` or `payment`. */
    readonly extra: Record<string, unknown> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? errorCodes[code];
  }

  /**
   * The error body. `environment` is the calling key's, where there is one: a message may then say
   * what the other environment could hold (see NotFound).
   */
  toBody(environment?: Environment) {
    return {
      error: {
        code: this.code,
        message: this.messageFor(environment),
        ...(this.field === undefined ? {} : { field: this.field }),
        doc_url: docUrl(this.code),
        ...this.extra,
      },
    };
  }

  protected messageFor(_environment?: Environment): string {
    return this.message;
  }
}

/** Where the reference page of the docs function explains a code (its entry's anchor). */
export const errorReferencePath = '/docs/errors';
export const errorAnchor = (code: string) => `error-${code}`;

/**
 * The code's entry in the reference, from the configured public address (never the request's Host,
 * which is the sender's to choose: a link built from it could point a reader's browser anywhere).
 */
export const docUrl = (code: ErrorCode) => `${publicBaseUrl()}${errorReferencePath}#${errorAnchor(code)}`;

const otherEnvironment: Record<Environment, { other: Environment; key: string }> = {
  live: { other: 'sandbox', key: 'a sandbox key (svc_sk_)' },
  sandbox: { other: 'live', key: 'a live key (svc_pk_)' },
};

/**
 * A resource the caller cannot see. Live and sandbox data are apart, and an integrator who reads a
 * sandbox object with a live key (or the reverse) is told that the object may be in the other
 * environment. The message is the same whether or not it is there (or belongs to another
 * organisation, or never existed): it depends only on what was asked for and the calling key, so it
 * tells nothing of what exists.
 */
export class NotFound extends ApiError {
  constructor(readonly what: string) {
    // The words the domain says it in (shared/domain-errors.ts), defined there once.
    super('not_found', new NotFoundError(what).message);
  }

  protected override messageFor(environment?: Environment): string {
    if (!environment) return this.message;
    const { other, key } = otherEnvironment[environment];
    return `No such ${this.what} for this organisation in ${environment}. Live and sandbox data are apart: `
      + `if it was made with ${key}, it may exist in ${other}; read it with that key.`;
  }
}

/** A thing the caller cannot see, raised by a route as the domains raise it (answered as NotFound). */
export { notFound } from '../domain-errors.ts';

// The domains' refusals (shared/domain-errors.ts) as answers: this table of codes gives each its
// status, as it gives the routes' documented errors theirs, so what a command refuses with and what
// the document lists cannot differ. A code answered under two statuses (not_on_request) takes the
// one its kind says.

/** The statuses a kind of refusal is answered with. */
const kindStatuses: Record<DomainErrorKind, readonly number[]> = {
  not_found: [404],
  conflict: [409],
  invalid: [400, 413, 415, 422],
  refused: [403],
  unavailable: [503],
};

/** Every code a domain refuses with has its row in the table above (a code without one fails the type check). */
export const domainCodes: readonly ErrorCode[] = Object.values(domainErrorCodes).flat();

/** The status of a refusal of `kind` with `code`: the code's status, or the other one it is also given, whichever fits the kind. */
export function statusOfRefusal(kind: DomainErrorKind, code: ErrorCode): number | undefined {
  return statusesOf(code).find((status) => kindStatuses[kind].includes(status));
}

/** A domain's refusal as the API answers it (the same code, message, field and facts). */
export function apiErrorOf(error: DomainError): ApiError {
  if (error instanceof NotFoundError) return new NotFound(error.what);
  const status = statusOfRefusal(error.kind, error.code);
  if (status === undefined) throw new Error(`${error.kind} ${error.code} has no status in the table of codes`);
  return new ApiError(error.code, error.message, error.field, error.facts, status);
}

/** The answer a failure gives when it is a refusal (the API's own or a domain's); undefined for anything else. */
export const refusalOf = (error: unknown): ApiError | undefined =>
  error instanceof ApiError ? error : error instanceof DomainError ? apiErrorOf(error) : undefined;
