// The queue under concurrency and failure: dispatchers side by side, and one killed mid-batch.
import { spawn } from 'node:child_process';
import { connect } from '../../shared/db/client.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { claimDue, recordAttempts } from '../../shared/webhooks/queue.ts';
import { dispatchFor, makeDue, until, useReceiver } from './support.ts';

const receiver = useReceiver();
let orgId: string;
let path: string;
let paths = 0;

beforeEach(async () => {
  const tenant = await createTenant('carrier');
  orgId = tenant.orgId;
  path = `/queue-${++paths}`;
  const created = await client(tenant.sandbox).post('/webhooks', { url: receiver.url(path), events: ['lease.sent'] });
  expect(created.status).toBe(201);
});

/** `count` events recorded in one statement, as a busy operation would. */
async function recordMany(count: number) {
  const payload = definitionOf('lease.sent', 'carrier')!.sample;
  await ownerSql()`
    insert into app.events (org_id, environment, event, payload)
    select ${orgId}, 'sandbox', 'lease.sent', ${ownerSql().json(payload as never)} from generate_series(1, ${count})`;
}

async function deliveryStates() {
  return ownerSql()<{ id: string; status: string; attempts: number; leased: boolean; outcomes: string[] }[]>`
    select id, status, attempts, lease_token is not null as leased,
           array(select h ->> 'outcome' from jsonb_array_elements(history) h) as outcomes
      from app.webhook_deliveries where org_id = ${orgId}`;
}

describe('the delivery queue', () => {
  it('lets two dispatchers run at once, each row delivered exactly once', async () => {
    receiver.answer(path, { delayMs: 5 });
    await recordMany(300);
    const pools = [0, 1].map(() => connect(process.env.DATABASE_URL!, { max: 3 }));
    try {
      const reports = await Promise.all(pools.map((sql) => dispatchFor([orgId], { sql, concurrency: 20 })));
      expect(reports.every((r) => r.claimed > 0)).toBe(true);
      expect(reports[0].claimed + reports[1].claimed).toBe(300);
    } finally {
      await Promise.all(pools.map((sql) => sql.end()));
    }
    const ids = receiver.at(path).map((r) => r.headers['x-service-delivery']);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    const states = await deliveryStates();
    expect(states.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
  });

  it('loses nothing when a dispatcher is killed mid-batch: its rows are sent again once the lease runs out', async () => {
    receiver.answer(path, { delayMs: 60_000 });
    await recordMany(30);
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./dispatcher-child.ts', import.meta.url).pathname, orgId], {
      env: { ...process.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until(() => receiver.at(path).length === 30, 60_000); // the child compiles the code on start: slow on a loaded machine
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    // Leased to the dead dispatcher: no one else takes the rows before the lease runs out.
    let states = await deliveryStates();
    expect(states).toHaveLength(30);
    expect(states.every((d) => d.status === 'pending' && d.attempts === 1 && d.leased)).toBe(true);
    expect((await dispatchFor([orgId])).claimed).toBe(0);

    receiver.answer(path, { status: 200 });
    await makeDue([orgId]);
    const report = await dispatchFor([orgId]);
    expect(report).toMatchObject({ claimed: 30, succeeded: 30, failed: 0 });

    states = await deliveryStates();
    expect(states.every((d) => d.status === 'succeeded' && d.attempts === 2 && !d.leased)).toBe(true);
    expect(states.every((d) => d.outcomes.join() === 'interrupted,succeeded')).toBe(true);
    const seen = receiver.at(path).map((r) => r.headers['x-service-delivery'] as string);
    expect(new Set(seen).size).toBe(30);
    expect(seen).toHaveLength(60);
  });

  it('drops a result whose lease was taken over, so an attempt is never recorded twice', async () => {
    await recordMany(1);
    const sql = ownerSql();
    const [stale] = await claimDue(sql, 1, 60_000, [orgId]);
    await makeDue([orgId]);
    const [current] = await claimDue(sql, 1, 60_000, [orgId]);
    expect(current.id).toBe(stale.id);
    const outcome = { ok: true, at: new Date().toISOString(), duration_ms: 1, http_status: 200, response_body: 'ok', error: null };
    await recordAttempts(sql, [{ id: stale.id, lease_token: stale.lease_token, ...outcome }], [60]);
    let [state] = await deliveryStates();
    expect(state).toMatchObject({ status: 'pending', attempts: 2, outcomes: ['interrupted'] });
    await recordAttempts(sql, [{ id: current.id, lease_token: current.lease_token, ...outcome }], [60]);
    [state] = await deliveryStates();
    expect(state).toMatchObject({ status: 'succeeded', attempts: 2, outcomes: ['interrupted', 'succeeded'] });
  });
});

describe('stopping', () => {
  it('stops claiming once its signal aborts and records what was in flight', async () => {
    receiver.answer(path, { delayMs: 100 });
    await recordMany(60);
    const stop = new AbortController();
    const run = dispatchFor([orgId], { concurrency: 20, signal: stop.signal });
    await until(() => receiver.at(path).length > 0, 5_000);
    stop.abort();
    const report = await run;
    expect(report.claimed).toBeLessThan(60);
    expect(report.succeeded).toBe(report.claimed);
    const states = await deliveryStates();
    expect(states.filter((d) => d.status === 'succeeded')).toHaveLength(report.claimed);
    expect(states.filter((d) => d.status === 'pending' && d.attempts === 0)).toHaveLength(60 - report.claimed);
  });
});
