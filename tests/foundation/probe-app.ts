// A test-only function mounted with the real shared middleware, to exercise what no product
// route isolates: a write with an observable effect, a slow write, a failing write, a crash.
import { z } from '@hono/zod-openapi';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, dataOf, defineRoute, jsonBody, jsonResponse } from '../../shared/http/routes.ts';
import { single } from '../../shared/http/envelope.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import { emit } from '../../shared/events/outbox.ts';
import { ApiError } from '../../shared/http/errors.ts';

const Body = z.strictObject({
  note: z.string().min(1),
  /** How long the write takes, to overlap two calls. */
  delay_ms: z.number().int().min(0).max(5000).optional(),
  /** `crash`: an unexpected exception; `crash_after_write`: one after the write committed; `conflict`: a 409 ApiError. */
  fail: z.enum(['crash', 'crash_after_write', 'conflict']).optional(),
});

const Result = z.object({ event_id: z.string().nullable(), note: z.string(), at: z.string() });

export const failures = { crashesLeft: 0 };

const routes = createRoutes().openapi(
  defineRoute({
    method: 'post',
    path: '/writes',
    operationId: 'probeWrite',
    scope: 'any-write',
    summary: 'Records an event (test only)',
    request: { body: jsonBody(Body) },
    responses: { 201: jsonResponse(dataOf(Result), 'Written') },
    errors: { 409: { already_signed: 'fail: conflict (the probe stands in a state conflict with a documented code).' } },
  }),
  async (c) => {
    const body = c.req.valid('json');
    if (body.delay_ms) await new Promise((resolve) => setTimeout(resolve, body.delay_ms));
    if (body.fail === 'conflict') throw new ApiError('already_signed', 'Conflict for the test.');
    if (body.fail === 'crash' && failures.crashesLeft > 0) {
      failures.crashesLeft--;
      throw new Error('internal detail: connection string postgres://secret');
    }
    const eventId = await withTenant(c.get('caller'), (tx) =>
      emit(tx, 'request.status_changed', { request_id: crypto.randomUUID(), reference: 'REQ-TEST00', external_id: body.note, status: 'housing_options_found', previous_status: null }),
    );
    if (body.fail === 'crash_after_write' && failures.crashesLeft > 0) {
      failures.crashesLeft--;
      throw new Error('failed after the write committed');
    }
    return c.json(single({ event_id: eventId, note: body.note, at: new Date().toISOString() }), 201);
  },
);

export const probe = createFunctionApp('probe', routes);

export async function callProbe(key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await probe.fetch(
    new Request('http://localhost/probe/writes', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': '10.250.0.1', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
  return { status: response.status, headers: response.headers, text: await response.text() };
}
