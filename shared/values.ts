import { z } from '@hono/zod-openapi';
import { isWholeCents } from './money.ts';

// The value types of the API, defined once. Every body, query and path field that carries money, a
// calendar date, a timestamp or free text uses these, so what the edge accepts is exactly what
// PostgreSQL can store: an input outside them is a 422 invalid_field naming the field, never a failed
// write (500) and never a silently changed value. The route-registry guard test
// (tests/foundation/values.test.ts) fails on a field that uses a plain string or number instead.

/** The kinds of shared value, as the guard test reads them back from a schema. */
export type ValueKind = 'money' | 'measure' | 'date' | 'timestamp' | 'text' | 'json' | 'exception';

const markers = new Map<unknown, ValueKind>();

/** Registers a value check once: its function identity tells the kind (zod keeps it through .optional(), .describe(), ...). */
function kindCheck<V>(kind: ValueKind, check: (value: V) => boolean) {
  markers.set(check, kind);
  return check;
}

const marked = <T extends z.ZodType>(schema: T, check: (value: never) => boolean, message: string): T =>
  schema.refine(check as (value: unknown) => boolean, message) as unknown as T;

/** The value kind of a leaf schema built here, or undefined for a plain one. */
export function valueKindOf(schema: z.ZodType): ValueKind | undefined {
  const checks = ((schema as unknown as { _zod: { def: { checks?: { _zod: { def: { fn?: unknown } } }[] } } })._zod.def.checks) ?? [];
  for (const check of checks) {
    const kind = markers.get(check._zod.def.fn);
    if (kind) return kind;
  }
  return undefined;
}

// --- Stored text -------------------------------------------------------------------------------

// A UTF-16 surrogate without its partner: JSON can carry one ("\ud800"), UTF-8 (and so PostgreSQL)
// cannot; the driver would replace it with U+FFFD or fail the write.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether PostgreSQL can store the string unchanged: no NUL character, no lone surrogate. */
export const isStorableText = (value: string) => !value.includes('\u0000') && !loneSurrogate.test(value);

/**
 * Text PostgreSQL stores unchanged: the given string schema (default a plain string), refusing the
 * NUL character and lone surrogates. Wrap a string schema before adding .trim()/.min()/.max().
 */
const textCheck = kindCheck('text', (value: string) => isStorableText(value));

export const storedText = <T extends z.ZodType<string> = z.ZodString>(schema?: T): T =>
  marked((schema ?? z.string()) as T, textCheck,
    'must be text without the NUL character (\\u0000) or an unpaired surrogate (\\ud800-\\udfff)');

/** A line of text a person typed: trimmed, not empty, storable, at most `max` characters. */
export const textLine = (max: number) => storedText(z.string().trim().min(1).max(max));

/** An email address (at most 255 characters, the column's limit). */
export const emailAddress = () => z.email().max(255);

/** How deep a free JSON value may nest: far beyond any payload, far below what would exhaust a stack. */
export const maxJsonDepth = 64;

/**
 * Whether a JSON value can be stored: every string (keys included) storable text (jsonb refuses
 * \u0000 too) and no deeper than maxJsonDepth. Walked with a list, not recursion, so no input can
 * exhaust the stack.
 */
export function isStorableJson(value: unknown): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return false;
    } else if (item !== null && typeof item === 'object') {
      if (depth > maxJsonDepth) return false;
      for (const [key, member] of Object.entries(item)) {
        if (!Array.isArray(item) && !isStorableText(key)) return false;
        pending.push([member, depth + 1]);
      }
    }
  }
  return true;
}

const jsonCheck = kindCheck('json', (value: unknown) => isStorableJson(value));

/** A free JSON object stored as jsonb: any members, every string in it storable text, at most maxJsonDepth deep. */
export const storedJson = () =>
  marked(z.record(z.string(), z.unknown()), jsonCheck,
    `must not contain the NUL character (\u0000) or an unpaired surrogate (\ud800-\udfff) in any key or string, nor nest more than ${maxJsonDepth} levels deep`);

// --- Language tags -----------------------------------------------------------------------------

/** The canonical form of a well-formed BCP 47 tag (es-pr becomes es-PR); undefined for one that is not well-formed. */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

const languageCheck = kindCheck('text', (value: string) => canonicalLanguage(value) !== undefined);

/** A BCP 47 language tag (es, es-PR, en-US): well-formed as Intl reads it, at most 35 characters, stored canonical. */
export const languageTag = () =>
  marked(z.string().trim().min(2).max(35), languageCheck, 'must be a BCP 47 language tag such as es, es-PR or en-US')
    .openapi({ example: 'es', pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$' });

// --- Money -------------------------------------------------------------------------------------

/** The largest amount of any money field, in major units; the cents columns (bigint) hold far more. */
export const maxMoney = 10_000_000;

/**
 * A money amount in major units (USD): a finite number with at most two decimals, at most maxMoney
 * (or the given ceiling). `positive` amounts are at least one cent; others may be 0.
 */
const moneyCheck = kindCheck('money', (value: number) => isWholeCents(value));

export function money(options: { positive: boolean; max?: number }) {
  const max = options.max ?? maxMoney;
  const base = options.positive ? z.number().positive({ message: 'must be above zero' }) : z.number().min(0);
  return marked(base.max(max), moneyCheck,
    'must be in whole cents (at most two decimals)').openapi({ multipleOf: 0.01 });
}

// --- Measures (fractional numbers stored as double precision) --------------------------------

/** The smallest positive normal double: PostgreSQL's double precision refuses the subnormals below it. */
const minNormal = 2.2250738585072014e-308;
const measureCheck = kindCheck('measure', (value: number) => value === 0 || Math.abs(value) >= minNormal);

/** A fractional number within [min, max] that double precision stores as sent (coordinates). */
export const measure = (min: number, max: number) =>
  marked(z.number().min(min).max(max), measureCheck, 'is too close to zero to store; send 0');

/** A count in halves within [min, max] (bathrooms: 1.5 is a full and a half bath). */
export const halves = (min: number, max: number) =>
  measure(min, max).multipleOf(0.5, { message: 'must be a multiple of 0.5' }).openapi({ multipleOf: 0.5 });

// --- Calendar dates ----------------------------------------------------------------------------

/** The plausible window of every calendar date the API accepts (inclusive). */
export const dateWindow = { from: '2000-01-01', to: '2099-12-31' } as const;

/** A calendar date, YYYY-MM-DD: a real day (no 2026-02-30) within dateWindow. */
const dateCheck = kindCheck('date', (value: string) => value >= dateWindow.from && value <= dateWindow.to);

export const calendarDate = () =>
  marked(z.iso.date(), dateCheck,
    `must be between ${dateWindow.from} and ${dateWindow.to}`)
    // The window as a pattern too, so the published schema is as strict as the server (years 2000 to 2099).
    .openapi({ example: '2026-12-01', format: 'date', pattern: '^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' });

// --- Timestamps in query strings ---------------------------------------------------------------

/** The plausible window of a timestamp query parameter (inclusive), in UTC. */
export const timestampWindow = { from: '1970-01-01T00:00:00Z', to: '2099-12-31T23:59:59.999Z' } as const;
const timestampBounds = [Date.parse(timestampWindow.from), Date.parse(timestampWindow.to)];

/** An ISO 8601 timestamp with Z or an offset (2026-11-21T10:15:00Z), within timestampWindow. */
/** Whether an ISO timestamp lies within timestampWindow (also for timestamps read back from cursors). */
export function isPlausibleTimestamp(value: string): boolean {
  const at = Date.parse(value);
  return Number.isFinite(at) && at >= timestampBounds[0] && at <= timestampBounds[1];
}

const timestampCheck = kindCheck('timestamp', (value: string) => isPlausibleTimestamp(value));

export const timestampQuery = () =>
  marked(z.iso.datetime({ offset: true }), timestampCheck, `must be between ${timestampWindow.from} and ${timestampWindow.to}`)
    // The years of the window as a pattern too (1970 to 2099; the server judges the exact instant).
    .openapi({ example: '2026-11-21T10:15:00Z', format: 'date-time', pattern: '^(19[7-9][0-9]|20[0-9]{2})-' });

// --- Documents -------------------------------------------------------------------------------

/** The largest document a request accepts, the specification's 10 MB: also the largest body the API reads (shared/http/middleware/body.ts). */
export const maxDocumentBytes = 10 * 1024 * 1024;

// --- Exceptions --------------------------------------------------------------------------------

/**
 * A field deliberately outside the shared types (say why at the call site): the guard test accepts
 * it. Use for values that never reach a text column as they are (for example opaque cursors).
 */
const exceptionCheck = kindCheck('exception', () => true);

export const valueException = <T extends z.ZodType>(schema: T, _reason: string): T => marked(schema, exceptionCheck, '');
