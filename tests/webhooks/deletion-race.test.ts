// An endpoint deleted while events are being written. The fan-out, the replay and the ping read the
// endpoints they queue to; a deletion that has not committed yet is still visible to them, and the
// delivery they insert then waits on the deleted row. The race is made certain here rather than
// hoped for: the deletion is held open until every racing call is waiting on it, then committed.
import { beforeEach, describe, expect, it } from 'vitest';
import { scene } from '../placements/fixtures.ts';
import { client, createTenant, ownerSql, type ApiResponse } from '../helpers.ts';
import { db, connect } from '../../shared/db/client.ts';

let tenant: Awaited<ReturnType<typeof createTenant>>;
let sandbox: ReturnType<typeof client>;

beforeEach(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
  tenant = await createTenant('carrier');
  sandbox = client(tenant.sandbox);
});

async function endpoint(name: string): Promise<string> {
  const res = await sandbox.post('/webhooks', { url: `https://hooks.customer.example/${name}` });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

// The racing calls answer different operations; the tests read their bodies as they need.
type Answer = ApiResponse<any>;

const rolledBack = new Error('rolled back');

/**
 * Deletes the endpoint in a transaction held open until `waiting` calls started by `race` wait on it
 * (the statement the API's deletion runs), then commits (or rolls back), and returns what the calls answered.
 */
async function deleteDuring(endpointId: string, waiting: number, race: () => Promise<Answer>[], end: 'commit' | 'rollback' = 'commit'): Promise<Answer[]> {
  // The API's pool opens its connections as it needs them and queues a call's statements on one that
  // is still opening; opened beforehand, every racing call has its own and none waits behind another.
  await Promise.all(Array.from({ length: waiting + 1 }, () => db().begin((tx) => tx`select pg_sleep(0.05)`)));
  const sql = connect(process.env.DATABASE_URL!, { max: 1 });
  try {
    let calls: Promise<Answer[]> | undefined;
    await sql.begin(async (tx) => {
      const [{ pid }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await tx`delete from app.webhook_endpoints where id = ${endpointId}`;
      calls = Promise.all(race());
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [{ blocked }] = await tx<{ blocked: number }[]>`
          select count(*)::int as blocked from pg_stat_activity where ${pid}::int = any (pg_blocking_pids(pid))`;
        if (blocked >= waiting) break;
        if (Date.now() > deadline) throw new Error(`only ${blocked} of ${waiting} calls came to wait on the deletion`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (end === 'rollback') throw rolledBack;
    }).catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
    return await calls!;
  } finally {
    await sql.end();
  }
}

describe('an endpoint deleted while events are written', () => {
  it('a replay, a simulated event and a business write racing the deletion all succeed and queue only to the endpoints that remain', async () => {
    const s = await scene();
    sandbox = s.api;
    const kept = await endpoint('kept');
    const deleted = await endpoint('deleted');
    const earlier = await sandbox.post('/events/simulate', { event: 'option.saved' });
    expect(earlier.body.data.queued_to).toBe(2);
    const eventId = earlier.body.data.event_id as string;

    const [replay, simulate, place] = await deleteDuring(deleted, 3, () => [
      sandbox.post(`/events/${eventId}/replay`, {}),
      sandbox.post('/events/simulate', { event: 'option.saved' }),
      sandbox.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true }),
    ]);

    expect([replay.status, simulate.status, place.status]).toEqual([202, 202, 200]);
    expect(replay.body.data.queued_to).toBe(1);
    expect(simulate.body.data.queued_to).toBe(1);
    const queued = await ownerSql()<{ endpoint_id: string; event: string; replay: boolean }[]>`
      select d.endpoint_id, d.event, d.replay from app.webhook_deliveries d where d.org_id = ${s.c.orgId} and d.endpoint_id in (${kept}, ${deleted})`;
    expect(queued.filter((d) => d.endpoint_id === deleted)).toEqual([]);
    // The placement's own event, written in its transaction, reached the endpoint that remains.
    expect(queued.filter((d) => d.event === 'request.status_changed')).toEqual([{ endpoint_id: kept, event: 'request.status_changed', replay: false }]);
  });

  it('a replay whose only endpoint is being deleted answers 409 no_endpoint, and a ping to it 404', async () => {
    const only = await endpoint('only');
    const eventId = (await sandbox.post('/events/simulate', { event: 'option.saved' })).body.data.event_id as string;
    const [replay, ping] = await deleteDuring(only, 2, () => [
      sandbox.post(`/events/${eventId}/replay`, {}),
      sandbox.post(`/webhooks/${only}/test`, {}),
    ]);
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('no_endpoint');
    expect(ping.status).toBe(404);
  });

  it('a recovery racing the deletion of its endpoint queues nothing to it and answers without a 5xx', async () => {
    const gone = await endpoint('gone');
    const since = new Date(Date.now() - 60_000).toISOString();
    const eventId = (await sandbox.post('/events/simulate', { event: 'option.saved' })).body.data.event_id as string;
    await ownerSql()`update app.webhook_deliveries set status = 'abandoned', attempts = 2, next_attempt_at = null, signing_secret = null, completed_at = now() where endpoint_id = ${gone} and event_id = ${eventId}`;
    const [recover] = await deleteDuring(gone, 1, () => [sandbox.post(`/webhooks/${gone}/recover`, { since })]);
    expect(recover.status).toBe(202);
    expect(recover.body.data.queued).toBe(0);
    expect(await ownerSql()`select 1 from app.webhook_deliveries where endpoint_id = ${gone}`).toHaveLength(0);
  });

  it('a deletion that is rolled back leaves the racing write queued to the endpoint', async () => {
    const only = await endpoint('back');
    const [simulate] = await deleteDuring(only, 1, () => [sandbox.post('/events/simulate', { event: 'option.saved' })], 'rollback');
    expect(simulate.status).toBe(202);
    expect(simulate.body.data.queued_to).toBe(1);
  });
});
