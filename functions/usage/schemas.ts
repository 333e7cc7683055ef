import { z } from '@hono/zod-openapi';

export const Day = z.object({
  day: z.string().openapi({ example: '2026-11-21' }),
  total: z.number().int(),
  '2xx': z.number().int(),
  '3xx': z.number().int(),
  '4xx': z.number().int(),
  '5xx': z.number().int(),
});

export const Usage = z
  .object({
    since: z.string().describe('First day covered (UTC), 29 days before today.'),
    key: z.object({ id: z.string().uuid(), total: z.number().int(), days: z.array(Day) }),
    organisation: z.object({
      id: z.string().uuid(),
      environment: z.enum(['live', 'sandbox']),
      total: z.number().int(),
      days: z.array(Day),
    }),
  })
  .openapi('Usage');

export const RevokedKey = z.object({ id: z.string().uuid(), revoked_at: z.string() }).openapi('RevokedKey');
