import { withTenant } from '../../../shared/db/tenant.ts';
import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, defineRoute, jsonResponse } from '../../../shared/http/routes.ts';
import { publicBaseUrl } from '../../../shared/placements/pay-link.ts';
import { issueExport, revokeExport, showExport } from '../calendar-export.ts';
import { CalendarExport, HomeRefParams, RevokedCalendarExport } from '../schemas.ts';

// A home's calendar for its other channels: the iCalendar export address (issue or rotate, read, revoke).

const noExport = { 404: { not_found: 'no such home for this organisation in this environment, or no export address issued for it.' } };

export const calendarRoutes = createRoutes();

calendarRoutes
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{ref}/calendar-export',
      operationId: 'issueCalendarExport',
      tags: ['Availability'],
      summary: 'Issue (or rotate) the home\'s iCalendar export address',
      description:
        'Answers a new address of the home\'s calendar as an iCalendar feed (text/calendar), to paste into Airbnb, Vrbo, Booking.com, ' +
        'Furnished Finder or a channel manager as an imported calendar. The feed has one all-day event per range the home is not free ' +
        'in the key\'s environment: each stay placed here (from the moment its dates are set; "Booked" once paid, "Reserved" before), ' +
        'moved as the stay is shortened or extended under the same UID, and each block the provider set ("Not available"). It names ' +
        'no household, address or request. Calendars imported from other channels are not repeated in it, so that two channels never ' +
        'echo a block back to each other after it is cancelled. The address is a secret: calling this again issues a new one and the ' +
        'earlier one stops answering (404) at once. A sandbox key issues a sandbox feed (`cal_test_` addresses) with sandbox stays only.',
      scope: 'properties:write',
      request: { params: HomeRefParams },
      responses: { 201: jsonResponse(dataOf(CalendarExport), 'The new address, shown only here.') },
      errors: { 404: { not_found: 'no such home for this organisation in this environment.' } },
    }),
    async (c) => {
      const caller = c.get('caller');
      const issued = await withTenant(caller, (tx) => issueExport(tx, c.req.valid('param').ref, caller.environment, publicBaseUrl(c.req.url)));
      return c.json(single(issued), 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{ref}/calendar-export',
      operationId: 'getCalendarExport',
      tags: ['Availability'],
      summary: 'Whether the home has an iCalendar export address',
      description: 'When it was issued and when the calendar last changed. The address itself is not kept, so it is not shown again: issue a new one if it was lost.',
      scope: 'properties:read',
      request: { params: HomeRefParams },
      responses: { 200: jsonResponse(dataOf(CalendarExport), 'The export, without its address.') },
      errors: noExport,
    }),
    async (c) => c.json(single(await withTenant(c.get('caller'), (tx) => showExport(tx, c.req.valid('param').ref))), 200),
  )
  .openapi(
    defineRoute({
      method: 'delete',
      path: '/{ref}/calendar-export',
      operationId: 'revokeCalendarExport',
      tags: ['Availability'],
      summary: 'Revoke the home\'s iCalendar export address',
      description: 'The address stops answering (404) at once; the channels polling it keep the last calendar they read until they are told otherwise.',
      scope: 'properties:write',
      request: { params: HomeRefParams },
      responses: { 200: jsonResponse(dataOf(RevokedCalendarExport), 'Revoked.') },
      errors: noExport,
    }),
    async (c) => c.json(single(await withTenant(c.get('caller'), (tx) => revokeExport(tx, c.req.valid('param').ref))), 200),
  );
