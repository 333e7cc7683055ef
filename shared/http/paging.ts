import { z } from '@hono/zod-openapi';
import { isUuid } from '../ids.ts';
import { cursorKey, invalidCursor, list, page, type Keyset } from '../db/paging.ts';
import { apiErrorOf } from './errors.ts';
import { isPlausibleTimestamp, storedText } from './values.ts';

// Paging of every list: newest first on (created_at, id), keyset-paged with an opaque base64url
// cursor that holds the sort key of the last row of the page. Clients pass it back unchanged; the
// list fetches `limit + 1` rows, and the extra one says whether a page follows.
//
// Two anchors, because rows of some lists are deleted:
// - Row-anchored (requests, homes, bookings: rows are never deleted): the cursor names the last row
//   by id and the next page continues after that row's (created_at, id). A cursor naming a row this
//   key cannot see is refused, so another tenant's cursor never reads as an empty last page.
// - Time-anchored (the event log, webhook endpoints and deliveries: events expire after 90 days,
//   endpoints are deleted and their deliveries with them): the cursor holds the position itself, the
//   exact recording time and id, so it still continues when its row is gone. With an index on
//   (tenant, created_at desc, id desc) the position is an index condition and a page 20,000 rows
//   deep costs what the first does.

/** Page sizes per list: the specification's where it gives them, else Stripe-like 25 of at most 100. */
export const pageSizes = {
  claims: { default: 25, max: 100 },
  homes: { default: 25, max: 100 },
  bookings: { default: 25, max: 100 },
  refundRequests: { default: 25, max: 100 },
  applications: { default: 25, max: 100 },
  sandboxEmails: { default: 25, max: 100 },
  events: { default: 100, max: 250 },
  // An organisation has a handful of endpoints: the default page holds them all.
  webhookEndpoints: { default: 100, max: 100 },
  webhookDeliveries: { default: 25, max: 100 },
} as const satisfies Record<string, { default: number; max: number }>;

export type PageSize = (typeof pageSizes)[keyof typeof pageSizes];

/** `limit` and `cursor` of a list with this page size; lists extend it with their filters. */
export const pageQuery = (size: PageSize) =>
  z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(size.max)
      .default(size.default)
      .describe(`Page size, 1 to ${size.max} (default ${size.default}).`),
    cursor: storedText()
      .optional()
      .describe('`next_cursor` of the previous page, passed back unchanged. Anything this list did not issue is 422 invalid_field on `cursor`.'),
  });

export { afterCursorRow, assertCursorRowVisible, cursorRowId, encodeCursor, olderThan, page, positionColumn, rowPage, type Keyset } from '../db/paging.ts';

/** Decodes a cursor made by encodeCursor with `arity` parts; anything else is a 422 on `cursor`. */
export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  const key = cursorKey(cursor, arity);
  if (!key) throw apiErrorOf(invalidCursor());
  return key;
}

// Time-anchored paging.

/** The keyset inside a time-anchored cursor; anything else is 422 invalid_field on `cursor`. */
export function cursorKeyset(cursor: string | undefined): Keyset | undefined {
  if (cursor === undefined) return undefined;
  const [position, id] = decodeCursor(cursor, 2);
  if (typeof position !== 'string' || !isPlausibleTimestamp(position) || typeof id !== 'string' || !isUuid(id)) throw apiErrorOf(invalidCursor());
  return [position, id];
}

/** The list envelope of a time-anchored query that fetched `limit + 1` rows, its cursor after the last row shown. */
export function keysetPage<T extends { position: string; id: string }, R>(rows: T[], limit: number, render: (row: T) => R) {
  const { items, nextCursor } = page(rows, limit, (row) => [row.position, row.id]);
  return list(items.map(render), nextCursor);
}
