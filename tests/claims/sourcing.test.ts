import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleCommand, createOrg, ownerSql } from '../helpers.ts';
import { ConsoleError } from '../../scripts/console/options.ts';
import { startJobRunner } from '../../scripts/lib/background.ts';
import { runAfterCommit, settleRunsAfterCommit } from '../../shared/jobs/after-commit.ts';
import type { JobRow } from '../../shared/jobs/queue.ts';
import { sourceNewRequests } from '../../shared/claims/sourcing.ts';
import { at, carrier, claimBody, eventsOf, insertHome, openClaim, provider, sourced, spot } from './fixtures.ts';

// Row 1 of the grid: only this file's homes.

/** A stand-in crawler: records what it is sent and answers with `status`. */
let crawler: Server;
let crawlerUrl: string;
let received: { body: any; authorization?: string }[] = [];
let answer = 202;
beforeAll(async () => {
  crawler = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ body: JSON.parse(body), authorization: req.headers.authorization });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => crawler.listen(0, '127.0.0.1', resolve));
  crawlerUrl = `http://127.0.0.1:${(crawler.address() as { port: number }).port}/crawl`;
});
afterAll(() => new Promise<void>((resolve) => crawler.close(() => resolve())));
afterEach(() => {
  delete process.env.SOURCING_CRAWL_URL;
  delete process.env.SOURCING_CRAWL_TOKEN;
  received = [];
  answer = 202;
});

const rounds = (claimId: string) =>
  ownerSql()`select trigger, coordinator_email, matches_found, crawl_status, crawl_detail from app.sourcing_rounds where claim_id = ${claimId} order by created_at`;

describe('POST /claims/{reference}/source-more', () => {
  it('answers 409 no_coordinator for a live request nobody sources, and records nothing', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(spot(1, 0)));
    const res = await c.liveApi.post(`/claims/${made.id}/source-more`);
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('no_coordinator');
    expect(await rounds(made.id)).toHaveLength(1); // the round of creation only
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.coordinator_assigned).toBe(false);
  });

  it("records a round with the organisation's coordinator; the live crawler is not configured by default", async () => {
    const origin = spot(1, 1);
    const c = await carrier();
    await insertHome(await provider(), { latitude: origin.lat, longitude: origin.lng });
    const made = await openClaim(c.liveApi, { ...at(origin), loss_zip: '99701' });
    const assigned = await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'Pat.Coordinator@service.example');
    expect(assigned.data).toMatchObject({ scope: 'organisation', org_id: c.orgId, email: 'pat.coordinator@service.example' });
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.coordinator_assigned).toBe(true);

    const res = await c.liveApi.post(`/claims/${made.claim_ref}/source-more`);
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({
      id: expect.any(String), request_id: made.id, reference: made.claim_ref, coordinator: 'pat.coordinator@service.example',
      matches_found: 1, crawl: { postcode: '99701', status: 'not_configured' }, created_at: expect.any(String),
    });
    expect(await rounds(made.id)).toEqual([
      expect.objectContaining({ trigger: 'opened', coordinator_email: null, crawl_status: 'not_configured' }),
      expect.objectContaining({ trigger: 'source_more', coordinator_email: 'pat.coordinator@service.example', matches_found: 1, crawl_status: 'not_configured' }),
    ]);
  });

  it('sends the crawl request to the configured crawler (with its token) and records failures without failing', async () => {
    const origin = spot(1, 2);
    const c = await carrier();
    await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'pat@service.example');
    process.env.SOURCING_CRAWL_URL = crawlerUrl;
    process.env.SOURCING_CRAWL_TOKEN = 'crawl-secret';
    const made = await openClaim(c.liveApi, { ...at(origin), loss_zip: '99701', bedrooms: 3 });
    expect(received).toHaveLength(1); // creation starts sourcing, crawl included
    const res = await c.liveApi.post(`/claims/${made.id}/source-more`);
    expect(res.body.data.crawl.status).toBe('sent');
    expect(received[1]).toEqual({
      authorization: 'Bearer crawl-secret',
      body: {
        request_id: made.id, reference: made.claim_ref, postcode: '99701', city: 'Austin', state: 'TX', country: 'US',
        latitude: origin.lat, longitude: origin.lng, radius_miles: 25, bedrooms: 3, target_move_in: expect.any(String),
      },
    });

    answer = 503;
    const failed = await c.liveApi.post(`/claims/${made.id}/source-more`);
    expect(failed.status).toBe(202);
    expect(failed.body.data.crawl.status).toBe('failed');
    const recorded = await rounds(made.id);
    expect(recorded.map((r) => r.crawl_status)).toEqual(['sent', 'sent', 'failed']);
    expect(recorded[2].crawl_detail).toBe('crawler answered 503');
  });

  it('answers as usual when the crawl outcome cannot be recorded: the request and the round stand, the round stays pending', async () => {
    const c = await carrier();
    await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'team@service.example');
    process.env.SOURCING_CRAWL_URL = crawlerUrl;
    const sql = ownerSql();
    await sql.unsafe(`
      create or replace function app.test_refuse_round_update() returns trigger language plpgsql as $$
      begin raise exception 'outcome refused for the test'; end $$;
      create trigger test_refuse_round_update before update on app.sourcing_rounds for each row
        when (new.org_id = '${c.orgId}') execute function app.test_refuse_round_update();`);
    try {
      const created = await c.liveApi.post('/claims', claimBody({ ...at(spot(1, 7)), external_id: 'CRAWL-UNRECORDED' }));
      expect(created.status).toBe(201);
      await sourced(created.body.data.id);
      const more = await c.liveApi.post(`/claims/${created.body.data.id}/source-more`);
      expect(more.status).toBe(202);
      expect(more.body.data.crawl.status).toBe('sent');
      expect(received).toHaveLength(2);
      expect((await rounds(created.body.data.id)).map((r) => r.crawl_status)).toEqual(['pending', 'pending']);
    } finally {
      await sql.unsafe('drop trigger test_refuse_round_update on app.sourcing_rounds; drop function app.test_refuse_round_update();');
    }
  });

  it("prefers the request's own coordinator, assigned with the console by claim_ref", async () => {
    const c = await carrier();
    await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'team@service.example');
    const made = await openClaim(c.liveApi, at(spot(1, 3)));
    const assigned = await consoleCommand('coordinator', 'assign', '--request', made.claim_ref.toLowerCase(), '--email', 'solo@service.example');
    expect(assigned.data).toMatchObject({ scope: 'request', request_id: made.id, claim_ref: made.claim_ref, email: 'solo@service.example' });
    const res = await c.liveApi.post(`/claims/${made.id}/source-more`);
    expect(res.body.data.coordinator).toBe('solo@service.example');
  });

  it('always has the sandbox coordinator for sandbox requests; the crawl is recorded, nobody contacted', async () => {
    const c = await carrier();
    process.env.SOURCING_CRAWL_URL = crawlerUrl;
    const made = await openClaim(c.sandboxApi, at(spot(1, 4)));
    const res = await c.sandboxApi.post(`/claims/${made.id}/source-more`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ coordinator: 'sandbox-coordinator@sandbox.invalid', crawl: { status: 'recorded' } });
    expect(received).toHaveLength(0);
    expect((await rounds(made.id)).map((r) => r.crawl_status)).toEqual(['recorded', 'recorded']);
  });

  it('records a round per call; an Idempotency-Key replays the first answer', async () => {
    const c = await carrier();
    const made = await openClaim(c.sandboxApi, at(spot(1, 5)));
    const first = await c.sandboxApi.post(`/claims/${made.id}/source-more`, undefined, { 'Idempotency-Key': 'more-1' });
    const replay = await c.sandboxApi.post(`/claims/${made.id}/source-more`, undefined, { 'Idempotency-Key': 'more-1' });
    expect(replay.body).toEqual(first.body);
    await c.sandboxApi.post(`/claims/${made.id}/source-more`);
    expect(await rounds(made.id)).toHaveLength(3);
  });

  it('answers 404 for an unknown request', async () => {
    const c = await carrier();
    const res = await c.sandboxApi.post('/claims/REQ-ZZZZZZ/source-more');
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });
});

describe('sourcing a new request: a durable job started after the commit', () => {
  const sourcingJobs = (orgId: string) =>
    ownerSql()<(JobRow & { status: string; result: unknown; completed_at: Date })[]>`select * from app.jobs where org_id = ${orgId} and kind = 'source_new_requests' order by created_at`;
  const moves = async (orgId: string) => (await eventsOf(orgId)).filter((e) => e.payload.previous_status !== null).map((e) => e.payload.status);

  /** Creation as in a process that dies right after its commit: the job is queued, nothing starts it. */
  async function createWithoutStart(api: Awaited<ReturnType<typeof carrier>>['liveApi'], body: Record<string, unknown>) {
    process.env.JOBS_RUN_AFTER_COMMIT = 'false';
    try {
      const res = await api.post('/claims', claimBody(body));
      expect(res.status).toBe(201);
      return res.body.data as { id: string; status_primary: string };
    } finally {
      delete process.env.JOBS_RUN_AFTER_COMMIT;
    }
  }

  it('starts in the creating process right after the commit, handed to EdgeRuntime.waitUntil where there is one', async () => {
    const origin = spot(1, 11);
    const c = await carrier();
    await insertHome(await provider(), { latitude: origin.lat, longitude: origin.lng });
    const handed: Promise<unknown>[] = [];
    const edge = globalThis as { EdgeRuntime?: { waitUntil(promise: Promise<unknown>): void } };
    edge.EdgeRuntime = { waitUntil: (promise) => handed.push(promise) };
    let made;
    try {
      made = (await c.liveApi.post('/claims', claimBody(at(origin)))).body.data;
    } finally {
      delete edge.EdgeRuntime;
    }
    expect(made.status_primary).toBe('housing_needs_collected');
    expect(handed).toHaveLength(1);
    // No runner is called here: the run started by the creation itself sources the request.
    await handed[0];
    expect(await sourcingJobs(c.orgId)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.status_primary).toBe('housing_options_found');
    expect(await moves(c.orgId)).toEqual(['housing_options_found']);
  });

  it('is finished by the scheduler when the creating process never started it', async () => {
    const origin = spot(1, 8);
    const c = await carrier();
    await insertHome(await provider(), { latitude: origin.lat, longitude: origin.lng });
    const made = await createWithoutStart(c.liveApi, at(origin));
    expect(made.status_primary).toBe('housing_needs_collected');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sourcingJobs(c.orgId)).toEqual([expect.objectContaining({ status: 'pending', attempts: 0, payload: { request_ids: [made.id] } })]);
    expect(await rounds(made.id)).toEqual([]);

    // The local server's scheduler (the same runner pg_cron drives on Supabase), for this organisation.
    const stop = startJobRunner({ organisations: [c.orgId] });
    try {
      for (let waited = 0; (await sourcingJobs(c.orgId))[0].status === 'pending' && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await stop();
    }
    expect(await sourcingJobs(c.orgId)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
    expect((await c.liveApi.get(`/claims/${made.id}`)).body.data.status_primary).toBe('housing_options_found');
    expect(await rounds(made.id)).toEqual([expect.objectContaining({ trigger: 'opened', matches_found: 1, crawl_status: 'not_configured' })]);
    expect(await moves(c.orgId)).toEqual(['housing_options_found']);
  });

  it('is queued once per creation: an external_id repeat and an Idempotency-Key replay queue nothing', async () => {
    const c = await carrier();
    const body = claimBody({ ...at(spot(1, 9)), external_id: 'ONCE-1' });
    const first = await c.liveApi.post('/claims', body, { 'Idempotency-Key': 'once-1' });
    expect((await c.liveApi.post('/claims', body, { 'Idempotency-Key': 'once-1' })).body).toEqual(first.body);
    expect((await c.liveApi.post('/claims', body)).body.data).toMatchObject({ id: first.body.data.id, idempotent: true });
    const batch = await c.liveApi.post('/claims/batch', { requests: [body] });
    expect(batch.body.results[0].data).toMatchObject({ id: first.body.data.id, idempotent: true });
    await sourced(first.body.data.id);
    expect(await sourcingJobs(c.orgId)).toEqual([expect.objectContaining({ payload: { request_ids: [first.body.data.id] } })]);
    expect(await rounds(first.body.data.id)).toHaveLength(1);
  });

  it('sources the creations that commit while a run is going together, each request once, each job with its own', async () => {
    const origin = spot(1, 11);
    const [c, other] = [await carrier(), await carrier()];
    await insertHome(await provider(), { latitude: origin.lat, longitude: origin.lng });
    const made = [await createWithoutStart(c.liveApi, at(origin)), await createWithoutStart(c.liveApi, at(origin)), await createWithoutStart(other.liveApi, at(origin))];
    const jobs = [...(await sourcingJobs(c.orgId)), ...(await sourcingJobs(other.orgId))];
    // The first starts at once; the other two commit while it runs, and are run together after it.
    for (const job of jobs) runAfterCommit({ source_new_requests: sourceNewRequests }, [job.id]);
    await settleRunsAfterCommit();
    const done = [...(await sourcingJobs(c.orgId)), ...(await sourcingJobs(other.orgId))];
    expect(done.map((job) => [job.status, job.attempts])).toEqual([['succeeded', 1], ['succeeded', 1], ['succeeded', 1]]);
    // Completed in one statement (one transaction time) for the two run together, another for the first.
    const completed = done.map((job) => job.completed_at.getTime());
    expect(completed[2]).toBe(completed[1]);
    expect(completed[1]).not.toBe(completed[0]);
    for (const [i, job] of done.entries()) {
      expect(job.result).toEqual({ rounds: [{ request_id: made[i].id, matches_found: expect.any(Number), crawl: 'not_configured' }] });
      expect(await rounds(made[i].id)).toHaveLength(1);
    }
    expect(await moves(c.orgId)).toEqual(['housing_options_found', 'housing_options_found']);
    expect(await moves(other.orgId)).toEqual(['housing_options_found']);
  });

  it('sources once when started twice at once, or run again after it succeeded', async () => {
    const origin = spot(1, 10);
    const c = await carrier();
    await insertHome(await provider(), { latitude: origin.lat, longitude: origin.lng });
    const made = await createWithoutStart(c.liveApi, at(origin));
    const [job] = await sourcingJobs(c.orgId);
    // Two starts after commit race for the job: one claims it, the other finds nothing to claim.
    runAfterCommit({ source_new_requests: sourceNewRequests }, [job.id]);
    runAfterCommit({ source_new_requests: sourceNewRequests }, [job.id]);
    await settleRunsAfterCommit();
    expect(await sourcingJobs(c.orgId)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
    // The handler itself, run twice more at once (a runner whose lease ran out while it still worked):
    // the request is sourced already, so nothing is recorded again.
    await Promise.all([1, 2].map(() => sourceNewRequests.run({ request_ids: [made.id] }, { sql: ownerSql(), job })));
    expect(await rounds(made.id)).toHaveLength(1);
    expect(await moves(c.orgId)).toEqual(['housing_options_found']);
  });
});

describe('coordinator assign (console)', () => {
  const refusal = async (argv: string[], code: string) => {
    const error = await consoleCommand(...argv).catch((e) => e);
    expect(error).toBeInstanceOf(ConsoleError);
    expect(error.code).toBe(code);
  };

  it('refuses bad arguments', async () => {
    const c = await carrier();
    const sandboxClaim = await openClaim(c.sandboxApi, at(spot(1, 6)));
    await refusal(['coordinator', 'assign', '--email', 'a@b.example'], 'missing_option');
    await refusal(['coordinator', 'assign', '--org', c.orgId, '--request', sandboxClaim.id, '--email', 'a@b.example'], 'missing_option');
    await refusal(['coordinator', 'assign', '--org', c.orgId], 'missing_option');
    await refusal(['coordinator', 'assign', '--org', c.orgId, '--email', 'not-an-email'], 'invalid_option');
    await refusal(['coordinator', 'assign', '--org', 'nope', '--email', 'a@b.example'], 'invalid_option');
    await refusal(['coordinator', 'assign', '--org', crypto.randomUUID(), '--email', 'a@b.example'], 'not_found');
    await refusal(['coordinator', 'assign', '--org', await createOrg('provider'), '--email', 'a@b.example'], 'invalid_option');
    await refusal(['coordinator', 'assign', '--request', 'REQ-ZZZZZZ', '--email', 'a@b.example'], 'not_found');
    await refusal(['coordinator', 'assign', '--request', sandboxClaim.claim_ref, '--email', 'a@b.example'], 'invalid_option');
  });

  it('replaces the organisation coordinator on a second assignment', async () => {
    const c = await carrier();
    await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'first@service.example');
    await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'second@service.example');
    const rows = await ownerSql()`select email from app.org_coordinators where org_id = ${c.orgId}`;
    expect(rows).toEqual([{ email: 'second@service.example' }]);
  });
});
