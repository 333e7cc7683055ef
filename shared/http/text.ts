import type { z } from '@hono/zod-openapi';
import { isStorableText, storedText } from './values.ts';

// Kept for existing imports: the stored-text type lives in values.ts with the other value types.

/** Whether PostgreSQL can store the string unchanged (no NUL, no lone surrogate). */
export const hasNoNul = isStorableText;

/** The string schema as stored text: refusing the NUL character and lone surrogates (422 on the field). */
export const storable = <T extends z.ZodType<string>>(schema: T): T => storedText(schema);
