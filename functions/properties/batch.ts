import type { z } from '@hono/zod-openapi';
import type { ApiError } from '../../shared/http/errors.ts';
import { validationError } from '../../shared/http/routes.ts';

// What the two batch endpoints of the provider side share: items are validated one by one so that
// one bad item never affects the others, and the answer is 207 as soon as any item was refused.

export interface ItemError {
  code: string;
  message: string;
  field?: string;
}

export function itemError(error: ApiError): ItemError {
  const { code, message, field } = error.toBody().error;
  // A refused item as a whole (not an object) names no field.
  return field === undefined || field === 'body' ? { code, message: message.replace(/^body: /, 'The item: ') } : { code, message, field };
}

/** Parses one item; the error names the field inside the item (results carry the item's index). */
export function parseItem<T extends z.ZodType>(schema: T, item: unknown): { ok: true; value: z.infer<T> } | { ok: false; error: ItemError } {
  const parsed = schema.safeParse(item);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: itemError(validationError(parsed.error)) };
}

/** 200 when every item went through, 207 (multi-status) when any was refused. */
export const batchStatus = (failed: number) => (failed > 0 ? 207 : 200) as 200 | 207;
