// A live deployment says what became of the household's link: with email not configured nothing is
// claimed as sent (the home's send records the undelivered link on the placement's timeline and as an
// event; a re-send is refused naming the settings), and a send job that fails for good is recorded
// the same way, in a fixed phrase (the transport's words stay with staff).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { drainJobs, events, jobsOf, scene } from './fixtures.ts';

const unconfigured = { EMAIL_TRANSPORT: '', EMAIL_API_KEY: '', EMAIL_FROM: '', SMTP_URL: '' };
const stub = (settings: Record<string, string>) => {
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
};

afterEach(() => vi.unstubAllEnvs());

/** What the carrier is told of a send that failed for good. */
const providerFailed = "the email provider refused the message or could not be reached; the service's staff have the details";

const undelivered = async (s: Awaited<ReturnType<typeof scene>>) =>
  (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.filter((e: any) => e.type === 'household_link.undelivered');

describe("the household's link on a live deployment", () => {
  it('with email not configured: the send says so on the placement and as an event, and a re-send is refused naming the settings', async () => {
    stub(unconfigured);
    const s = await scene('live');
    const sent = await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ option_status: 'sent', household_link_delivery: 'not_configured' });
    expect(await jobsOf(s.c.orgId, 'send_household_link')).toEqual([]);
    expect(await undelivered(s)).toEqual([
      expect.objectContaining({
        property_id: s.home,
        summary: expect.stringContaining('email is not configured'),
        detail: expect.objectContaining({ reason: 'not_configured', error: expect.stringContaining('EMAIL_API_KEY') }),
      }),
    ]);
    expect((await events(s.c.orgId, 'household_link.undelivered')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ reference: s.ref, property_id: s.home, reason: 'not_configured', error: expect.stringContaining('EMAIL_FROM') }),
    ]);

    const resent = await s.api.post(`/claims/${s.ref}/options/${s.home}/household-link`);
    expect(resent.status).toBe(503);
    expect(resent.body.error).toMatchObject({ code: 'not_configured', message: expect.stringContaining('EMAIL_API_KEY') });
    expect(resent.body.data).toBeUndefined();
    expect(await jobsOf(s.c.orgId, 'send_household_link')).toEqual([]);
  });

  it('a send job that fails for good is recorded on the placement and as an event, in a fixed phrase', async () => {
    // Configured, but nothing listens where the email API should be.
    stub({ ...unconfigured, EMAIL_API_URL: 'http://127.0.0.1:9', EMAIL_API_KEY: 're_test', EMAIL_FROM: 'placements@example.test' });
    const s = await scene('live');
    const sent = await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    expect(sent.body.data.household_link_delivery).toBe('queued');
    expect(await undelivered(s)).toEqual([]);
    // The last attempt but one has failed already.
    await ownerSql()`update app.jobs set attempts = max_attempts - 1 where org_id = ${s.c.orgId} and kind = 'send_household_link'`;
    await drainJobs(s.c.orgId);
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    expect(job.status).toBe('abandoned');
    const [entry] = await undelivered(s);
    expect(entry).toMatchObject({ property_id: s.home, detail: { reason: 'failed', attempts: 8, error: providerFailed } });
    expect(entry.summary).toContain('could not be sent');
    expect((await events(s.c.orgId, 'household_link.undelivered')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ property_id: s.home, reason: 'failed', attempts: 8, error: providerFailed }),
    ]);
  });

  it("the carrier is told a fixed phrase, never the transport's words (its relay, port, replies): those stay with staff", async () => {
    stub({ ...unconfigured, EMAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://relay:secret@127.0.0.1:9', EMAIL_FROM: 'placements@example.test' });
    const s = await scene('live');
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    await ownerSql()`update app.jobs set attempts = max_attempts - 1 where org_id = ${s.c.orgId} and kind = 'send_household_link'`;
    await drainJobs(s.c.orgId);
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    // Staff see what happened (the job's last error, the console's outbox list and job list) ...
    expect(job).toMatchObject({ status: 'abandoned', last_error: expect.stringContaining('SMTP connection to 127.0.0.1:9 failed') });
    // ... the carrier's timeline and event say that it failed, not where or how.
    const told = JSON.stringify([await undelivered(s), (await events(s.c.orgId, 'household_link.undelivered')).map((e) => e.payload)]);
    expect(told).toContain(providerFailed);
    for (const detail of ['127.0.0.1', ':9', 'SMTP', 'ECONNREFUSED', 'relay']) expect(told).not.toContain(detail);
  });
});

describe('outbox list (operator console)', () => {
  it('shows each message sent, retrying or failed with why, and never the household link', async () => {
    const { consoleCommand } = await import('../helpers.ts');
    // Sandbox: the household's link goes out (the sandbox keeps the message, link included, with its job).
    const sandbox = await scene('sandbox');
    await sandbox.api.post(`/claims/${sandbox.ref}/options`, { property_id: sandbox.home, action: 'send', approve_budget: true });
    await drainJobs(sandbox.c.orgId);
    expect(JSON.stringify(await jobsOf(sandbox.c.orgId, 'send_household_link'))).toContain('/household/');
    const sent = await consoleCommand<{ data: any[]; count: number; by_status: Record<string, number> }>('outbox', 'list', '--org', sandbox.c.orgId);
    expect(sent.data).toEqual([
      expect.objectContaining({ kind: 'send_household_link', topic: 'home.offered', to: ['family@example.com'], reference: sandbox.ref, status: 'sent', why: null, attempts: 1 }),
    ]);
    expect(sent.by_status).toMatchObject({ sent: 1, failed: 0 });
    expect(JSON.stringify(sent)).not.toContain('/household/');

    // Live, with an email API nobody answers: the message is retrying, and says why.
    stub({ ...unconfigured, EMAIL_API_URL: 'http://127.0.0.1:9', EMAIL_API_KEY: 're_test', EMAIL_FROM: 'placements@example.test' });
    const live = await scene('live');
    await live.api.post(`/claims/${live.ref}/options`, { property_id: live.home, action: 'send', approve_budget: true });
    await drainJobs(live.c.orgId);
    const retrying = await consoleCommand<{ data: any[] }>('outbox', 'list', '--org', live.c.orgId, '--env', 'live', '--status', 'retrying');
    expect(retrying.data).toEqual([
      expect.objectContaining({ topic: 'home.offered', to: ['family@example.com'], status: 'retrying', why: expect.stringContaining('Resend POST /emails failed'), next_attempt_at: expect.any(Date) }),
    ]);
    expect((await consoleCommand<{ data: any[] }>('outbox', 'list', '--org', live.c.orgId, '--status', 'sent')).data).toEqual([]);
    await expect(consoleCommand('outbox', 'list', '--status', 'lost')).rejects.toMatchObject({ code: 'invalid_option' });
  });
});
