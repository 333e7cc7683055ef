// The local server's background work on a thread of its own (scripts/lib/background.ts): the jobs a
// request queues and the webhook deliveries run there while the event loop that answers requests is
// held, and nothing more runs once it is stopped. Limited to the test's organisation (tests share one
// database).
import { afterEach, describe, expect, it } from 'vitest';
import { giveWayTo, startBackgroundThread, type BackgroundThread } from '../../scripts/lib/background.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { runDueJobs } from '../../shared/jobs/runner.ts';
import { ownerSql } from '../helpers.ts';
import { carrier, claimBody } from '../claims/fixtures.ts';
import { recordEvent, until, useReceiver } from '../webhooks/support.ts';

const receiver = useReceiver();
let thread: BackgroundThread | undefined;

afterEach(async () => {
  await thread?.stop();
  thread = undefined;
  delete process.env.WEBHOOK_DISPATCH_INTERVAL_MS;
});

const jobsOf = (orgId: string) =>
  ownerSql()<{ kind: string; status: string }[]>`select kind, status from app.jobs where org_id = ${orgId} order by created_at`;

/** Holds this thread's event loop (as a request's busy event loop would) for `ms`. */
const holdEventLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('the background thread', () => {
  it('sources a new request and delivers its webhooks while the requests\' event loop is held, and stops', async () => {
    process.env.WEBHOOK_DISPATCH_INTERVAL_MS = '50';
    const c = await carrier();
    expect((await c.liveApi.post('/webhooks', { url: receiver.url('/thread'), events: ['lease.sent'] })).status).toBe(201);
    thread = startBackgroundThread({ organisations: [c.orgId] });

    // The request hands its sourcing job to the thread after its commit, and this event loop is then
    // held: only work on another thread can run the job meanwhile.
    const created = await c.liveApi.post('/claims', claimBody());
    expect(created.status).toBe(201);
    for (let waited = 0; waited < 15_000; waited += 250) {
      holdEventLoop(250);
      const [job] = await jobsOf(c.orgId);
      if (job.status === 'succeeded') break;
    }
    expect(await jobsOf(c.orgId)).toEqual([{ kind: 'source_new_requests', status: 'succeeded' }]);

    // The thread's dispatcher delivers what is recorded (to this thread's receiver, once it is free).
    const sample = definitionOf('lease.sent', 'carrier')!.sample;
    await recordEvent(c.orgId, 'live', 'lease.sent', sample);
    await until(() => receiver.at('/thread').length === 1, 15_000);

    // Stopped: nothing is claimed any more, neither a delivery nor a job.
    await thread.stop();
    thread = undefined;
    await recordEvent(c.orgId, 'live', 'lease.sent', sample);
    await ownerSql()`insert into app.jobs (kind, org_id, environment, payload) values ('send_email', ${c.orgId}, 'live', '{}'::jsonb)`;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/thread')).toHaveLength(1);
    expect((await ownerSql()<{ status: string }[]>`
      select status from app.webhook_deliveries where org_id = ${c.orgId} order by created_at`).map((d) => d.status)).toEqual(['succeeded', 'pending']);
    expect((await jobsOf(c.orgId)).at(-1)).toEqual({ kind: 'send_email', status: 'pending' });
    await ownerSql()`delete from app.jobs where org_id = ${c.orgId} and kind = 'send_email'`;
  }, 60_000);
});

describe('giving way to requests', () => {
  it('keeps all of its concurrency up to four requests in flight, then less, never under a quarter', () => {
    const waiting = new Int32Array(new SharedArrayBuffer(4));
    const room = giveWayTo(waiting);
    expect([0, 4, 8, 12, 1000].map((n) => (Atomics.store(waiting, 0, n), room(8)))).toEqual([8, 8, 4, 2, 2]);
    expect([0, 8, 12, 1000].map((n) => (Atomics.store(waiting, 0, n), room(100)))).toEqual([100, 50, 33, 25]);
    expect([0, 1000].map((n) => (Atomics.store(waiting, 0, n), room(1)))).toEqual([1, 1]);
  });

  it('runs no more jobs at once than the room it is given', async () => {
    const c = await carrier();
    let running = 0;
    let most = 0;
    const slow = {
      kind: 'slow_test_job',
      run: async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running--;
      },
    };
    await ownerSql()`
      insert into app.jobs (kind, org_id, environment, payload)
      select 'slow_test_job', ${c.orgId}, 'live', '{}'::jsonb from generate_series(1, 6)`;
    const report = await runDueJobs({ registry: { slow_test_job: slow }, concurrency: 6, room: () => 2, organisations: [c.orgId] });
    expect(report).toEqual({ claimed: 6, succeeded: 6, failed: 0 });
    expect(most).toBe(2);
  });
});
