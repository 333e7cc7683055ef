import { createRoute, z } from '@hono/zod-openapi';
import { ErrorSchema } from '../../shared/http/routes.ts';

// The feed address in the API reference. The address is no API route (no key, no JSON, no envelope:
// a channel polls it as a calendar), so its handler is app.ts's plain one; this declaration only
// documents it, beside the routes of the groups (functions/groups.ts), so that the document answers
// for `text/calendar` too.

const validator = { schema: { type: 'string' as const } };

export const calendarFeedRoute = createRoute({
  method: 'get',
  path: '/calendar/{token}.ics',
  operationId: 'getCalendarFeed',
  tags: ['Availability'],
  summary: "A home's calendar as an iCalendar feed, for other channels (no key)",
  description: [
    'What another channel (Airbnb, Vrbo, Booking.com, a channel manager, Google Calendar) imports to keep the home\'s nights closed there: ' +
      "one all-day event per range the home is not free, a stay (`UID:stay-…`, the same for the stay's life however its dates change) " +
      'or a provider block (`UID:block-…`), never who stays or why. The address is issued, rotated and revoked with ' +
      '`POST`/`DELETE /properties/{ref}/calendar-export`, and the token in it is its only credential: no API key.',
    'Pollers come back every few minutes: send the `ETag` back as `If-None-Match` (or `Last-Modified` as `If-Modified-Since`) ' +
      'and an unchanged calendar answers `304` without a body.',
  ].join('\n\n'),
  security: [],
  request: {
    params: z.object({
      token: z
        .string()
        .regex(/^cal_(test_)?[0-9A-Za-z]{40}$/)
        .openapi({ example: 'cal_test_4f9KcQ2mX7bT1rZs8nW3yV6pL0aH5dJe4f9KcQ2m' })
        .describe('`cal_` (live) or `cal_test_` (sandbox) and 40 letters and digits, as the issued `url` ends before `.ics`.'),
    }),
    headers: z.object({
      'if-none-match': z.string().optional().describe('The `ETag` of the copy the channel holds.'),
      'if-modified-since': z.string().optional().describe('The `Last-Modified` of the copy the channel holds (ignored when If-None-Match is sent).'),
    }),
  },
  responses: {
    200: {
      description: 'The calendar (RFC 5545), lines ending in CRLF.',
      headers: {
        ETag: { ...validator, description: 'Changes whenever the calendar does.' },
        'Last-Modified': { ...validator, description: 'When the home\'s nights last changed.' },
        'Cache-Control': { ...validator, description: '`private, no-cache`: every poll asks again, cheaply with the validators.' },
      },
      content: { 'text/calendar': { schema: z.string().openapi({ example: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n…\r\nEND:VCALENDAR\r\n' }) } },
    },
    304: {
      description: 'Not modified since the copy the channel named (If-None-Match or If-Modified-Since): no body.',
      headers: { ETag: validator, 'Last-Modified': validator },
    },
    404: { description: 'No calendar at this address: never issued, or replaced or revoked (not_found).', content: { 'application/json': { schema: ErrorSchema } } },
    500: { description: 'The calendar could not be read just now (server_error).', content: { 'application/json': { schema: ErrorSchema } } },
  },
});
