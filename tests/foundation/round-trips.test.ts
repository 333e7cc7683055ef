import { z } from '@hono/zod-openapi';
import { describe, expect, it, vi } from 'vitest';
import { db } from '../../shared/db/client.ts';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, defineRoute, jsonResponse } from '../../shared/http/routes.ts';
import { createTenant } from '../helpers.ts';

// Every use of the pool is counted: each call of db() issues one statement or one transaction.
vi.mock('../../shared/db/client.ts', async (importActual) => {
  const actual = await importActual<typeof import('../../shared/db/client.ts')>();
  return { ...actual, db: vi.fn(actual.db) };
});

const routes = createRoutes().openapi(
  defineRoute({
    method: 'get',
    path: '/',
    scope: 'any-read',
    summary: 'Reports the database calls made before the handler ran (test only)',
    responses: { 200: jsonResponse(z.object({ calls: z.number() }), 'Calls so far') },
  }),
  (c) => c.json({ calls: vi.mocked(db).mock.calls.length }, 200),
);
const app = createFunctionApp('count', routes);

describe('request overhead', () => {
  it('authentication, rate limiting and the tenant context cost one database round trip', async () => {
    const t = await createTenant('carrier');
    vi.mocked(db).mockClear();
    const res = await app.fetch(new Request('http://localhost/count', { headers: { authorization: `Bearer ${t.sandbox}` } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ calls: 1 });
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });
});
