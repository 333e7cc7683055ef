import { z } from '@hono/zod-openapi';
import type { Tx } from '../db/client.ts';
import { isUuid } from '../ids.ts';
import { list } from './envelope.ts';
import { ApiError } from './errors.ts';
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

export const invalidCursor = () => new ApiError('invalid_field', 'cursor is not a cursor this list returned to this key.', 'cursor');

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(value: string): string {
  const binary = atob(value.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function encodeCursor(key: readonly (string | number)[]): string {
  return toBase64Url(JSON.stringify(key));
}

/** Decodes a cursor made by encodeCursor with `arity` parts; anything else is a 422 on `cursor`. */
export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  try {
    const key = JSON.parse(fromBase64Url(cursor));
    if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' || typeof k === 'number')) {
      return key;
    }
  } catch {
    // fall through to the error below
  }
  throw invalidCursor();
}

/**
 * Pages a keyset query that fetched `limit + 1` rows: returns the page and the cursor of its last row.
 * `keyOf` gives the sort key that the next page continues after.
 */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => readonly (string | number)[]) {
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(keyOf(items[items.length - 1])) : null;
  return { items, nextCursor };
}

// Row-anchored paging.

/** The row a cursor continues after; 422 on `cursor` for anything this API did not issue. */
export function cursorRowId(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const [id] = decodeCursor(cursor, 1);
  if (typeof id !== 'string' || !isUuid(id)) throw invalidCursor();
  return id;
}

/** The list envelope of a row-anchored query that fetched `limit + 1` rows, its cursor naming the last row shown. */
export function rowPage<T extends { id: string }, R>(rows: T[], limit: number, render: (row: T) => R) {
  const { items, nextCursor } = page(rows, limit, (row) => [row.id]);
  return list(items.map(render), nextCursor);
}

/**
 * The condition "after the row the cursor names": `and (alias.created_at, alias.id) < (that row's
 * created_at, id)`, or nothing without a cursor. `alias` and `table` are constants of the caller,
 * never input.
 */
export const afterCursorRow = (tx: Tx, alias: string, table: string, after: string | undefined) =>
  after
    ? tx`and (${tx.unsafe(alias)}.created_at, ${tx.unsafe(alias)}.id) < (select created_at, id from ${tx.unsafe(table)} where id = ${after}::uuid)`
    : tx``;

/**
 * A page that came back empty after a cursor: the cursor may name a row this key cannot see (another
 * organisation's or environment's, or a row of another list), whose position then matches nothing.
 * Such a cursor was not issued to this key and is refused, rather than answered with an empty last
 * page that a sync would take for the end of the list. Only an empty page can hide it, so only then
 * does this cost a look-up. `table` is a constant of the caller, never input.
 */
export async function assertCursorRowVisible(tx: Tx, table: string, after: string | undefined, rows: readonly unknown[]) {
  if (after === undefined || rows.length > 0) return;
  const [row] = await tx.unsafe(`select 1 from ${table} where id = $1`, [after]);
  if (!row) throw invalidCursor();
}

// Time-anchored paging.

/**
 * Where a time-anchored page continues: the exact recording time of the last row shown, as Postgres
 * prints it (microseconds), and its id. Compared as `::text::timestamptz`: a parameter typed
 * timestamptz would pass through a JS Date and lose the microseconds.
 */
export type Keyset = readonly [position: string, id: string];

/** The keyset inside a time-anchored cursor; anything else is 422 invalid_field on `cursor`. */
export function cursorKeyset(cursor: string | undefined): Keyset | undefined {
  if (cursor === undefined) return undefined;
  const [position, id] = decodeCursor(cursor, 2);
  if (typeof position !== 'string' || !isPlausibleTimestamp(position) || typeof id !== 'string' || !isUuid(id)) throw invalidCursor();
  return [position, id];
}

/** The select-list item every time-anchored query returns, so that its page can make the cursor. */
export const positionColumn = (tx: Tx) => tx`to_json(created_at) #>> '{}' as position`;

/** The condition that continues a list ordered by `created_at desc, id desc` after `after` (nothing on the first page). */
export const olderThan = (tx: Tx, after: Keyset | undefined) =>
  after ? tx`and (created_at, id) < (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``;

/** The list envelope of a time-anchored query that fetched `limit + 1` rows, its cursor after the last row shown. */
export function keysetPage<T extends { position: string; id: string }, R>(rows: T[], limit: number, render: (row: T) => R) {
  const { items, nextCursor } = page(rows, limit, (row) => [row.position, row.id]);
  return list(items.map(render), nextCursor);
}
