import { z } from '@hono/zod-openapi';
import type { Side } from '../db/tenant.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { decodeCursor } from '../http/envelope.ts';
import { eventsFor, sendsTo, type EventName } from '../events/registry.ts';

// Request pieces shared by the events and webhooks groups.

export const IdParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, format: 'uuid', example: '5b0e3d5c-2f8a-4c1e-9b7d-3e6f8a1c2d40' }),
});

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isUuid = (value: string) => uuidPattern.test(value);

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
 * The keyset of the newest-first lists (events, endpoints, deliveries): the exact recording time,
 * as Postgres prints it (microseconds), and the id of the last row shown. Queries compare it as
 * `::text::timestamptz`: a parameter typed timestamptz would pass through a JS Date and lose the
 * microseconds.
 */
export function keysetAfter(cursor: string): [string, string] {
  const [position, id] = decodeCursor(cursor, 2);
  if (typeof position !== 'string' || Number.isNaN(Date.parse(position)) || typeof id !== 'string' || !isUuid(id)) {
    throw new ApiError('invalid_field', 'cursor is not a cursor returned by this endpoint.', 'cursor');
  }
  return [position, id];
}
