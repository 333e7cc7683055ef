// The dispatcher function's invocation within the Edge Runtime's time limits, run in Deno (the
// production runtime) as pg_cron calls it: with a backlog larger than one call's budget, a call
// answers once its budget is spent and the deliveries it claimed are done, leaving the rest due, and
// the next call finishes the work; nothing is delivered twice. It has a database of its own (a new
// one in the run's PostgreSQL, migrated): the function dispatches everything due, and other test
// files' deliveries must not be sent from here.
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../scripts/console/commands.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { useScratchDispatcher } from './deno-dispatcher.ts';
import { useReceiver } from './support.ts';

const receiver = useReceiver();
const secret = 'budget-test-dispatcher-secret';
/** The budget of one call, and how long the receiver takes to answer each delivery: longer than the budget. */
const budgetMs = 1_000;
const answerDelayMs = 2_500;
/** One call keeps up to 100 deliveries in flight: 150 due is more than one call takes. */
const backlog = 150;

const scratch = useScratchDispatcher({ secret, env: { WEBHOOK_DISPATCH_BUDGET_MS: String(budgetMs) } });

/** One call as pg_cron's makes it: the time to its answer, and what it reports. */
const invoke = () => scratch.fn.invoke<{ claimed: number; succeeded: number; duration_ms: number }>();

describe('the dispatcher function under a backlog larger than its budget (in Deno)', () => {
  it('answers once its budget is spent and its claimed deliveries are done, and the next call finishes the work', async () => {
    const org = ((await runCommand(scratch.sql, ['org', 'create', '--name', 'Budget Mutual', '--side', 'carrier'])) as { data: { id: string } }).data.id;
    receiver.answer('/budget', { delayMs: answerDelayMs });
    const whsec = `whsec_${'b'.repeat(32)}`;
    await scratch.sql`insert into app.webhook_endpoints (org_id, environment, url, events, secret)
              values (${org}, 'sandbox', ${receiver.url('/budget')}, ${['lease.sent']}, ${whsec})`;
    const payload = definitionOf('lease.sent', 'carrier')!.sample;
    await scratch.sql`insert into app.events (org_id, environment, event, payload)
              select ${org}, 'sandbox', 'lease.sent', ${scratch.sql.json(payload as never)} from generate_series(1, ${backlog})`;
    const due = async () => Number((await scratch.sql<{ n: number }[]>`select count(*)::int as n from app.webhook_deliveries where status = 'pending'`)[0].n);
    expect(await due()).toBe(backlog);

    const first = await invoke();
    expect(first.status, scratch.fn.stderr()).toBe(200);
    // Claiming stopped at the budget: the deliveries claimed before it were answered (each after
    // 2.5 s), and the call answered then, not after the whole backlog.
    expect(first.report.claimed).toBeGreaterThan(0);
    expect(first.report.claimed).toBeLessThan(backlog);
    expect(first.report.succeeded).toBe(first.report.claimed);
    expect(first.ms).toBeLessThan(budgetMs + answerDelayMs + 5_000);
    expect(await due()).toBe(backlog - first.report.claimed);

    const second = await invoke();
    expect(second.status).toBe(200);
    expect(second.ms).toBeLessThan(budgetMs + answerDelayMs + 5_000);
    expect(first.report.claimed + second.report.claimed).toBe(backlog);
    expect(await due()).toBe(0);
    const ids = receiver.at('/budget').map((request) => request.headers['x-service-delivery']);
    expect(ids).toHaveLength(backlog);
    expect(new Set(ids).size).toBe(backlog);
    console.info(`dispatcher function in Deno, budget ${budgetMs} ms, ${backlog} due, each answered after ${answerDelayMs} ms: ` +
      `first call ${first.report.claimed} delivered, answered in ${Math.round(first.ms)} ms; next call ${second.report.claimed}, ${Math.round(second.ms)} ms`);
  }, 120_000);
});
