// Money that waits on a job reaches a person: a refund job that runs out of attempts is announced to
// the carrier and the landlord (payment.refund_failed), logged at error level, shown to staff in
// Studio (staff.abandoned_jobs), and listed and retried from the operator console.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sandboxPayments } from '../../shared/placements/ports/sandbox.ts';
import { consoleCommand, ownerSql } from '../helpers.ts';
import { runConsole } from '../foundation/run-console.ts';
import { drainJobs } from './fixtures.ts';
import { events, signedLease } from './payment-fixtures.ts';

const logLevel = process.env.LOG_LEVEL;
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.JOBS_RUN_AFTER_COMMIT;
  process.env.LOG_LEVEL = logLevel;
});

/** A paid placement whose approved refund the processor keeps refusing, until its job is abandoned. */
async function abandonedRefund() {
  // The scheduler's runs only (drainJobs), so every attempt is the test's.
  process.env.JOBS_RUN_AFTER_COMMIT = 'false';
  const s = await signedLease();
  await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
  const asked = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, amount: 100, goodwill: true });
  expect(asked.status).toBe(202);
  const refundId = asked.body.data.refund_request_id as string;
  expect((await s.providerApi.post(`/properties/refund-requests/${refundId}`, { decision: 'approve' })).status).toBe(200);
  const [job] = await ownerSql()<{ id: string }[]>`
    update app.jobs set max_attempts = 2 where org_id = ${s.c.orgId} and kind = 'issue_refund' returning id`;

  const refused = vi.spyOn(sandboxPayments, 'refund').mockRejectedValue(new Error('the processor is down'));
  const lines: string[] = [];
  process.env.LOG_LEVEL = 'error';
  vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
  await drainJobs(s.c.orgId);
  await ownerSql()`update app.jobs set run_at = now() where id = ${job.id}`;
  await drainJobs(s.c.orgId);
  expect(refused).toHaveBeenCalledTimes(2);
  return { ...s, refundId, jobId: job.id, lines: lines.map((line) => JSON.parse(line)) };
}

describe('an abandoned refund job', () => {
  it('is announced to the carrier and the landlord, logged at error level and shown to staff', async () => {
    const s = await abandonedRefund();
    const [job] = await ownerSql()`select status, attempts from app.jobs where id = ${s.jobId}`;
    expect(job).toEqual({ status: 'abandoned', attempts: 2 });
    // What the approval posted stays posted: the reconciliation lists the refund in flight, with the
    // command that retries it, and no difference (it listed refund_not_approved).
    const reconciled = await consoleCommand<{ differences: number; data: Record<string, unknown>[] }>('ledger', 'reconcile', '--org', s.c.orgId);
    expect(reconciled).toMatchObject({ differences: 0, data: [expect.objectContaining({
      kind: 'refund_in_flight', refund_request_id: s.refundId, detail: expect.stringContaining(`abandoned (admin job retry --id ${s.jobId})`),
    })] });

    // The carrier reads it in its event log (and its endpoints receive it).
    const carrier = await s.api.get('/events?event=payment.refund_failed');
    expect(carrier.status).toBe(200);
    expect(carrier.body.data).toEqual([
      expect.objectContaining({
        event: 'payment.refund_failed',
        data: expect.objectContaining({ reference: s.ref, property_id: s.home, refund_request_id: s.refundId, amount: 100, currency: 'usd', attempts: 2 }),
      }),
    ]);
    // So does the landlord, whose account still holds the money.
    const landlord = await s.providerApi.get('/events?event=payment.refund_failed');
    expect(landlord.status).toBe(200);
    expect(landlord.body.data).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ reference: s.ref, property_id: s.home, refund_request_id: s.refundId, amount: 100, attempts: 2 }),
      }),
    ]);
    // Never the processor's words: those are for staff.
    expect(JSON.stringify(carrier.body)).not.toContain('processor is down');
    // And it is on the request's timeline, where the carrier reads what became of its money.
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data as any[];
    const failed = timeline.filter((entry) => entry.type === 'payment.refund_failed');
    expect(failed).toEqual([expect.objectContaining({
      summary: expect.stringMatching(/^Refund of 100\.00 USD approved but not issued/),
      detail: expect.objectContaining({ refund_request_id: s.refundId, amount: 100, currency: 'usd' }),
    })]);
    expect(JSON.stringify(failed)).not.toContain('processor is down');

    expect(s.lines).toContainEqual(expect.objectContaining({
      level: 'error', message: 'job abandoned', job_id: s.jobId, kind: 'issue_refund', org_id: s.c.orgId, attempts: 2,
      error: 'Error: the processor is down',
    }));

    const [row] = await ownerSql()`
      select kind, environment, attempts, last_error, concerns, amount, reference, retry
        from staff.abandoned_jobs where job_id = ${s.jobId}`;
    expect(row).toEqual({
      kind: 'issue_refund', environment: 'sandbox', attempts: 2, last_error: 'Error: the processor is down',
      concerns: `refund request ${s.refundId}`, amount: '100.00', reference: s.ref, retry: `admin job retry --id ${s.jobId}`,
    });
  });

  it('an abandoned email is shown to staff too, by its topic and addresses, after the money', async () => {
    const s = await abandonedRefund();
    const message = { to: ['adjuster@example.com', 'team@example.com'], subject: 'Lease sent', text: 'The lease went out.', topic: 'lease.sent' };
    const [email] = await ownerSql()`
      insert into app.jobs (kind, org_id, environment, payload, status, attempts, max_attempts, last_error, completed_at)
      values ('send_email', ${s.c.orgId}, 'sandbox', ${ownerSql().json(message)}, 'abandoned', 8, 8, 'Error: mailbox unavailable', now())
      returning id`;
    const [row] = await ownerSql()`select concerns, amount, reference from staff.abandoned_jobs where job_id = ${email.id}`;
    expect(row).toEqual({ concerns: 'lease.sent email to adjuster@example.com, team@example.com', amount: null, reference: null });
    const listed = await consoleCommand<{ data: { id: string }[] }>('job', 'list', '--org', s.c.orgId);
    expect(listed.data.map((j) => j.id)).toEqual([s.jobId, email.id]);
    const emails = await consoleCommand<{ data: { id: string }[] }>('job', 'list', '--org', s.c.orgId, '--kind', 'send_email');
    expect(emails.data.map((j) => j.id)).toEqual([email.id]);
  });

  it('is listed and retried from the operator console; the retry refunds once and the job leaves the list', async () => {
    const s = await abandonedRefund();
    const listed = await runConsole(['job', 'list', '--org', s.c.orgId]);
    expect(listed.code, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout);
    expect(list).toMatchObject({ count: 1, data: [{ id: s.jobId, kind: 'issue_refund', status: 'abandoned', attempts: 2, last_error: 'Error: the processor is down' }] });

    vi.mocked(sandboxPayments.refund).mockRestore();
    const retried = await runConsole(['job', 'retry', '--id', s.jobId]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout).data).toMatchObject({ id: s.jobId, status: 'pending', attempts: 2, max_attempts: 3 });
    // Retrying what is no longer abandoned changes nothing and says so.
    const again = await consoleCommand('job', 'retry', '--id', s.jobId).catch((e) => e);
    expect(again).toMatchObject({ code: 'not_abandoned' });

    await drainJobs(s.c.orgId);
    expect((await events(s.c.orgId, 'payment.refunded')).map((e) => [e.payload.refund_request_id, e.payload.amount])).toEqual([[s.refundId, 100]]);
    expect((await consoleCommand<{ count: number }>('job', 'list', '--org', s.c.orgId)).count).toBe(0);
    expect(await ownerSql()`select 1 from staff.abandoned_jobs where job_id = ${s.jobId}`).toHaveLength(0);

    for (const args of [['job', 'retry'], ['job', 'retry', '--id', 'nope'], ['job', 'retry', '--id', crypto.randomUUID()], ['job', 'list', '--org', 'nope']]) {
      const refused = await consoleCommand(...args).catch((e) => e);
      expect(refused.code, args.join(' ')).toMatch(/^(missing_option|invalid_option|not_found)$/);
    }
  }, 90_000);
});
