import type { Tx } from './client.ts';
import { invalid } from '../domain-errors.ts';
import { isUuid } from '../ids.ts';

// Row-anchored keyset paging, as the domains' lists use it (requests, homes, bookings, refund
// requests, applications, sandbox emails): newest first on (created_at, id), with an opaque
// base64url cursor naming the last row shown. Below the request pipeline, so a domain pages without
// importing HTTP; shared/http/paging.ts re-exports it beside the page sizes, the query schema and
// the time-anchored paging of the logs (where the two kinds of anchor are explained).

/** A cursor this list did not issue to this key: the domain's refusal, 422 invalid_field on `cursor` at the edge. */
export const invalidCursor = () => invalid('invalid_field', 'cursor is not a cursor this list returned to this key.', 'cursor');

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

/** The key inside a cursor made by encodeCursor with `arity` parts; undefined for anything else. */
export function cursorKey(cursor: string, arity: number): (string | number)[] | undefined {
  try {
    const key = JSON.parse(fromBase64Url(cursor));
    if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' || typeof k === 'number')) {
      return key;
    }
  } catch {
    // not a cursor of ours
  }
  return undefined;
}

/** `{ data, count }`, or with `next_cursor` (null on the last page) for a paged list: the list envelope of the specification. */
export function list<T>(data: T[]): { data: T[]; count: number };
export function list<T>(data: T[], nextCursor: string | null): { data: T[]; count: number; next_cursor: string | null };
export function list<T>(data: T[], nextCursor?: string | null) {
  return nextCursor === undefined ? { data, count: data.length } : { data, count: data.length, next_cursor: nextCursor };
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

/** The row a cursor continues after; invalid on `cursor` for anything this API did not issue. */
export function cursorRowId(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const [id] = cursorKey(cursor, 1) ?? [];
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

// Time-anchored paging (the event log, webhook endpoints and deliveries; see shared/http/paging.ts):
// the statements' parts, below the request pipeline so a repository or a command names them
// without importing HTTP.

/**
 * Where a time-anchored page continues: the exact recording time of the last row shown, as Postgres
 * prints it (microseconds), and its id. Compared as `::text::timestamptz`: a parameter typed
 * timestamptz would pass through a JS Date and lose the microseconds.
 */
export type Keyset = readonly [position: string, id: string];

/** The select-list item every time-anchored query returns, so that its page can make the cursor. */
export const positionColumn = (tx: Tx) => tx`to_json(created_at) #>> '{}' as position`;

/** The condition that continues a list ordered by `created_at desc, id desc` after `after` (nothing on the first page). */
export const olderThan = (tx: Tx, after: Keyset | undefined) =>
  after ? tx`and (created_at, id) < (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``;
