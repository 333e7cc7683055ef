import type { z } from '@hono/zod-openapi';

/** PostgreSQL text cannot hold the NUL character: input with one is refused per field (422), never a failed write. */
export const hasNoNul = (value: string) => !value.includes('\u0000');

/** The string schema, refusing the NUL character. */
export const storable = <T extends z.ZodType<string>>(schema: T): T =>
  schema.refine(hasNoNul, 'must not contain the NUL character (\\u0000)') as unknown as T;
