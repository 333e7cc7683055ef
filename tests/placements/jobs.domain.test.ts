// The durable job queue and the live e-signature callback.
import { describe, expect, it } from 'vitest';
import { runDueJobs, type JobDefinition } from '../../shared/jobs/runner.ts';
import { runAfterCommit, settleRunsAfterCommit } from '../../shared/jobs/after-commit.ts';
import { type ESignaturePort } from '../../shared/placements/ports/types.ts';
import { createCallbackApp } from '../../functions/esign-callback/app.ts';
import { documensoESignature } from '../../shared/placements/ports/documenso.ts';
import { rereadContract } from '../../shared/placements/commands/callback.ts';
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

  it('a slow job holds its own slot: the jobs claimed with it and after it run meanwhile, never more than the concurrency at once', async () => {
    const orgId = await createOrg('carrier');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    let mostAtOnce = 0;
    const done: string[] = [];
    const mixed: JobDefinition<{ name: string }> = {
      kind: 'test.mixed',
      run: async ({ name }) => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        if (name === 'slow') await released;
        else await new Promise((r) => setTimeout(r, 5));
        running--;
        done.push(name);
      },
    };
    // Queued in this order (claims take the oldest first): the slow one is in the first claim.
    for (const name of ['slow', 'a', 'b', 'c', 'd']) await queue(orgId, 'test.mixed', { name });
    const report = runDueJobs({ registry: { [mixed.kind]: mixed }, organisations: [orgId], concurrency: 2 });
    const deadline = Date.now() + 5000;
    while (done.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // Before: the runner waited for the whole claim (the slow job) before claiming again.
    expect(done).toEqual(['a', 'b', 'c', 'd']);
    release();
    expect(await report).toEqual({ claimed: 5, succeeded: 5, failed: 0 });
    expect(mostAtOnce).toBe(2);
  });

  it('a job queued while the run goes (a backlog still arriving) runs in the same run, not a tick later', async () => {
    const orgId = await createOrg('carrier');
    const ran: number[] = [];
    const chain: JobDefinition<{ n: number }> = {
      kind: 'test.chain',
      run: async ({ n }) => {
        ran.push(n);
        if (n < 3) await queue(orgId, 'test.chain', { n: n + 1 });
      },
    };
    await queue(orgId, 'test.chain', { n: 1 });
    expect(await runDueJobs({ registry: { [chain.kind]: chain }, organisations: [orgId], concurrency: 2 })).toEqual({ claimed: 3, succeeded: 3, failed: 0 });
    expect(ran).toEqual([1, 2, 3]);
  });

  it('stops claiming once the CPU clock it is given reaches its budget, or at its cap; the rest stays due for the next run', async () => {
    const orgId = await createOrg('carrier');
    // Each job "uses" 400 ms of CPU on a clock of the test's own: the third crosses the 1 s budget.
    let spent = 0;
    const clock = { source: 'thread' as const, usedMs: () => spent };
    const costly: JobDefinition = { kind: 'test.costly', run: async () => void (spent += 400) };
    for (let i = 0; i < 6; i++) await queue(orgId, 'test.costly', {});
    const registry = { [costly.kind]: costly };
    expect(await runDueJobs({ registry, organisations: [orgId], concurrency: 1, cpu: clock, cpuBudgetMs: 1_000 })).toEqual({ claimed: 3, succeeded: 3, failed: 0 });
    expect(await runDueJobs({ registry, organisations: [orgId], concurrency: 1, maxClaimed: 2 })).toEqual({ claimed: 2, succeeded: 2, failed: 0 });
    expect(await runDueJobs({ registry, organisations: [orgId], concurrency: 4 })).toEqual({ claimed: 1, succeeded: 1, failed: 0 });
  });

  it('never claims again a job it is still running whose lease ran out; a concurrency below one still runs one at a time', async () => {
    const orgId = await createOrg('carrier');
    const ran: string[] = [];
    const timed: JobDefinition<{ name: string; ms: number }> = {
      kind: 'test.timed',
      run: async ({ name, ms }) => {
        ran.push(name);
        await new Promise((r) => setTimeout(r, ms));
      },
    };
    await queue(orgId, 'test.timed', { name: 'slow', ms: 300 });
    await queue(orgId, 'test.timed', { name: 'quick', ms: 100 });
    process.env.JOB_LEASE_MS = '50';
    try {
      // When the quick one ends the slow one's lease has run out: the runner claims again, but not it.
      await runDueJobs({ registry: { [timed.kind]: timed }, organisations: [orgId], concurrency: 2 });
    } finally {
      delete process.env.JOB_LEASE_MS;
    }
    expect(ran.sort()).toEqual(['quick', 'slow']);

    await queue(orgId, 'test.timed', { name: 'alone', ms: 1 });
    expect(await runDueJobs({ registry: { [timed.kind]: timed }, organisations: [orgId], concurrency: 0 })).toEqual({ claimed: 1, succeeded: 1, failed: 0 });
    expect(await runDueJobs({ registry: { [timed.kind]: timed }, ids: [] })).toEqual({ claimed: 0, succeeded: 0, failed: 0 });
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
  // Documenso does not sign its callbacks' bodies: its secret travels as-is in X-Documenso-Secret.
  // Whoever holds the secret can post any body, so the body only names the document; the service
  // re-reads the document at the provider in a durable job and applies what that record says.
  const secret = 'whsec-documenso-test';
  const documenso = documensoESignature({ apiUrl: 'https://documenso.invalid/api/v2', apiKey: 'unused', templateId: '1', callbackSecret: secret, fetch: () => Promise.reject(new Error('not used here')) });
  /** The provider's own record: who has signed, as a re-read of the document would answer. */
  const signedAtProvider = new Set<string>();
  const fakePort = (): ESignaturePort => ({ ...documenso, hasSigned: (ref, role) => Promise.resolve(signedAtProvider.has(`${ref}:${role}`)) });
  const post = (app: ReturnType<typeof createCallbackApp>, body: unknown, given = secret) =>
    app.request('/esign-callback', { method: 'POST', headers: { 'x-documenso-secret': given }, body: JSON.stringify(body) });
  /** A Documenso webhook body about the document; `recipients` is what the body claims, never read for state. */
  const webhook = (documentId: number, event: string, recipients: Record<string, unknown>[] = []) => ({ event, payload: { id: documentId, status: 'PENDING', recipients }, createdAt: new Date().toISOString() });
  const rereads = (orgId: string) => runDueJobs({ registry: { reread_contract: { kind: 'reread_contract', run: (payload: { provider_ref: string }) => rereadContract(payload.provider_ref, fakePort()) } }, organisations: [orgId] });

  it('a callback only queues a re-read: what the body claims is never applied, what the provider says is, once', async () => {
    const s = await scene('live');
    const lease = await placeWithDates(s.api, s.ref, s.home);
    const documentId = 5_000_000 + Math.floor(Math.random() * 1_000_000);
    const ref = String(documentId);
    // As the live send-contract job records it.
    await ownerSql()`update app.lease_agreements set status = 'sent_for_signature', provider_ref = ${ref}, sent_at = now() where id = ${lease.id}`;
    const app = createCallbackApp(fakePort);
    const status = async () => (await ownerSql()`select status from app.lease_agreements where id = ${lease.id}`)[0].status;

    const rejected = await post(app, webhook(documentId, 'DOCUMENT_SIGNED'), 'whsec-guess');
    expect(rejected.status).toBe(401);
    expect((await rejected.json()).error.code).toBe('invalid_signature');
    expect(await jobsOf(s.c.orgId, 'reread_contract')).toEqual([]);

    // A body claiming both signed, the provider's record saying nobody has: queued, re-read, nothing applied.
    const signedBoth = [{ signingOrder: 1, signingStatus: 'SIGNED' }, { signingOrder: 2, signingStatus: 'SIGNED' }];
    expect(await (await post(app, webhook(documentId, 'DOCUMENT_COMPLETED', signedBoth))).json()).toEqual({ data: { received: true, queued: true } });
    expect(await jobsOf(s.c.orgId, 'reread_contract')).toEqual([expect.objectContaining({ status: 'pending', payload: { provider_ref: ref } })]);
    await rereads(s.c.orgId);
    expect(await status()).toBe('sent_for_signature');

    // A body claiming a refusal, the provider's record saying the tenant signed: the signature is applied.
    signedAtProvider.add(`${ref}:tenant`);
    await post(app, webhook(documentId, 'DOCUMENT_REJECTED', [{ signingOrder: 1, signingStatus: 'REJECTED' }]));
    await rereads(s.c.orgId);
    expect(await status()).toBe('policyholder_signed');

    // One callback after both signed applies the countersignature; a repeated one changes nothing.
    signedAtProvider.add(`${ref}:landlord`);
    await post(app, webhook(documentId, 'DOCUMENT_SIGNED'));
    await post(app, webhook(documentId, 'DOCUMENT_SIGNED'));
    await rereads(s.c.orgId);
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].lease?.status).toBe('fully_signed');
    expect((await events(s.c.orgId, 'lease.first_signed')).length).toBe(1);
    expect((await events(s.c.orgId, 'lease.signed')).length).toBe(1);
    expect((await jobsOf(s.c.orgId, 'reread_contract')).map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);

    expect((await (await post(app, { event: 'DOCUMENT_OPENED', payload: { id: documentId } })).json()).data).toMatchObject({ queued: false });
    expect((await (await post(app, webhook(documentId + 1, 'DOCUMENT_SIGNED'))).json()).data).toMatchObject({ queued: false, note: 'unknown contract' });
  });
});
