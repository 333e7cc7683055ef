// The durable job queue and the live e-signature callback.
import { describe, expect, it } from 'vitest';
import { runDueJobs, type JobDefinition } from '../../shared/jobs/runner.ts';
import { runAfterCommit, settleRunsAfterCommit } from '../../shared/jobs/after-commit.ts';
import { CallbackRejected, type ESignaturePort } from '../../shared/placements/ports/types.ts';
import { createCallbackApp } from '../../functions/esign-callback/app.ts';
import { createOrg, ownerSql } from '../helpers.ts';
import { events, jobsOf, placeWithDates, scene } from './fixtures.ts';

async function queue(orgId: string, kind: string, payload: Record<string, unknown> = {}, maxAttempts = 3) {
  const [row] = await ownerSql()`
    insert into app.jobs (kind, org_id, environment, payload, max_attempts) values (${kind}, ${orgId}, 'sandbox', ${ownerSql().json(payload as never)}, ${maxAttempts})
    returning id`;
  return row.id as string;
}
const job = async (id: string) => (await ownerSql()`select status, attempts, last_error, result, run_at > now() as waiting, locked_until from app.jobs where id = ${id}`)[0];
const due = (id: string) => ownerSql()`update app.jobs set run_at = now() where id = ${id}`;

describe('the job runner', () => {
  it('retries a failing job with backoff, records the error, and abandons it after max_attempts', async () => {
    const orgId = await createOrg('carrier');
    const failing: JobDefinition = { kind: 'test.failing', run: () => Promise.reject(new Error('provider is down')) };
    const id = await queue(orgId, 'test.failing');
    expect(await runDueJobs({ registry: { [failing.kind]: failing }, organisations: [orgId] })).toEqual({ claimed: 1, succeeded: 0, failed: 1 });
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'Error: provider is down', waiting: true, locked_until: null });
    // Not due yet: nothing runs.
    expect((await runDueJobs({ registry: { [failing.kind]: failing }, organisations: [orgId] })).claimed).toBe(0);
    await due(id);
    await runDueJobs({ registry: { [failing.kind]: failing }, organisations: [orgId] });
    await due(id);
    await runDueJobs({ registry: { [failing.kind]: failing }, organisations: [orgId] });
    expect(await job(id)).toMatchObject({ status: 'abandoned', attempts: 3 });
  });

  it('runs a job once when two runners drain at once, and keeps what the handler returned', async () => {
    const orgId = await createOrg('carrier');
    let runs = 0;
    const slow: JobDefinition<{ n: number }> = {
      kind: 'test.slow',
      run: async ({ n }) => {
        runs++;
        await new Promise((r) => setTimeout(r, 50));
        return { doubled: n * 2 };
      },
    };
    const ids = await Promise.all([1, 2, 3].map((n) => queue(orgId, 'test.slow', { n })));
    const reports = await Promise.all([1, 2].map(() => runDueJobs({ registry: { [slow.kind]: slow }, organisations: [orgId] })));
    expect(reports.reduce((sum, r) => sum + r.succeeded, 0)).toBe(3);
    expect(runs).toBe(3);
    expect((await job(ids[1])).result).toEqual({ doubled: 4 });
  });

  it('runs jobs claimed together in one call of a kind that takes several, keeping each result; a single job runs alone', async () => {
    const orgId = await createOrg('carrier');
    const calls: number[][] = [];
    const summing: JobDefinition<{ n: number }> = {
      kind: 'test.summing',
      run: async ({ n }) => {
        calls.push([n]);
        return { n };
      },
      runMany: async (jobs) => {
        calls.push(jobs.map((j) => j.payload.n));
        return jobs.map((j) => ({ n: j.payload.n, together: jobs.length }));
      },
    };
    const ids = await Promise.all([1, 2, 3].map((n) => queue(orgId, 'test.summing', { n })));
    expect(await runDueJobs({ registry: { [summing.kind]: summing }, ids })).toEqual({ claimed: 3, succeeded: 3, failed: 0 });
    expect(calls).toHaveLength(1);
    expect([...calls[0]].sort()).toEqual([1, 2, 3]);
    for (const [i, id] of ids.entries()) expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 1, result: { n: i + 1, together: 3 } });
    const alone = await queue(orgId, 'test.summing', { n: 4 });
    await runDueJobs({ registry: { [summing.kind]: summing }, ids: [alone] });
    expect(calls[1]).toEqual([4]);
    expect(await job(alone)).toMatchObject({ status: 'succeeded', result: { n: 4 } });
  });

  it('fails every job of a batch whose run throws; each retries on its own schedule', async () => {
    const orgId = await createOrg('carrier');
    const broken: JobDefinition = { kind: 'test.broken', run: () => Promise.reject(new Error('one')), runMany: () => Promise.reject(new Error('all down')) };
    const ids = await Promise.all([1, 2].map(() => queue(orgId, 'test.broken')));
    expect(await runDueJobs({ registry: { [broken.kind]: broken }, ids })).toEqual({ claimed: 2, succeeded: 0, failed: 2 });
    for (const id of ids) expect(await job(id)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'Error: all down', waiting: true, locked_until: null });
  });

  it('after commit: a job alone starts at once; those started while it runs wait and run together', async () => {
    const orgId = await createOrg('carrier');
    const calls: number[][] = [];
    const recording: JobDefinition<{ n: number }> = {
      kind: 'test.after_commit',
      run: async ({ n }) => {
        calls.push([n]);
        await new Promise((r) => setTimeout(r, 20));
      },
      runMany: async (jobs) => {
        calls.push(jobs.map((j) => j.payload.n));
        return jobs.map(() => null);
      },
    };
    const ids = await Promise.all([1, 2, 3].map((n) => queue(orgId, 'test.after_commit', { n })));
    for (const id of ids) runAfterCommit({ [recording.kind]: recording }, [id]);
    await settleRunsAfterCommit();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toHaveLength(1);
    expect(calls[1]).toHaveLength(2);
    expect([...calls.flat()].sort()).toEqual([1, 2, 3]);
    for (const id of ids) expect(await job(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a live placement queues its contract durably: the job waits for the live adapter and keeps retrying', async () => {
    const s = await scene('live');
    const lease = await placeWithDates(s.api, s.ref, s.home);
    expect(await jobsOf(s.c.orgId, 'send_contract')).toEqual([expect.objectContaining({ status: 'pending', attempts: 0, payload: { lease_id: lease.id } })]);
  });
});

describe('the live e-signature callback', () => {
  /** The provider's own record: who has signed, as a re-read of the document would answer. */
  const signedAtProvider = new Set<string>();
  function fakePort(): ESignaturePort {
    return {
      kind: 'live',
      send: () => Promise.resolve({ providerRef: 'x' }),
      withdraw: () => Promise.resolve(),
      signedDocument: () => Promise.reject(new Error('not used here')),
      hasSigned: (ref, role) => Promise.resolve(signedAtProvider.has(`${ref}:${role}`)),
      readCallback: async (headers, raw) => {
        if (headers.get('x-test-signature') !== 'good') throw new CallbackRejected('bad signature');
        const body = JSON.parse(raw);
        return body.kind === 'ignored' ? null : { providerRef: body.ref, kind: body.kind, role: body.role, at: new Date() };
      },
    };
  }
  const post = (app: ReturnType<typeof createCallbackApp>, body: unknown, signature = 'good') =>
    app.request('/esign-callback', { method: 'POST', headers: { 'x-test-signature': signature }, body: JSON.stringify(body) });

  it('verifies the signature, applies the first signature and the countersignature once each, and ignores what it does not act on', async () => {
    const s = await scene('live');
    const lease = await placeWithDates(s.api, s.ref, s.home);
    const ref = `env_${lease.id}`;
    // As the live send-contract job records it.
    await ownerSql()`update app.lease_agreements set status = 'sent_for_signature', provider_ref = ${ref}, sent_at = now() where id = ${lease.id}`;
    const app = createCallbackApp(fakePort);

    const rejected = await post(app, { ref, kind: 'signed', role: 'tenant' }, 'forged');
    expect(rejected.status).toBe(401);
    expect((await rejected.json()).error.code).toBe('invalid_signature');
    expect((await ownerSql()`select status from app.lease_agreements where id = ${lease.id}`)[0].status).toBe('sent_for_signature');

    // A callback that claims a signature the provider's own record does not have is not applied.
    expect((await (await post(app, { ref, kind: 'signed', role: 'tenant' })).json()).data).toEqual({ received: true, applied: false, note: 'not signed at the provider' });
    expect((await ownerSql()`select status from app.lease_agreements where id = ${lease.id}`)[0].status).toBe('sent_for_signature');
    signedAtProvider.add(`${ref}:tenant`).add(`${ref}:landlord`);
    expect(await (await post(app, { ref, kind: 'signed', role: 'tenant' })).json()).toEqual({ data: { received: true, applied: true } });
    const again = await (await post(app, { ref, kind: 'signed', role: 'tenant' })).json();
    expect(again.data).toMatchObject({ received: true, applied: false });
    expect(await (await post(app, { ref, kind: 'signed', role: 'landlord' })).json()).toEqual({ data: { received: true, applied: true } });
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].lease?.status).toBe('fully_signed');
    expect((await events(s.c.orgId, 'lease.first_signed')).length).toBe(1);
    expect((await events(s.c.orgId, 'lease.signed')).length).toBe(1);

    expect((await (await post(app, { kind: 'ignored' })).json()).data.applied).toBe(false);
    expect((await (await post(app, { ref: 'unknown', kind: 'signed', role: 'tenant' })).json()).data).toMatchObject({ applied: false, note: 'unknown contract' });
  });
});
