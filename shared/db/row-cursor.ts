import { z } from '@hono/zod-openapi';
import type { Tx } from './client.ts';
import { decodeCursor, page } from '../http/envelope.ts';
import { ApiError } from '../http/errors.ts';
import { isUuid } from '../ids.ts';
import { storedText } from '../http/values.ts';

// Row-anchored keyset paging, newest first on (created_at, id): the cursor names the last row of the
// previous page by id, and the next page continues after that row's (created_at, id). Used by lists
// whose rows are never deleted (requests, homes, bookings); the event log, whose rows expire, pages
// on the position itself (shared/webhooks/params.ts).

/** The paging parameters of a row-anchored list; lists extend it with their filters. */
export const RowPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25).describe('Page size, 1 to 100 (default 25).'),
  cursor: storedText()
    .optional()
    .describe('next_cursor of the previous page, passed back unchanged. A cursor this list did not give to this key is refused (422 on cursor).'),
});

/** The page of a list query that fetched `limit + 1` rows, and the cursor naming its last row. */
export const rowPage = <T extends { id: string }>(rows: T[], limit: number) => page(rows, limit, (row) => [row.id]);

/**
 * The condition "after the row the cursor names" of a newest-first list: `and (alias.created_at,
 * alias.id) < (that row's created_at, id)`, or nothing without a cursor. `alias` and `table` are
 * constants of the caller, never input.
 */
export const afterCursorRow = (tx: Tx, alias: string, table: string, after: string | undefined) =>
  after
    ? tx`and (${tx.unsafe(alias)}.created_at, ${tx.unsafe(alias)}.id) < (select created_at, id from ${tx.unsafe(table)} where id = ${after}::uuid)`
    : tx``;

const invalidCursor = () => new ApiError('invalid_field', 'cursor is not a cursor this endpoint returned to this key.', 'cursor');

/** The row a cursor continues after; 422 on `cursor` for anything this API did not issue. */
export function cursorRowId(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const [id] = decodeCursor(cursor, 1);
  if (typeof id !== 'string' || !isUuid(id)) throw invalidCursor();
  return id;
}

/**
 * A page that came back empty after a cursor: the cursor may name a row this key cannot see (another
 * organisation's or environment's, or a row of another list), whose position then matches nothing.
 * Such a cursor was not issued to this key and is refused, rather than answered with an empty last
 * page that a sync would take for the end of the list. Only an empty page can hide it, so only then
 * does this cost a look-up. `table` is a constant of the caller, never input.
 */
export async function assertCursorRowVisible(tx: Tx, table: string, after: string | undefined, page: readonly unknown[]) {
  if (after === undefined || page.length > 0) return;
  const [row] = await tx.unsafe(`select 1 from ${table} where id = $1`, [after]);
  if (!row) throw invalidCursor();
}
