import { z } from '@hono/zod-openapi';
import type { DomainError } from '../domain-errors.ts';
import { docUrl, type ApiError } from './errors.ts';
import { ErrorSchema, jsonResponse, validationError } from './routes.ts';
import { valueException } from './values.ts';

// The batch routes (POST /claims/batch, /properties/batch, /properties/availability) answer alike:
// each item is parsed and handled on its own, so one bad item never affects the others, and the
// answer is at the top level (no `data` wrapper): the routes' counts, `failed`, and `results` in
// input order, each with `index`, the item's `external_id` (null when it had none), `ok`, and either
// what the item produced or its `error`. The status says how the batch went as a whole:
// 201 every item succeeded, 207 some failed, 422 every item failed. A batch that succeeded without
// creating anything (every home refreshed under its external_id) answers 200, as POST /properties
// does for an update in place.

export const BatchItemError = z
  .object({
    code: z.string().openapi({ example: 'invalid_field' }),
    message: z.string(),
    field: z.string().optional().describe('The field inside the item; absent when the item as a whole is refused (not an object).'),
    doc_url: z.string().url().describe("The code's entry in the error reference (GET /docs/errors).").openapi({ example: 'https://project-ref.supabase.co/functions/v1/docs/errors#error-invalid_field' }),
  })
  .openapi('BatchItemError');

/**
 * The body's array of items. Items are validated one by one by the handler against `itemSchema` (a
 * schema registered under that name, referenced by the document), so that a bad item is reported in
 * its result instead of failing the call.
 */
export const batchItems = (itemSchema: string, max: number) =>
  z
    .array(valueException(z.unknown(), `each item is validated against ${itemSchema} by the handler`))
    .min(1)
    .max(max)
    .openapi({ items: { $ref: `#/components/schemas/${itemSchema}` }, description: `1 to ${max} items, each a ${itemSchema}.` });

/** Each item parsed on its own: its value, or the refusal (422 invalid_field) naming the field inside the item. */
export function parseItems<T extends z.ZodType>(schema: T, items: readonly unknown[]): (z.infer<T> | DomainError)[] {
  return items.map((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? parsed.data : validationError(parsed.error, schema);
  });
}

/** The external_id an item was sent with, whatever the item's shape; null without one. */
function sentExternalId(item: unknown): string | null {
  const value = (item as { external_id?: unknown } | null)?.external_id;
  return typeof value === 'string' ? value : null;
}

function itemError(error: DomainError | ApiError): z.infer<typeof BatchItemError> {
  const { code, message, field } = error;
  const doc_url = docUrl(code);
  // An item refused as a whole (not an object) names no field: `body` would mean the whole request.
  return field === undefined || field === 'body' ? { code, message: message.replace(/^body: /, 'The item: '), doc_url } : { code, message, field, doc_url };
}

/** The result of an item that succeeded: where it was, its external_id as stored, and the route's fields. */
export const succeededItem = <T extends object>(index: number, externalId: string | null, fields: T) =>
  ({ index, external_id: externalId, ok: true as const, ...fields });

/** The result of a refused item: where it was, the external_id it was sent with, the route's fields and why. */
export const refusedItem = <T extends object>(index: number, sent: unknown, error: DomainError | ApiError, fields: T) =>
  ({ index, external_id: sentExternalId(sent), ok: false as const, ...fields, error: itemError(error) });

/**
 * The answer schema of a batch route: its counts (those before `failed`, then any after), and results
 * carrying `index`, `external_id`, `ok`, the route's own fields, and `error` on a refused item.
 */
export function batchResult<Lead extends z.ZodRawShape, Tail extends z.ZodRawShape, Item extends z.ZodRawShape>(
  name: string,
  shape: { lead: Lead; tail?: Tail; item: Item },
) {
  return z
    .object({
      ...shape.lead,
      failed: z.number().int().describe('Items refused; each of their results carries `error`.'),
      ...(shape.tail ?? ({} as Tail)),
      results: z
        .array(
          z.object({
            index: z.number().int().describe('The item\'s place in the sent array, from 0.'),
            external_id: z.string().nullable().describe('The item\'s external_id; null when it had none.'),
            ok: z.boolean(),
            ...shape.item,
            error: BatchItemError.optional().describe('Why the item was refused (ok false).'),
          }),
        )
        .describe('One per item, in the order sent.'),
    })
    .openapi(name);
}

/** The responses of a batch route; `allUpdated` documents the 200 of a batch that created nothing. */
export function batchResponses<T extends z.ZodType>(result: T, body: string, allUpdated?: string) {
  return {
    ...(allUpdated ? { 200: jsonResponse(result, allUpdated) } : {}),
    201: jsonResponse(result, 'Every item succeeded.'),
    207: jsonResponse(result, 'Some items succeeded, some were refused: see results[].error.'),
    422: jsonResponse(
      z.union([result, ErrorSchema]),
      `Every item was refused (the batch answer), or the body itself is invalid: invalid_field on \`${body}\` (missing, empty or too long).`,
    ),
  };
}

/**
 * The batch answer and its status: 201 when every item succeeded (200 when `createdNothing`),
 * 207 when some were refused, 422 when every item was. `lead` is the route's count of what it did
 * (created, blocked), `tail` its further counts after `failed`.
 */
export function batchAnswer<L extends object, T extends object, R extends { ok: boolean }>(
  lead: L,
  results: R[],
  tail: T,
  options: { createdNothing?: boolean } = {},
) {
  const failed = results.filter((r) => !r.ok).length;
  const status = failed === results.length ? 422 : failed > 0 ? 207 : options.createdNothing ? 200 : 201;
  return { body: { ...lead, failed, ...tail, results }, status: status as 200 | 201 | 207 | 422 };
}
