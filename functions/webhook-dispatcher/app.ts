import { functionApp } from '../../shared/http/app.ts';
import { single } from '../../shared/http/envelope.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { config } from '../../shared/config.ts';
import { cpuClock } from '../../shared/cpu-clock.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { log } from '../../shared/log.ts';
import { dispatchDue, type WebhookTransport } from '../../shared/webhooks/dispatcher.ts';
import { runDueJobs } from '../../shared/jobs/runner.ts';
import { jobRegistry } from '../../shared/job-registry.ts';

// Internal function, not part of the public API: pg_cron calls it through pg_net every few seconds
// on Supabase (see the webhooks migration) with `Authorization: Bearer <WEBHOOK_DISPATCHER_SECRET>`.
// Each call delivers what is due for up to `budgetMs` and runs the durable jobs that are due (sending
// contracts and emails); overlapping calls share both queues safely.

/** Compares digests so that the time taken says nothing about the secret. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * The function's app; `dispatch` is the dispatcher it runs (replaceable in tests), `transport` how it
 * sends (the Edge Runtime's entry passes one that connects only to the address it checked).
 */
export function createDispatcherApp(dispatch: typeof dispatchDue = dispatchDue, runJobs: typeof runDueJobs = runDueJobs, transport?: WebhookTransport) {
  const app = functionApp();
  app.use('*', requestId());
  app.post('/webhook-dispatcher', async (c) => {
    const expected = config.webhookDispatcherSecret();
    const given = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1] ?? '';
    if (!expected || !(await sameSecret(given, expected))) {
      throw new ApiError('invalid_key', 'This internal function needs the dispatcher secret (WEBHOOK_DISPATCHER_SECRET).');
    }
    // Claiming stops after the budget, leaving room for deliveries in flight before the next tick.
    const budgetMs = config.webhookDispatchBudgetMs();
    // And once the call has used its CPU budget (one clock for deliveries and jobs together, as the
    // platform counts the invocation's CPU as one), or claimed its cap of deliveries where the
    // runtime cannot measure CPU: the Edge Runtime stops an invocation past 2 s of CPU.
    const cpu = cpuClock();
    const cpuBudgetMs = config.webhookDispatchCpuBudgetMs();
    const [report, jobs] = await Promise.all([
      dispatch({ budgetMs, transport, cpu, cpuBudgetMs, maxClaimed: config.webhookDispatchMaxDeliveries() }),
      runJobs({ registry: jobRegistry, budgetMs, cpu, cpuBudgetMs }),
    ]);
    const cpuUsage = { cpu_ms: Math.round(cpu.usedMs()), cpu_source: cpu.source };
    log.info('webhook dispatch', { request_id: c.get('requestId'), ...report, jobs, ...cpuUsage });
    return c.json(single({ ...report, jobs, ...cpuUsage }), 200);
  });
  app.all('*', () => {
    throw new ApiError('not_found', 'The webhook dispatcher answers POST /functions/v1/webhook-dispatcher only.');
  });
  return app;
}

export const app = createDispatcherApp();
