import { z } from '@hono/zod-openapi';
import { decodeCursor } from '../../shared/http/envelope.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { isUuid } from './homes.ts';

// Paging of the provider's lists: newest first, keyset on (created_at, id). The cursor holds the id
// of the last row of the page; the next page continues after that row's (created_at, id).

export const maxPageSize = 100;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(25).describe('Page size, 1 to 100 (default 25).'),
  cursor: z.string().optional().describe('next_cursor of the previous page, passed back unchanged.'),
});

/** The row a cursor continues after; 422 on `cursor` for anything this API did not issue. */
export function afterId(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const [id] = decodeCursor(cursor, 1);
  if (typeof id !== 'string' || !isUuid(id)) {
    throw new ApiError('invalid_field', 'cursor is not a cursor returned by this endpoint.', 'cursor');
  }
  return id;
}
