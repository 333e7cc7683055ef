// The dispatcher function's invocation within the Edge Runtime's CPU time (2 s per request), run in
// Deno as pg_cron calls it: with thousands of deliveries due to a receiver that answers at once, one
// call would sign and send far more than 2 s of CPU within its wall-clock budget (8 s); it stops
// claiming once it has used its CPU budget (or its cap of deliveries), answers under 2 s of CPU, and
// the next calls deliver the rest, none twice. The CPU is read from outside, from the Deno process's
// own counters (every thread), not from what the function says. A database of its own, as in
// dispatcher-budget.test.ts: the function dispatches everything due.
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../scripts/console/commands.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { processCpuMs, useScratchDispatcher } from './deno-dispatcher.ts';
import { useReceiver } from './support.ts';

const receiver = useReceiver();
const secret = 'cpu-test-dispatcher-secret';
/** The Edge Runtime's CPU time per request, and the function's own budget (its default). */
const platformCpuMs = 2_000;
const cpuBudgetMs = 1_000;
/**
 * What may follow the budget: the deliveries already in flight (up to 100) finish and are recorded,
 * and the answer is written.
 */
const tailMarginMs = 700;
const backlog = Number(process.env.DISPATCHER_CPU_BACKLOG ?? 2_000);

const scratch = useScratchDispatcher({ secret, env: { WEBHOOK_DISPATCH_BUDGET_MS: '8000', WEBHOOK_DISPATCH_CPU_BUDGET_MS: String(cpuBudgetMs), ...envOverride() } });

/** Settings for a measurement by hand (DISPATCHER_CPU_ENV='{"WEBHOOK_DISPATCH_CPU_BUDGET_MS":"100000"}'). */
function envOverride(): Record<string, string> {
  return process.env.DISPATCHER_CPU_ENV ? JSON.parse(process.env.DISPATCHER_CPU_ENV) : {};
}

type Report = { claimed: number; succeeded: number; duration_ms: number; cpu_ms: number; cpu_source: string; jobs: { claimed: number } };

/** One call, with the Deno process's CPU time it took, read before and after. */
async function invoke() {
  // The process is idle between calls (pg_cron's next tick): what it uses in between is the call's.
  const before = processCpuMs(scratch.fn.pid);
  const call = await scratch.fn.invoke<Report>();
  return { ...call, cpuMs: processCpuMs(scratch.fn.pid) - before };
}

describe('the dispatcher function under a backlog larger than its CPU time (in Deno)', () => {
  it('stops claiming at its CPU budget, answers well under 2 s of CPU, and the next calls deliver the rest once each', async () => {
    const org = ((await runCommand(scratch.sql, ['org', 'create', '--name', 'CPU Mutual', '--side', 'carrier'])) as { data: { id: string } }).data.id;
    const whsec = `whsec_${'c'.repeat(32)}`;
    await scratch.sql`insert into app.webhook_endpoints (org_id, environment, url, events, secret)
              values (${org}, 'sandbox', ${receiver.url('/cpu')}, ${['lease.sent']}, ${whsec})`;
    const payload = definitionOf('lease.sent', 'carrier')!.sample;
    await scratch.sql`insert into app.events (org_id, environment, event, payload)
              select ${org}, 'sandbox', 'lease.sent', ${scratch.sql.json(payload as never)} from generate_series(1, ${backlog})`;
    const due = async () => Number((await scratch.sql<{ n: number }[]>`select count(*)::int as n from app.webhook_deliveries where status = 'pending'`)[0].n);
    expect(await due()).toBe(backlog);

    const calls: Awaited<ReturnType<typeof invoke>>[] = [];
    while ((await due()) > 0 && calls.length < 20) {
      const call = await invoke();
      expect(call.status, scratch.fn.stderr()).toBe(200);
      calls.push(call);
      console.info(`call ${calls.length}: ${call.report.claimed} delivered in ${Math.round(call.ms)} ms, ` +
        `CPU ${Math.round(call.cpuMs)} ms measured from outside (${call.report.cpu_ms} ms by the ${call.report.cpu_source} clock inside)`);
    }
    const [first] = calls;
    // The first call left work due: unbounded, it would have taken all of it within its 8 s.
    expect(first.report.claimed).toBeGreaterThan(0);
    expect(first.report.claimed).toBeLessThan(backlog);
    expect(first.report.succeeded).toBe(first.report.claimed);
    for (const call of calls) {
      expect(call.cpuMs).toBeLessThan(platformCpuMs);
      expect(call.cpuMs).toBeLessThan(cpuBudgetMs + tailMarginMs);
    }
    expect(await due()).toBe(0);
    expect(calls.reduce((n, call) => n + call.report.claimed, 0)).toBe(backlog);
    const ids = receiver.at('/cpu').map((request) => request.headers['x-service-delivery']);
    expect(ids).toHaveLength(backlog);
    expect(new Set(ids).size).toBe(backlog);
    const cpu = calls.map((call) => Math.round(call.cpuMs));
    console.info(`dispatcher function in Deno, CPU budget ${cpuBudgetMs} ms, ${backlog} due to a receiver answering at once: ` +
      `${calls.length} calls delivered ${calls.map((call) => call.report.claimed).join(' + ')}, CPU per call ${cpu.join(', ')} ms ` +
      `(max ${Math.max(...cpu)} ms, ${Math.round((Math.max(...cpu) / platformCpuMs) * 100)} % of the Edge Runtime's ${platformCpuMs} ms), ` +
      `about ${((cpu.reduce((a, b) => a + b, 0)) / backlog).toFixed(2)} ms of CPU per delivery`);
  }, 120_000);
});
