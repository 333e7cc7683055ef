import { z } from '@hono/zod-openapi';
import { isUuid } from '../ids.ts';
import type { Tx } from '../db/client.ts';
import type { Side } from '../db/tenant.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { decodeCursor, page } from '../http/envelope.ts';
import { isPlausibleTimestamp } from '../http/values.ts';
import { eventsFor, sendsTo, type EventName } from '../events/registry.ts';

// Request pieces shared by the events and webhooks groups: ids, event names, and the newest-first
// keyset paging of their three lists (events, endpoints, deliveries).

export const IdParams = z.object({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    format: 'uuid',
    description: 'The id the service gave it; anything else is 404 not_found.',
    example: '5b0e3d5c-2f8a-4c1e-9b7d-3e6f8a1c2d40',
  }),
});


/** A path id that cannot name anything is simply not found, like another tenant's. */
export function existingId(id: string, what: string): string {
  if (!isUuid(id)) throw notFound(what);
  return id.toLowerCase();
}

/** Event names the caller's side is sent; anything else is 422 unknown_event on `field`. */
export function knownEvents(names: readonly string[], side: Side, field: string): EventName[] {
  const unknown = names.find((name) => !sendsTo(side, name));
  if (unknown !== undefined) {
    const offered = eventsFor(side).map((d) => d.event).join(', ');
    throw new ApiError('unknown_event', `${unknown} is not an event the service sends to ${side}s; known: ${offered}.`, field);
  }
  return [...new Set(names as EventName[])];
}

/**
 * Where a newest-first page continues: the exact recording time of the last row shown, as Postgres
 * prints it (microseconds), and its id. Compared as `::text::timestamptz`: a parameter typed
 * timestamptz would pass through a JS Date and lose the microseconds.
 */
export type Keyset = readonly [position: string, id: string];

/** The keyset inside a cursor this API issued; anything else is 422 invalid_field on `cursor`. */
export function keysetOf(cursor: string | undefined): Keyset | undefined {
  if (cursor === undefined) return undefined;
  const [position, id] = decodeCursor(cursor, 2);
  if (typeof position !== 'string' || !isPlausibleTimestamp(position) || typeof id !== 'string' || !isUuid(id)) {
    throw new ApiError('invalid_field', 'cursor is not a cursor returned by this endpoint.', 'cursor');
  }
  return [position, id];
}

/** The select-list item every newest-first query returns, so that its page can make the cursor. */
export const positionColumn = (tx: Tx) => tx`to_json(created_at) #>> '{}' as position`;

/**
 * The condition that continues a list ordered by `created_at desc, id desc` after `after` (nothing on
 * the first page). With an index on (tenant, created_at desc, id desc) it is an index condition, so a
 * deep page costs what the first does.
 */
export const olderThan = (tx: Tx, after: Keyset | undefined) =>
  after ? tx`and (created_at, id) < (${after[0]}::text::timestamptz, ${after[1]}::uuid)` : tx``;

/** The page of a newest-first query that fetched `limit + 1` rows, and the cursor after its last row. */
export const newestFirstPage = <T extends { position: string; id: string }>(rows: T[], limit: number) =>
  page(rows, limit, (row) => [row.position, row.id]);
