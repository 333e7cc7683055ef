// The errors of the domains: what a command refuses, as a value of the domain, never as an HTTP
// answer. A command, a job, the console and a test all see the same refusal (its kind, its code, the
// field it concerns and the facts that explain it); the HTTP layer alone turns it into a status and
// the error envelope (shared/http/errors.ts: the one table of codes and their statuses, from which the
// routes' documented errors and the OpenAPI document are built). This file imports nothing, so every
// folder of shared/ may use it.
//
// The codes are the API's published codes (a client reads `already_paid`, whatever answers it); the
// kind is what the refusal says of the world, and each code has the kinds listed here:
//   not_found    the thing asked for is not there (for this organisation and environment)
//   conflict     the thing is there, but not in a state that allows this; `facts` says what is in the way
//   invalid      the input cannot be used as sent; `field` names it
//   refused      the caller may not do this
//   unavailable  the deployment cannot do this yet (an operator's setting)

export const domainErrorCodes = {
  not_found: ['not_found', 'not_on_request', 'refund_not_found'],
  conflict: [
    'not_on_request',
    'budget_not_approved',
    'dates_unavailable',
    'already_signed',
    'already_paid',
    'already_answered',
    'already_moved_in',
    'move_in_not_yet',
    'nothing_to_refund',
    'nothing_due',
    'refund_pending',
    'no_refund_request',
    'no_coordinator',
    'no_endpoint',
    'not_yours_to_release',
    'could_not_replay',
    'no_billing_account',
    'option_not_open',
    'lease_not_signable',
    'lease_not_signed',
    'proposal_pending',
    'no_proposal',
    'charges_disabled',
    'amount_changed',
    'not_booked',
    'extension_pending',
  ],
  invalid: [
    'invalid_field',
    'stay_too_short',
    'unknown_event',
    'no_such_adjuster',
    'could_not_create',
    'could_not_place',
    'could_not_set_dates',
    'file_too_large',
    'unsupported_type',
  ],
  refused: ['forbidden', 'not_yours'],
  unavailable: ['not_configured'],
} as const;

export type DomainErrorKind = keyof typeof domainErrorCodes;

/** The codes a refusal of kind K may carry. */
export type DomainErrorCode<K extends DomainErrorKind = DomainErrorKind> = (typeof domainErrorCodes)[K][number];

/** What explains a refusal beyond its message (`conflicts`, `payment`, `move_in_date`): members the error body carries as they are. */
export type Facts = Record<string, unknown>;

export class DomainError<K extends DomainErrorKind = DomainErrorKind> extends Error {
  constructor(
    readonly kind: K,
    readonly code: DomainErrorCode<K>,
    message: string,
    /** The input field the refusal concerns, where there is one. */
    readonly field?: string,
    readonly facts: Facts = {},
  ) {
    super(message);
  }
}

/**
 * A thing the caller cannot see, named by what it is (`housing request`, `home`). The message is
 * the same whether it exists elsewhere or never did; the HTTP layer may say more for the calling
 * key's environment (shared/http/errors.ts, NotFound).
 */
export class NotFoundError extends DomainError<'not_found'> {
  constructor(readonly what: string) {
    super('not_found', 'not_found', `No such ${what} for this organisation in this environment.`);
  }
}

export const notFound = (what = 'resource') => new NotFoundError(what);

/** Not there, in the words of `message` (a home not on the request, where the route says so). */
export const missing = (code: DomainErrorCode<'not_found'>, message: string, field?: string) =>
  new DomainError('not_found', code, message, field);

/** There, but in a state that does not allow this; `facts` (the conflicting stays, the payment) go into the body. */
export const conflict = (code: DomainErrorCode<'conflict'>, message: string, field?: string, facts?: Facts) =>
  new DomainError('conflict', code, message, field, facts);

/** The input cannot be used as sent: `field` names what to change. */
export const invalid = (code: DomainErrorCode<'invalid'>, message: string, field?: string, facts?: Facts) =>
  new DomainError('invalid', code, message, field, facts);

/** The caller may not do this. */
export const refused = (code: DomainErrorCode<'refused'>, message: string) => new DomainError('refused', code, message);

/** The deployment cannot do this yet (a setting an operator has not made). */
export const unavailable = (code: DomainErrorCode<'unavailable'>, message: string) => new DomainError('unavailable', code, message);

/** Whether `error` is a refusal of the domain, of kind `kind` when given. */
export function isDomainError<K extends DomainErrorKind>(error: unknown, kind?: K): error is DomainError<K> {
  return error instanceof DomainError && (kind === undefined || error.kind === kind);
}
