import { ApiError } from './errors.ts';

// Response envelopes of the specification: a resource under `data`; a list under `data`
// with `count` and, where paged, `next_cursor` (null on the last page).

export const single = <T>(data: T) => ({ data });

export function list<T>(data: T[]): { data: T[]; count: number };
export function list<T>(data: T[], nextCursor: string | null): { data: T[]; count: number; next_cursor: string | null };
export function list<T>(data: T[], nextCursor?: string | null) {
  return nextCursor === undefined ? { data, count: data.length } : { data, count: data.length, next_cursor: nextCursor };
}

// Keyset cursors are opaque base64url strings; clients pass them back unchanged.
// Inside they hold the sort key of the last row of the page.

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

/** Decodes a cursor made by encodeCursor; anything else is a 422 on `cursor`. */
export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  try {
    const key = JSON.parse(fromBase64Url(cursor));
    if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' || typeof k === 'number')) {
      return key;
    }
  } catch {
    // fall through to the error below
  }
  throw new ApiError('invalid_field', 'cursor is not a cursor returned by this endpoint.', 'cursor');
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
