import { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import { decodeCursor } from '../../shared/http/envelope.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { isUuid } from './schemas.ts';

// Paging of the provider's lists: newest first, keyset on (created_at, id). The cursor holds the id
// of the last row of the page; the next page continues after that row's (created_at, id).

const maxPageSize = 100;

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(25).describe('Page size, 1 to 100 (default 25).'),
  cursor: z.string().optional().describe('next_cursor of the previous page, passed back unchanged. A cursor this list did not give to this key is refused (422 on cursor).'),
});

const invalidCursor = () => new ApiError('invalid_field', 'cursor is not a cursor this endpoint returned to this key.', 'cursor');

/** The row a cursor continues after; 422 on `cursor` for anything this API did not issue. */
export function afterId(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const [id] = decodeCursor(cursor, 1);
  if (typeof id !== 'string' || !isUuid(id)) throw invalidCursor();
  return id;
}

const listTables = { homes: 'app.properties', bookings: 'app.bookings' } as const;

/**
 * A page that came back empty after a cursor: the cursor may name a row this key cannot see (another
 * organisation's or environment's, or a row of another list). Such a cursor was not issued to this
 * key and is refused, rather than answered with an empty last page that a sync would take for the
 * end of the list. Only an empty page can hide it, so only then does this cost a look-up.
 */
export async function assertCursorRowVisible(tx: Tx, list: keyof typeof listTables, after: string | undefined, page: unknown[]) {
  if (after === undefined || page.length > 0) return;
  const [row] = await tx.unsafe(`select 1 from ${listTables[list]} where id = $1`, [after]);
  if (!row) throw invalidCursor();
}
