import { z } from '@hono/zod-openapi';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { withTenant } from '../../shared/db/tenant.ts';
import { createFunctionApp } from '../../shared/http/app.ts';
import { createRoutes, defineRoute, jsonResponse } from '../../shared/http/routes.ts';
import { call, createTenant, ownerSql } from '../helpers.ts';
import { claimBody, spot, at } from '../claims/fixtures.ts';

// Round trips are counted through the driver's debug hook, which sees every statement as it is
// sent. Statements sent in one turn of the event loop travel in one write and are answered
// together: one round trip. A new turn that sends statements is a new round trip (the answer to
// the previous one had to arrive first).
const sent: string[][] = [];
let turnOpen = false;
function observe(_connection: number, statement: string) {
  if (!turnOpen) {
    sent.push([]);
    turnOpen = true;
    setImmediate(() => (turnOpen = false));
  }
  sent.at(-1)!.push(statement.replace(/\s+/g, ' ').trim());
}

vi.mock('postgres', async (importActual) => {
  const actual = await importActual<{ default: typeof import('postgres') }>();
  const withDebug = ((url: string, options: Record<string, unknown>) => actual.default(url, { ...options, debug: observe })) as unknown as typeof actual.default;
  return { ...actual, default: Object.assign(withDebug, actual.default) };
});

/**
 * The round trips `request` makes once its statements are prepared on every connection of the pool
 * (a statement new to a connection is described first, which stops the pipeline behind it): the
 * warm-up runs ten at once, so that each holds a connection of its own, then one at a time.
 */
async function roundTrips(request: () => Promise<Response> | Response) {
  for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: 10 }, () => request()));
  for (let i = 0; i < 5; i++) await request();
  await settle();
  sent.length = 0;
  const response = await request();
  const beforeResponse = sent.map((trip) => [...trip]);
  await settle();
  return { response, beforeResponse, after: sent.slice(beforeResponse.length) };
}

/** Lets statements sent after a response (a read-only commit) and pending usage writes go out. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

const probe = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      scope: 'any-read',
      summary: 'Answers without touching the database (test only)',
      responses: { 200: jsonResponse(z.object({ ok: z.boolean() }), 'Done') },
    }),
    (c) => c.json({ ok: true }, 200),
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/writes',
      scope: 'any-read',
      summary: 'A read that writes (test only)',
      responses: { 200: jsonResponse(z.object({ written: z.number() }), 'Done') },
    }),
    async (c) => {
      const caller = c.get('caller');
      const rows = await withTenant(caller, (tx) => tx`
        insert into app.idempotency_keys (org_id, environment, key, fingerprint, state)
        values (${caller.orgId}, ${caller.environment}, ${crypto.randomUUID()}, 'probe', 'done') returning 1`);
      return c.json({ written: rows.length }, 200);
    },
  );
const probeApp = createFunctionApp('count', probe);

const onlyAuthentication = (trip: string[]) => trip.length === 1 && trip[0].startsWith('select * from app.authenticate(');

describe('request overhead', () => {
  it('authentication and rate limiting cost one round trip; usage is not written by the request', async () => {
    const t = await createTenant('carrier');
    const headers = { authorization: `Bearer ${t.sandbox}`, 'x-forwarded-for': '10.0.0.1' };
    const { response, beforeResponse } = await roundTrips(() => probeApp.fetch(new Request('http://localhost/count', { headers })));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-remaining')).not.toBeNull();
    expect(beforeResponse).toHaveLength(1);
    expect(onlyAuthentication(beforeResponse[0])).toBe(true);
  });

  it('an authenticated read costs two round trips, and its commit is sent after the response', async () => {
    const t = await createTenant('carrier');
    const created = await call('POST', '/claims', { key: t.live, body: claimBody({ ...at(spot(7, 0)) }) });
    expect(created.status).toBe(201);
    const { response, beforeResponse, after } = await roundTrips(() =>
      call('GET', `/claims/${created.body.data.claim_ref}`, { key: t.live }).then((res) => new Response(res.text, { status: res.status })));
    expect(response.status).toBe(200);
    expect(beforeResponse).toHaveLength(2);
    expect(onlyAuthentication(beforeResponse[0])).toBe(true);
    // begin, the tenant context and the read travel together, in a transaction the database keeps read-only.
    expect(beforeResponse[1]).toHaveLength(3);
    expect(beforeResponse[1][0]).toBe('begin read only');
    expect(beforeResponse[1][1]).toMatch(/^select set_config\('role', 'svc_api', true\)/);
    expect(beforeResponse[1][2]).toMatch(/^select c\.\*/);
    // The commit of a read-only transaction has nothing to flush; the response did not wait for it.
    expect(after[0]).toEqual(['commit']);
  });

  it('a read whose work writes runs again read-write, and its result stands', async () => {
    const t = await createTenant('carrier');
    const headers = { authorization: `Bearer ${t.sandbox}`, 'x-forwarded-for': '10.0.0.1' };
    const { response, beforeResponse } = await roundTrips(() => probeApp.fetch(new Request('http://localhost/count/writes', { headers })));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ written: 1 });
    const statements = beforeResponse.flat();
    expect(statements).toContain('begin read only');
    expect(statements).toContain('begin');
    expect(statements.at(-1)).toBe('commit');
    const [{ count }] = await ownerSql()`select count(*)::int from app.idempotency_keys where fingerprint = 'probe' and org_id = ${t.orgId}`;
    // Every call wrote once: the warm-up's 35 and the one counted.
    expect(count).toBe(36);
  });

  it('counter writes do not wait for a WAL flush', async () => {
    const settings = await ownerSql().begin(async (tx) => {
      await tx`select * from app.authenticate(${'no such key'}, ${'10.0.0.9'})`;
      const [afterAuthentication] = await tx`show synchronous_commit`;
      await tx`select app.add_usage(${tx.json([])})`;
      const [afterUsage] = await tx`show synchronous_commit`;
      return [afterAuthentication.synchronous_commit, afterUsage.synchronous_commit];
    });
    expect(settings).toEqual(['off', 'off']);
    // A data write keeps the server's default.
    const [{ synchronous_commit: standard }] = await ownerSql()`show synchronous_commit`;
    expect(standard).toBe('on');
  });

  // Sourcing is a job of its own, started after the commit: the request is authentication, the
  // insert, the sourcing job with the event, and the commit.
  it('POST /claims: four round trips; begin, context and the insert travel together, the job with the event; one flushed commit', async () => {
    // The sourcing job started after the commit is not the request's work (and is tested in tests/claims/sourcing.test.ts).
    vi.stubEnv('JOBS_RUN_AFTER_COMMIT', 'false');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTenant('carrier');
    let n = 0;
    const { response, beforeResponse } = await roundTrips(() =>
      call('POST', '/claims', { key: t.live, body: claimBody({ ...at(spot(7, 1)), external_id: `RT-${n++}` }) })
        .then((res) => new Response(res.text, { status: res.status })));
    expect(response.status).toBe(201);
    expect(beforeResponse).toHaveLength(4);
    expect(onlyAuthentication(beforeResponse[0])).toBe(true);
    expect(beforeResponse[1].map((s) => s.slice(0, 24))).toEqual([
      'begin', "select set_config('role'", 'savepoint s0', 'insert into app.claims (',
    ]);
    // The job is ahead of the event's savepoint: an event that cannot be recorded never takes the job with it.
    expect(beforeResponse[2].map((s) => s.slice(0, 24))).toEqual(['insert into app.jobs (ki', 'savepoint s1', 'select app.record_event(']);
    expect(beforeResponse[3]).toEqual(['commit']);
    // No usage or rate-limit write of its own: every commit belongs to the request's work.
    expect(beforeResponse.flat().filter((statement) => /usage|rate_windows/.test(statement))).toEqual([]);
  });
});
