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
  const jobRuns: { budgetMs?: number; cpuBudgetMs?: number; cpu?: unknown }[] = [];
  const app = createDispatcherApp(
    async (options = {}) => {
      runs.push(options);
      return report;
    },
    async (options) => {
      jobRuns.push({ budgetMs: options.budgetMs, cpuBudgetMs: options.cpuBudgetMs, cpu: options.cpu });
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
    // The CPU the call used, and the clock that counted it (Node's process clock here; the thread's in Deno).
    expect(await res.json()).toEqual({ data: { ...report, jobs, cpu_ms: expect.any(Number), cpu_source: expect.stringMatching(/^(thread|process)$/) } });
    // Deliveries and jobs share one CPU clock and budget (1 s by default); deliveries have their cap too.
    const clock = runs[0]?.cpu;
    expect(clock?.usedMs()).toBeGreaterThanOrEqual(0);
    expect(runs).toEqual([{ budgetMs: expect.any(Number), cpu: clock, cpuBudgetMs: 1_000, maxClaimed: 600 }]);
    expect(jobRuns).toEqual([{ budgetMs: expect.any(Number), cpu: clock, cpuBudgetMs: 1_000 }]);
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
