// The internal function pg_cron calls on Supabase: it runs the dispatcher for callers holding the
// shared secret, and for no one when the secret is not configured.
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { createDispatcherApp } from '../../functions/webhook-dispatcher/app.ts';
import type { DispatchOptions, DispatchReport } from '../../shared/webhooks/dispatcher.ts';

const report: DispatchReport = { claimed: 3, succeeded: 2, failed: 1, claims: 2, claim_ms_total: 1.5, claim_ms_max: 1, duration_ms: 40 };
const jobs = { claimed: 1, succeeded: 1, failed: 0 };

function withRecordedRuns() {
  const runs: DispatchOptions[] = [];
  const jobRuns: { budgetMs?: number }[] = [];
  const app = createDispatcherApp(
    async (options = {}) => {
      runs.push(options);
      return report;
    },
    async (options) => {
      jobRuns.push({ budgetMs: options.budgetMs });
      return jobs;
    },
  );
  const post = (authorization?: string) =>
    app.request('/webhook-dispatcher', { method: 'POST', headers: authorization ? { authorization } : {} });
  return { runs, jobRuns, post };
}

afterEach(() => {
  delete process.env.WEBHOOK_DISPATCHER_SECRET;
});

describe('webhook-dispatcher function', () => {
  it('runs a time-boxed dispatch for the holder of the secret and reports it', async () => {
    process.env.WEBHOOK_DISPATCHER_SECRET = 'cron-secret-123';
    const { runs, jobRuns, post } = withRecordedRuns();
    const res = await post('Bearer cron-secret-123');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { ...report, jobs } });
    expect(runs).toEqual([{ budgetMs: expect.any(Number) }]);
    expect(jobRuns).toEqual([{ budgetMs: expect.any(Number) }]);
  });

  it('refuses a wrong or missing secret without dispatching', async () => {
    process.env.WEBHOOK_DISPATCHER_SECRET = 'cron-secret-123';
    const { runs, post } = withRecordedRuns();
    for (const authorization of ['Bearer cron-secret-124', 'Bearer ', undefined]) {
      const res = await post(authorization);
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe('invalid_key');
    }
    expect(runs).toEqual([]);
  });

  it('refuses everyone while no secret is configured', async () => {
    const { runs, post } = withRecordedRuns();
    expect((await post('Bearer ')).status).toBe(401);
    expect((await post('Bearer anything')).status).toBe(401);
    expect(runs).toEqual([]);
  });

  it('is mounted by the local router, and answers only POST', async () => {
    const refused = await call('POST', '/webhook-dispatcher', { headers: { authorization: 'Bearer guess' } });
    expect(refused.status).toBe(401);
    expect((await call('GET', '/webhook-dispatcher')).status).toBe(404);
  });
});
