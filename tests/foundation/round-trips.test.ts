import { z } from '@hono/zod-openapi';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { inOneWrite, withTenant } from '../../shared/db/tenant.ts';
import { createFunctionApp } from '../../shared/http/app.ts';
import { flushUsage } from '../../shared/http/middleware/usage.ts';
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
  // The warm-up's usage counts are written now, so their timed write cannot land in the measurement.
  await flushUsage();
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
      operationId: 'probeRead',
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
      operationId: 'probeReadThatWrites',
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
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/writes-in-one-write',
      operationId: 'probeReadThatWritesInOneWrite',
      scope: 'any-read',
      summary: 'A read that writes, in one write (test only)',
      responses: { 200: jsonResponse(z.object({ written: z.number() }), 'Done') },
    }),
    async (c) => {
      const caller = c.get('caller');
      const [rows] = await inOneWrite(caller, (tx) => [tx`
        insert into app.idempotency_keys (org_id, environment, key, fingerprint, state)
        values (${caller.orgId}, ${caller.environment}, ${crypto.randomUUID()}, 'probe-one-write', 'done') returning 1`]);
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

  it('an authenticated read costs two round trips: begin, context, the read and the commit travel together', async () => {
    const t = await createTenant('carrier');
    const created = await call('POST', '/claims', { key: t.live, body: claimBody({ ...at(spot(7, 0)) }) });
    expect(created.status).toBe(201);
    const { response, beforeResponse, after } = await roundTrips(() =>
      call('GET', `/claims/${created.body.data.claim_ref}`, { key: t.live }).then((res) => new Response(res.text, { status: res.status })));
    expect(response.status).toBe(200);
    expect(beforeResponse).toHaveLength(2);
    expect(onlyAuthentication(beforeResponse[0])).toBe(true);
    // One transaction the database keeps read-only, in one write: nothing is left to send afterwards.
    expect(beforeResponse[1]).toHaveLength(4);
    expect(beforeResponse[1][0]).toBe('begin read only');
    expect(beforeResponse[1][1]).toMatch(/^select set_config\('role', 'svc_api', true\)/);
    expect(beforeResponse[1][2]).toMatch(/^select c\.\*/);
    expect(beforeResponse[1][3]).toBe('commit');
    expect(after).toEqual([]);
  });

  it('a reference that names no request is refused before any statement, and its opened transaction ends unused', async () => {
    const t = await createTenant('carrier');
    const { response, beforeResponse, after } = await roundTrips(() =>
      call('GET', '/claims/nonsense', { key: t.live }).then((res) => new Response(res.text, { status: res.status })));
    expect(response.status).toBe(404);
    const statements = [...beforeResponse, ...after].flat();
    expect(statements.filter((statement) => statement.startsWith('select c.*'))).toEqual([]);
    // begin and the context went out first; the rollback closes them, so the connection returns clean.
    expect(statements.slice(-3).map((s) => s.slice(0, 24))).toEqual(['begin read only', "select set_config('role'", 'rollback']);
  });

  it('GET matches costs two round trips: the request and its candidates read in one transaction, in one write', async () => {
    const t = await createTenant('carrier');
    const created = await call('POST', '/claims', { key: t.live, body: claimBody({ ...at(spot(7, 2)) }) });
    expect(created.status).toBe(201);
    const { response, beforeResponse, after } = await roundTrips(() =>
      call('GET', `/claims/${created.body.data.claim_ref}/matches`, { key: t.live }).then((res) => new Response(res.text, { status: res.status })));
    expect(response.status).toBe(200);
    expect(beforeResponse).toHaveLength(2);
    expect(onlyAuthentication(beforeResponse[0])).toBe(true);
    expect(beforeResponse[1].map((s) => s.slice(0, 24))).toEqual([
      'begin read only', "select set_config('role'", 'select c.*, app.coordina', 'select m.property_id, m.', 'commit',
    ]);
    expect(after).toEqual([]);
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

  it('a read whose statements in one write write runs again read-write, and its result stands', async () => {
    const t = await createTenant('carrier');
    const headers = { authorization: `Bearer ${t.sandbox}`, 'x-forwarded-for': '10.0.0.1' };
    const { response, beforeResponse } = await roundTrips(() => probeApp.fetch(new Request('http://localhost/count/writes-in-one-write', { headers })));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ written: 1 });
    // The read-only attempt, refused by the database, then the same write read-write: two writes, one commit that counts.
    expect(beforeResponse.slice(1).map((trip) => [trip[0], trip.at(-1)])).toEqual([['begin read only', 'commit'], ['begin', 'commit']]);
    const [{ count }] = await ownerSql()`select count(*)::int from app.idempotency_keys where fingerprint = 'probe-one-write' and org_id = ${t.orgId}`;
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

  // Sourcing is a job of its own, started after the commit: the request is authentication, then the
  // insert, the sourcing job and the announcement with begin and the commit, in one write.
  it('POST /claims: two round trips; the insert, the job and the event travel with begin and one flushed commit', async () => {
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
    expect(beforeResponse).toHaveLength(2);
    expect(onlyAuthentication(beforeResponse[0])).toBe(true);
    expect(beforeResponse[1].map((s) => s.slice(0, 24))).toEqual([
      'begin', "select set_config('role'", 'insert into app.claims (', 'insert into app.jobs (ki', 'select app.record_event(', 'commit',
    ]);
    // No usage or rate-limit write of its own: every commit belongs to the request's work.
    expect(beforeResponse.flat().filter((statement) => /usage|rate_windows/.test(statement))).toEqual([]);
  });

  it('POST /claims with an external_id met before: the one write changes nothing, and the general way answers with the request', async () => {
    vi.stubEnv('JOBS_RUN_AFTER_COMMIT', 'false');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTenant('carrier');
    const body = claimBody({ ...at(spot(7, 3)), external_id: 'RT-REPEATED' });
    const first = await call('POST', '/claims', { key: t.live, body });
    expect(first.status).toBe(201);
    const { response, beforeResponse } = await roundTrips(() =>
      call('POST', '/claims', { key: t.live, body }).then((res) => new Response(res.text, { status: res.status })));
    expect(response.status).toBe(200);
    expect((await response.json()).data).toMatchObject({ id: first.body.data.id, idempotent: true });
    const statements = beforeResponse.flat();
    expect(statements.filter((statement) => statement.startsWith('insert into app.claims'))).toHaveLength(2);
    expect(statements.filter((statement) => statement.includes('on conflict (org_id, environment, external_id) do nothing'))).toHaveLength(1);
    const [counts] = await ownerSql()<{ claims: number; jobs: number; events: number }[]>`
      select (select count(*)::int from app.claims where org_id = ${t.orgId}) as claims,
             (select count(*)::int from app.jobs where org_id = ${t.orgId} and kind = 'source_new_requests') as jobs,
             (select count(*)::int from app.events where org_id = ${t.orgId} and event = 'request.status_changed') as events`;
    expect(counts).toEqual({ claims: 1, jobs: 1, events: 1 });
  });

  it('POST /claims whose announcement cannot be recorded: the one write changes nothing, the general way creates the request and queues its sourcing', async () => {
    vi.stubEnv('JOBS_RUN_AFTER_COMMIT', 'false');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTenant('carrier');
    // An event log that refuses this organisation's events (test only; other organisations are untouched).
    const sql = ownerSql();
    const trigger = `test_refuse_events_${t.orgId.replaceAll('-', '')}`;
    await sql.unsafe(`
      create function app.${trigger}() returns trigger language plpgsql as $$
      begin raise exception 'event log refuses %', new.org_id; end $$;
      create trigger ${trigger} before insert on app.events for each row when (new.org_id = '${t.orgId}') execute function app.${trigger}()`);
    onTestFinished(async () => {
      await sql.unsafe(`drop trigger ${trigger} on app.events; drop function app.${trigger}()`);
    });
    const created = await call('POST', '/claims', { key: t.live, body: claimBody({ ...at(spot(7, 4)) }) });
    expect(created.status).toBe(201);
    const [counts] = await sql<{ claims: number; jobs: number; events: number }[]>`
      select (select count(*)::int from app.claims where org_id = ${t.orgId}) as claims,
             (select count(*)::int from app.jobs where org_id = ${t.orgId} and kind = 'source_new_requests'
                and payload -> 'request_ids' ? ${created.body.data.id}) as jobs,
             (select count(*)::int from app.events where org_id = ${t.orgId}) as events`;
    expect(counts).toEqual({ claims: 1, jobs: 1, events: 0 });
  });
});
