import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { deleteClock, moveClock, readClock, setClock } from '../../../shared/clock/commands.ts';
import { jobRegistry } from '../../../shared/job-registry.ts';
import { Clock, ClockAdvance, ClockAdvanced, ClockCreate, ClockDeleted } from '../schemas.ts';
import { sandboxOnlyRefusal } from '../guard.ts';

// The organisation's sandbox clock (shared/clock/commands.ts): every date rule of its sandbox
// requests follows it, and advancing it runs the scheduled jobs that fall due.

const tags = ['Sandbox'];
const about =
  'While the organisation has a sandbox clock, its sandbox requests see the clock\'s time for every date rule (move-in in the past, ' +
  'shortening, what is due, the move-in steps and the closeout on the move-out date); rate windows, keys and record timestamps keep ' +
  'the wall clock. Sandbox keys only.';
const noClock = { 404: { not_found: 'the organisation has no sandbox clock.' } } as const;

export const clockRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/clock',
      operationId: 'setSandboxClock',
      tags,
      summary: 'Set the organisation\'s sandbox clock',
      description:
        `Freezes the organisation's sandbox time at frozen_time (default now): 201 with a new clock, 200 when it replaces the one the ` +
        `organisation had (jobs waiting for that clock keep waiting for their time on this one). ${about}`,
      scope: 'claims:write',
      request: { body: jsonBody(ClockCreate) },
      responses: { 201: jsonResponse(dataOf(Clock), 'A new clock.'), 200: jsonResponse(dataOf(Clock), 'The clock, set anew.') },
      errors: {
        403: { ...sandboxOnlyRefusal, forbidden: 'the key lacks claims:write (provider keys never have it).' },
        422: { invalid_field: 'frozen_time is not a date-time, is in the past, or more than two years ahead.' },
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const { clock, created } = await setClock(c.get('caller'), body.frozen_time === undefined ? undefined : new Date(body.frozen_time));
      return created ? c.json(single(clock), 201) : c.json(single(clock), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/clock',
      operationId: 'getSandboxClock',
      tags,
      summary: 'Read the organisation\'s sandbox clock',
      description: about,
      scope: 'claims:read',
      responses: { 200: jsonResponse(dataOf(Clock), 'The clock.') },
      errors: { 403: { ...sandboxOnlyRefusal, forbidden: 'the key lacks claims:read.' }, ...noClock },
    }),
    async (c) => c.json(single(await readClock(c.get('caller'))), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/clock/advance',
      operationId: 'advanceSandboxClock',
      tags,
      summary: 'Advance the organisation\'s sandbox clock',
      description:
        'Moves the clock forward to frozen_time and runs, before answering, the scheduled jobs that fall due by then (in_stay the day after ' +
        'move-in, the closeout on the move-out date, ...): their events and webhooks follow as usual. Advancing to the same time again ' +
        `changes nothing. ${about}`,
      scope: 'claims:write',
      request: { body: jsonBody(ClockAdvance) },
      responses: { 200: jsonResponse(dataOf(ClockAdvanced), 'The clock at its new time, with the jobs that ran.') },
      errors: {
        403: { ...sandboxOnlyRefusal, forbidden: 'the key lacks claims:write (provider keys never have it).' },
        ...noClock,
        422: { invalid_field: 'frozen_time is not a date-time, is before the clock\'s time, or more than two years ahead.' },
      },
    }),
    async (c) => c.json(single(await moveClock(c.get('caller'), new Date(c.req.valid('json').frozen_time), jobRegistry)), 200),
  )
  .openapi(
    defineRoute({
      method: 'delete',
      path: '/clock',
      operationId: 'deleteSandboxClock',
      tags,
      summary: 'Delete the organisation\'s sandbox clock',
      description:
        'Back to the wall clock: jobs that waited for the clock fall due at the time they were scheduled for. deleted is false when ' +
        'there was no clock (safe to repeat). Sandbox keys only.',
      scope: 'claims:write',
      responses: { 200: jsonResponse(dataOf(ClockDeleted), 'The organisation is on the wall clock.') },
      errors: { 403: { ...sandboxOnlyRefusal, forbidden: 'the key lacks claims:write (provider keys never have it).' } },
    }),
    async (c) => c.json(single(await deleteClock(c.get('caller'))), 200),
  );
