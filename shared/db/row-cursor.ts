import type { Tx } from './client.ts';
import { decodeCursor } from '../http/envelope.ts';
import { ApiError } from '../http/errors.ts';
import { isUuid } from '../ids.ts';

// Row-anchored keyset paging, newest first on (created_at, id): the cursor names the last row of the
// previous page by id, and the next page continues after that row's (created_at, id). Used by lists
// whose rows are never deleted (requests, homes, bookings); the event log, whose rows expire, pages
// on the position itself (shared/webhooks/params.ts).

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
