import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, listOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { list } from '../../../shared/http/envelope.ts';
import { issueExport, revokeExport, showExport } from '../calendar-export.ts';
import { homeImports, refreshImport, registerImport, removeImport } from '../calendar-imports.ts';
import {
  CalendarExport, CalendarImport, CalendarImportInput, CalendarImportParams, DeletedCalendarImport, HomeRefParams, RevokedCalendarExport,
} from '../schemas.ts';

// A home's calendar and its other channels: the iCalendar export address (issue or rotate, read,
// revoke), and the other channels' calendars imported here (register, list, remove, fetch now).

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
      const issued = await issueExport(c.get('caller'), c.req.valid('param').ref);
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
    async (c) => c.json(single(await showExport(c.get('caller'), c.req.valid('param').ref)), 200),
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
    async (c) => c.json(single(await revokeExport(c.get('caller'), c.req.valid('param').ref)), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{ref}/calendar-feeds',
      operationId: 'registerCalendarFeed',
      tags: ['Availability'],
      summary: 'Import another channel\'s calendar into the home',
      description:
        'Registers the iCalendar export address of another channel (Airbnb, Vrbo, Booking.com, a channel manager) for the home. It is ' +
        'fetched at once and then every 30 minutes; each range its events take becomes a block of source `ical` naming the feed, ' +
        'replaced wholesale at each successful fetch, so a cancellation there frees the nights here. Matching and `POST dates` treat ' +
        'those nights as taken. A fetch that fails (no answer within 10 s, more than 1 MB, not iCalendar, not 200) keeps the blocks of ' +
        'the last success and shows `last_error` and `consecutive_failures`. The address must be https on the public internet (the ' +
        'rules of webhook endpoints; every fetch checks again where the name resolves). Registering an address the home has answers ' +
        'it (200). A home imports at most 10 calendars by default (422 beyond). A feed is read whole or not at all: one beyond the limits of ' +
        'reading (5,000 events, 1,000 moved instances, 5,000 nights ranges in the next two years, time zones changing more often than ' +
        'yearly, rules too costly to expand) is a failed fetch that keeps the blocks of the last success.',
      scope: 'properties:write',
      request: { params: HomeRefParams, body: jsonBody(CalendarImportInput) },
      responses: {
        201: jsonResponse(dataOf(CalendarImport), 'Registered; the first fetch is queued.'),
        200: jsonResponse(dataOf(CalendarImport), 'The home had this address already.'),
      },
      errors: {
        404: { not_found: 'no such home for this organisation in this environment.' },
        422: { invalid_field: 'url is not https, or not on the public internet; or the home imports the most calendars one home may (10 by default), as the message says.' },
      },
    }),
    async (c) => {
      const { created, feed } = await registerImport(c.get('caller'), c.req.valid('param').ref, c.req.valid('json'));
      return created ? c.json(single(feed), 201) : c.json(single(feed), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{ref}/calendar-feeds',
      operationId: 'listCalendarFeeds',
      tags: ['Availability'],
      summary: 'The calendars imported into the home, with their fetch state',
      scope: 'properties:read',
      request: { params: HomeRefParams },
      responses: { 200: jsonResponse(listOf(CalendarImport), 'The imported calendars, oldest first.') },
      errors: { 404: { not_found: 'no such home for this organisation in this environment.' } },
    }),
    async (c) => c.json(list(await homeImports(c.get('caller'), c.req.valid('param').ref)), 200),
  )
  .openapi(
    defineRoute({
      method: 'delete',
      path: '/{ref}/calendar-feeds/{feed_id}',
      operationId: 'deleteCalendarFeed',
      tags: ['Availability'],
      summary: 'Stop importing a calendar',
      description: 'The feed is no longer fetched, and the blocks read from it are removed: the nights it took are free again unless something else takes them.',
      scope: 'properties:write',
      request: { params: CalendarImportParams },
      responses: { 200: jsonResponse(dataOf(DeletedCalendarImport), 'Removed, with its blocks.') },
      errors: { 404: { not_found: 'no such home, or no such imported calendar on it, in this environment.' } },
    }),
    async (c) => {
      const { ref, feed_id } = c.req.valid('param');
      return c.json(single(await removeImport(c.get('caller'), ref, feed_id)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{ref}/calendar-feeds/{feed_id}/refresh',
      operationId: 'refreshCalendarFeed',
      tags: ['Availability'],
      summary: 'Fetch an imported calendar now',
      description:
        'Queues a fetch of the feed now, besides its schedule; read the feed back for its outcome. While the fetch a refresh queued has ' +
        'not started, another refresh is the same one: nothing more is queued, and the answer is the same.',
      scope: 'properties:write',
      request: { params: CalendarImportParams },
      responses: { 202: jsonResponse(dataOf(CalendarImport), 'The fetch is queued; the state shown is the one before it.') },
      errors: { 404: { not_found: 'no such home, or no such imported calendar on it, in this environment.' } },
    }),
    async (c) => {
      const { ref, feed_id } = c.req.valid('param');
      return c.json(single(await refreshImport(c.get('caller'), ref, feed_id)), 202);
    },
  );
