import { z } from '@hono/zod-openapi';
import { isUuid } from '../ids.ts';
import type { Side } from '../db/tenant.ts';
import { invalid, notFound } from '../domain-errors.ts';
import { type EventName } from './definition.ts';
import { eventsFor, sendsTo } from './registry.ts';

// Request pieces shared by the events and webhooks groups: the ids of events and endpoints in paths,
// and the event names a caller filters by or subscribes to. Their lists page with shared/http/paging.ts.

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
    throw invalid('unknown_event', `${unknown} is not an event the service sends to ${side}s; known: ${offered}.`, field);
  }
  return [...new Set(names as EventName[])];
}
