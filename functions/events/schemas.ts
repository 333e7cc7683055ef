import { z } from '@hono/zod-openapi';
import type { EventRow } from './repository.ts';

// An event as the log lists it and as a webhook delivers it (without the delivery flags).

export const Event = z
  .object({
    id: z.string().uuid().describe('The deduplication key: the same on every delivery and replay.'),
    event: z.string().openapi({ example: 'lease.sent' }),
    created_at: z.string().openapi({ example: '2026-11-21T10:15:00.000Z' }),
    data: z.record(z.string(), z.unknown()).describe("The event's payload; carries the caller's external_id."),
  })
  .openapi('Event');

export const renderEvent = (row: EventRow): z.infer<typeof Event> => ({
  id: row.id,
  event: row.event,
  created_at: row.created_at.toISOString(),
  data: row.data,
});
