import { beforeEach, describe, expect, it } from 'vitest';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { definitionOf, eventsFor } from '../../shared/events/registry.ts';
import { purgeBatch, purgeExpiredEvents, purgeGivesWay, type PurgedBatch } from '../../shared/webhooks/retention.ts';
import { recordEvent } from '../webhooks/support.ts';
import { emittedPayloadIssues } from './payloads.ts';
import { openClaim } from '../claims/fixtures.ts';

/**
 * A digest of every row the organisation has in each table of the service, by table. Usage counters
 * and key bookkeeping move with every call, so they are left out.
 */
async function tenantRows(orgId: string): Promise<Record<string, string>> {
  const tables = await ownerSql()<{ table: string }[]>`
    select table_name as table from information_schema.columns
     where table_schema = 'app' and column_name = 'org_id' and table_name not in ('usage_daily', 'api_keys')
       and table_name in (select table_name from information_schema.tables where table_schema = 'app' and table_type = 'BASE TABLE')`;
  const digests: Record<string, string> = {};
  for (const { table } of tables) {
    const [row] = await ownerSql().unsafe(
      `select md5(coalesce(string_agg(to_jsonb(t)::text, ',' order by to_jsonb(t)::text), '')) as digest from app.${table} t where org_id = $1`,
      [orgId],
    );
    digests[table] = row.digest;
  }
  return digests;
}

let tenant: Awaited<ReturnType<typeof createTenant>>;
let sandbox: ReturnType<typeof client>;
let live: ReturnType<typeof client>;

beforeEach(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
  tenant = await createTenant('carrier');
  sandbox = client(tenant.sandbox);
  live = client(tenant.live);
});

const sampleOf = (event: Parameters<typeof definitionOf>[0]) => definitionOf(event, 'carrier')!.sample;

describe('GET /events', () => {
  it('lists every event of the organisation and environment, newest first, and reading consumes nothing', async () => {
    const first = await recordEvent(tenant.orgId, 'live', 'lease.sent', sampleOf('lease.sent'));
    const second = await recordEvent(tenant.orgId, 'live', 'lease.signed', sampleOf('lease.signed'));
    const res = await live.get('/events');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { id: second, event: 'lease.signed', created_at: expect.any(String), data: sampleOf('lease.signed') },
        { id: first, event: 'lease.sent', created_at: expect.any(String), data: sampleOf('lease.sent') },
      ],
      count: 2,
      next_cursor: null,
    });
    expect((await live.get('/events')).body).toEqual(res.body);
  });

  it('filters by a comma list of event types and by since', async () => {
    await recordEvent(tenant.orgId, 'live', 'lease.sent', sampleOf('lease.sent'));
    const signed = await recordEvent(tenant.orgId, 'live', 'lease.signed', sampleOf('lease.signed'));
    const saved = await recordEvent(tenant.orgId, 'live', 'option.saved', sampleOf('option.saved'));
    const filtered = await live.get('/events?event=option.saved,%20lease.signed');
    expect(filtered.body.data.map((e: any) => e.id)).toEqual([saved, signed]);

    // Exactly the moment `signed` was recorded, to the microsecond: only later events follow.
    const [{ at }] = await ownerSql()<{ at: string }[]>`select to_json(created_at) #>> '{}' as at from app.events where id = ${signed}`;
    const since = await live.get(`/events?since=${encodeURIComponent(at)}`);
    expect(since.body.data.map((e: any) => e.id)).toEqual([saved]);
  });

  it('pages with an opaque base64url cursor through events recorded in one instant', async () => {
    const payload = sampleOf('option.saved');
    await ownerSql()`
      insert into app.events (org_id, environment, event, payload)
      select ${tenant.orgId}, 'live', 'option.saved', ${ownerSql().json(payload as never)} from generate_series(1, 7)`;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await live.get(`/events?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((e: any) => e.id));
      cursor = res.body.next_cursor;
      if (cursor) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('defaults to 100 per page and allows 250', async () => {
    const payload = sampleOf('option.saved');
    await ownerSql()`
      insert into app.events (org_id, environment, event, payload)
      select ${tenant.orgId}, 'live', 'option.saved', ${ownerSql().json(payload as never)} from generate_series(1, 251)`;
    expect((await live.get('/events')).body.count).toBe(100);
    const most = await live.get('/events?limit=250');
    expect(most.body.count).toBe(250);
    expect(most.body.next_cursor).not.toBeNull();
  });

  it('shows a sandbox key sandbox and simulated events, and a live key live events only', async () => {
    const liveEvent = await recordEvent(tenant.orgId, 'live', 'lease.sent', sampleOf('lease.sent'));
    const sandboxEvent = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', sampleOf('lease.sent'));
    const simulated = (await sandbox.post('/events/simulate', { event: 'option.saved' })).body.data.event_id;
    expect((await live.get('/events')).body.data.map((e: any) => e.id)).toEqual([liveEvent]);
    expect((await sandbox.get('/events')).body.data.map((e: any) => e.id)).toEqual([simulated, sandboxEvent]);
  });
});

describe('GET /events/{id}', () => {
  it('reads one event with its simulated flag and delivery counts', async () => {
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/a' });
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/b', events: ['lease.signed'] });
    const id = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', sampleOf('lease.sent'));
    const res = await sandbox.get(`/events/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id,
        event: 'lease.sent',
        created_at: expect.any(String),
        data: sampleOf('lease.sent'),
        simulated: false,
        deliveries: { total: 1, succeeded: 0, pending: 1, abandoned: 0, cancelled: 0 },
      },
    });
  });
});

describe('GET /events/types', () => {
  it("lists the carrier side's events with samples that satisfy their payloads", async () => {
    const res = await live.get('/events/types');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(eventsFor('carrier').length);
    const byName = Object.fromEntries(res.body.data.map((t: any) => [t.event, t]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        'request.status_changed', 'option.declined', 'option.saved', 'dates.proposed', 'lease.sent', 'lease.first_signed',
        'lease.signed', 'payment.succeeded', 'payment.failed', 'payment.refunded', 'booking.confirmed', 'booking.dates_changed',
        'payment.duplicate', 'payment.refund_failed', 'household_link.undelivered',
      ].sort(),
    );
    expect(byName['payment.refunded']).toMatchObject({ audience: 'carrier', simulatable: false });
    expect(byName['lease.signed']).toEqual({
      event: 'lease.signed',
      summary: expect.any(String),
      audience: 'carrier',
      simulatable: true,
      sample: { id: expect.any(String), event: 'lease.signed', created_at: expect.any(String), data: sampleOf('lease.signed') },
    });
  });

  it("shows a provider only the provider side's events", async () => {
    const provider = await createTenant('provider');
    const res = await client(provider.live).get('/events/types');
    expect(res.body.data.map((t: any) => t.event).sort()).toEqual([
      'application.received', 'booking.confirmed', 'booking.updated', 'calendar.conflict', 'calendar.feed_failing', 'payment.failed',
      'payment.refund_failed', 'payment.succeeded', 'refund.requested',
    ]);
    expect(res.body.data.every((t: any) => t.audience === 'provider' && t.simulatable)).toBe(true);
  });
});

describe('POST /events/simulate', () => {
  it('records the event with simulated: true and queues it to the subscribed sandbox endpoints', async () => {
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/all' });
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/other', events: ['lease.sent'] });
    await live.post('/webhooks', { url: 'https://hooks.customer.example/live' });
    const data = { ...sampleOf('option.declined'), reason: 'No lift to the third floor.' };
    const res = await sandbox.post('/events/simulate', { event: 'option.declined', data });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      data: { event_id: expect.any(String), event: 'option.declined', queued_to: 1, simulated: true, note: expect.any(String) },
    });
    const event = await sandbox.get(`/events/${res.body.data.event_id}`);
    expect(event.body.data).toMatchObject({ event: 'option.declined', simulated: true, data: { ...data, simulated: true } });
    expect(event.body.data.deliveries.total).toBe(1);
  });

  it('uses the sample when data is omitted', async () => {
    const res = await sandbox.post('/events/simulate', { event: 'request.status_changed' });
    expect(res.status).toBe(202);
    expect(res.body.data.queued_to).toBe(0);
    const [event] = (await sandbox.get('/events')).body.data;
    expect(event).toEqual({
      id: res.body.data.event_id,
      event: 'request.status_changed',
      created_at: expect.any(String),
      data: { ...definitionOf('request.status_changed', 'carrier')!.sample, simulated: true },
    });
  });

  it('changes nothing but the event log and the delivery queue, even when the payload names a real request', async () => {
    const claim = await openClaim(sandbox);
    const status = async () => (await sandbox.get(`/claims/${claim.id}`)).body.data.status_primary;
    const statusBefore = await status();
    await sandbox.post('/webhooks', { url: 'https://hooks.customer.example/all' });
    const before = await tenantRows(tenant.orgId);
    const data = {
      ...sampleOf('request.status_changed'),
      request_id: claim.id,
      reference: claim.claim_ref,
      status: 'booking_confirmed',
      previous_status: statusBefore,
    };
    const res = await sandbox.post('/events/simulate', { event: 'request.status_changed', data });
    expect(res.status).toBe(202);
    expect(await status()).toBe(statusBefore);
    const after = await tenantRows(tenant.orgId);
    const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
    expect(changed.sort()).toEqual(['events', 'webhook_deliveries']);
  });

  it('records simulated payloads that match their definitions, and the check catches one that does not', async () => {
    for (const event of ['lease.sent', 'payment.failed', 'booking.confirmed', 'dates.proposed']) {
      expect((await sandbox.post('/events/simulate', { event })).status).toBe(202);
    }
    expect(await emittedPayloadIssues(tenant.orgId)).toEqual([]);
    const drifted = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', { reference: 'REQ-1' });
    expect((await emittedPayloadIssues(tenant.orgId)).some((issue) => issue.startsWith(`lease.sent ${drifted}: `))).toBe(true);
  });

  it("lays a subset of the documented fields over the sample: option.declined with {reference, reason}", async () => {
    const res = await sandbox.post('/events/simulate', { event: 'option.declined', data: { reference: 'REQ-TEST01', reason: 'Too far from work.' } });
    expect(res.status).toBe(202);
    const event = await sandbox.get(`/events/${res.body.data.event_id}`);
    expect(event.body.data.data).toEqual({ ...sampleOf('option.declined'), reference: 'REQ-TEST01', reason: 'Too far from work.', simulated: true });
  });

  it('merges nested objects too: booking.confirmed with {reference, property: {name}}', async () => {
    const res = await sandbox.post('/events/simulate', { event: 'booking.confirmed', data: { reference: 'REQ-TEST02', property: { name: 'Birch House 1A' } } });
    expect(res.status).toBe(202);
    const event = await sandbox.get(`/events/${res.body.data.event_id}`);
    const sample = sampleOf('booking.confirmed') as { property: { id: string } };
    expect(event.body.data.data).toMatchObject({ reference: 'REQ-TEST02', property: { id: sample.property.id, name: 'Birch House 1A' }, simulated: true });
    expect(await emittedPayloadIssues(tenant.orgId)).toEqual([]);
  });

  it('accepts empty data, null for a nullable field, and an event pasted back from the log', async () => {
    const empty = await sandbox.post('/events/simulate', { event: 'option.saved', data: {} });
    expect(empty.status).toBe(202);
    const nulled = await sandbox.post('/events/simulate', { event: 'option.saved', data: { external_id: null } });
    expect(nulled.status).toBe(202);
    const logged = (await sandbox.get(`/events/${nulled.body.data.event_id}`)).body.data.data;
    expect(logged).toEqual({ ...sampleOf('option.saved'), external_id: null, simulated: true });
    expect((await sandbox.post('/events/simulate', { event: 'option.saved', data: logged })).status).toBe(202);
  });

  it("simulates the provider side's events for providers", async () => {
    const provider = await createTenant('provider');
    const res = await client(provider.sandbox).post('/events/simulate', { event: 'booking.updated' });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ event: 'booking.updated', simulated: true });
  });
});

describe('POST /events/{id}/replay', () => {
  it('queues the event again to the active endpoints subscribed now', async () => {
    const id = await recordEvent(tenant.orgId, 'live', 'lease.sent', sampleOf('lease.sent'));
    await live.post('/webhooks', { url: 'https://hooks.customer.example/a', events: ['lease.sent'] });
    await live.post('/webhooks', { url: 'https://hooks.customer.example/b' });
    const inactive = (await live.post('/webhooks', { url: 'https://hooks.customer.example/c' })).body.data.id;
    await live.patch(`/webhooks/${inactive}`, { is_active: false });
    await live.post('/webhooks', { url: 'https://hooks.customer.example/d', events: ['lease.signed'] });

    const res = await live.post(`/events/${id}/replay`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { event_id: id, queued_to: 2, replay: true } });
    const deliveries = (await live.get(`/webhooks/deliveries?event_id=${id}`)).body.data;
    expect(deliveries).toHaveLength(2);
    expect(deliveries.every((d: any) => d.replay && d.status === 'pending')).toBe(true);
  });
});

describe('retention', () => {
  it('purges events older than 90 days with their deliveries, and keeps younger ones', async () => {
    await live.post('/webhooks', { url: 'https://hooks.customer.example/a' });
    const old = await recordEvent(tenant.orgId, 'live', 'lease.sent', sampleOf('lease.sent'));
    const young = await recordEvent(tenant.orgId, 'live', 'lease.signed', sampleOf('lease.signed'));
    await ownerSql()`update app.events set created_at = now() - interval '91 days' where id = ${old}`;
    await ownerSql()`update app.events set created_at = now() - interval '89 days' where id = ${young}`;

    expect(await purgeExpiredEvents()).toBeGreaterThanOrEqual(1);
    expect((await live.get(`/events/${old}`)).status).toBe(404);
    expect((await live.get(`/events/${young}`)).status).toBe(200);
    const deliveries = (await live.get('/webhooks/deliveries')).body.data.map((d: any) => d.event_id);
    expect(deliveries).toEqual([young]);
  });

  it('forgets Idempotency-Keys past their 48 hours and rate windows unused for an hour, keeping the rest', async () => {
    for (const [key, age] of [['idem-old', '49 hours'], ['idem-young', '47 hours']]) {
      await ownerSql()`
        insert into app.idempotency_keys (org_id, environment, key, fingerprint, state, created_at)
        values (${tenant.orgId}, 'live', ${key}, 'f', 'done', now() - ${age}::interval)`;
    }
    const bucket = (name: string) => `retention-test:${tenant.orgId}:${name}`;
    await ownerSql()`insert into app.rate_windows (bucket, window_start, count) values
      (${bucket('old')}, now() - interval '2 hours', 1), (${bucket('young')}, now() - interval '10 minutes', 1)`;

    await purgeExpiredEvents();
    const keys = await ownerSql()<{ key: string }[]>`select key from app.idempotency_keys where org_id = ${tenant.orgId} and key like 'idem-%'`;
    expect(keys.map((k) => k.key)).toEqual(['idem-young']);
    const windows = await ownerSql()<{ bucket: string }[]>`select bucket from app.rate_windows where bucket like ${`retention-test:${tenant.orgId}:%`}`;
    expect(windows.map((w) => w.bucket)).toEqual([bucket('young')]);
  });
});

// The retention purge in batches.

/** `events` expired events of the organisation, each with two deliveries; `young` events within retention. */
async function history(org: string, endpoint: string, events: number, young = 0) {
  const sql = ownerSql();
  await sql`
    with e as (
      insert into app.events (org_id, environment, event, payload, created_at)
      select ${org}, 'live', 'lease.sent', '{}', now() - interval '91 days' - make_interval(secs => g) from generate_series(1, ${events}) g
      returning id, created_at)
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, status, attempts, completed_at, created_at)
    select ${org}, 'live', ${endpoint}, e.id, 'lease.sent', 'succeeded', 1, e.created_at, e.created_at from e, generate_series(1, 2)`;
  await sql`
    insert into app.events (org_id, environment, event, payload, created_at)
    select ${org}, 'live', 'lease.signed', '{}', now() - interval '89 days' from generate_series(1, ${young})`;
  // Statistics, as autovacuum keeps them on a database in use (these tables are analyzed long before
  // anything in them is 90 days old). Without any, the cascade's generic plan on a fresh database
  // reads an organisation's deliveries along webhook_deliveries_feed for each event deleted.
  await sql`analyze app.events, app.webhook_deliveries`;
}

const expiredLeft = async (org: string) => {
  const [row] = await ownerSql()<{ events: number; deliveries: number; keys: number }[]>`
    select (select count(*)::int from app.events where org_id = ${org} and created_at < now() - interval '90 days') as events,
           (select count(*)::int from app.webhook_deliveries where org_id = ${org} and created_at < now() - interval '90 days') as deliveries,
           (select count(*)::int from app.idempotency_keys where org_id = ${org} and created_at < now() - interval '48 hours') as keys`;
  return row;
};

describe('the retention purge, batch by batch', () => {
  // An expired day of a season (22,000 events, 55,000 deliveries) is many short transactions, each
  // a call of app.purge_expired_batch deleting at most a batch of each kind, never one that holds its
  // locks to the end. Their own organisation, so that their counts are theirs alone.
  let org: string;
  let endpoint: string;
  beforeEach(async () => {
    org = tenant.orgId;
    [{ id: endpoint }] = await ownerSql()<{ id: string }[]>`
      insert into app.webhook_endpoints (org_id, environment, url, secret)
      values (${org}, 'live', 'https://hooks.customer.example/retention', ${`whsec_${'r'.repeat(32)}`}) returning id`;
  });

  it('a batch reads the expired rows, not what was written since the last vacuum', async () => {
    // 150,000 younger events written just now (about 1,900 pages no vacuum has looked at yet), in
    // the sandbox so that no endpoint is sent them, then 300 expired. A batch used to find its events
    // through a BRIN index on created_at, whose unsummarized ranges match any condition: every batch
    // read every page written since the last vacuum (about 2,300 blocks here). Through each tenant's
    // events_feed it reads the rows it deletes (a hundred at most, other tests' expired rows
    // included; about 4 block reads a row with the delete and its cascade: about 400).
    await ownerSql()`
      insert into app.events (org_id, environment, event, payload, created_at)
      select ${org}, 'sandbox', 'lease.signed', '{}', now() - interval '1 day' from generate_series(1, 150000)`;
    await history(org, endpoint, 300);
    const [{ pages }] = await ownerSql()<{ pages: number }[]>`select pg_relation_size('app.events') / current_setting('block_size')::int as pages`;
    // The connection's counter also holds what its earlier transactions read until it reports them
    // (at most once a second): the batch's reads are the difference across it.
    const fetched = await ownerSql().begin(async (tx) => {
      const blocks = async () =>
        (await tx<{ blocks: number }[]>`select pg_stat_get_xact_blocks_fetched('app.events'::regclass)::int as blocks`)[0].blocks;
      const before = await blocks();
      await tx`select * from app.purge_expired_batch(100)`;
      return (await blocks()) - before;
    });
    expect(pages).toBeGreaterThan(1500);
    expect(fetched).toBeLessThan(1000);
  });

  it('commits each batch without waiting for its WAL to reach the disk, and only that batch', async () => {
    // A lost batch is deleted again by the next purge; a request's commit must not queue behind its flush.
    // Rolled back, so that it deletes nothing of other tests; the setting ends with the transaction either way.
    const connection = await ownerSql().reserve();
    try {
      const setting = async () => (await connection<{ commits: string }[]>`select current_setting('synchronous_commit') as commits`)[0].commits;
      const outside = await setting();
      expect(outside).not.toBe('off');
      await connection`begin`;
      try {
        await connection`select * from app.purge_expired_batch(1)`;
        expect(await setting()).toBe('off');
      } finally {
        await connection`rollback`;
      }
      expect(await setting()).toBe(outside);
    } finally {
      connection.release();
    }
  });

  it('takes batches of 250 unless told otherwise, as both of its callers do', async () => {
    const [{ batch, procedure }] = await ownerSql()<{ batch: string; procedure: string }[]>`
      select pg_get_function_arguments('app.purge_expired_batch(integer)'::regprocedure) as batch,
             pg_get_function_arguments('app.purge_expired(integer, double precision)'::regprocedure) as procedure`;
    expect(batch).toMatch(/p_batch integer DEFAULT 250\b/);
    expect(procedure).toMatch(/p_batch integer DEFAULT 250\b/);
    expect(purgeBatch).toBe(250);
  });

  it('deletes everything past retention in batches of at most the batch size of each kind, and keeps the rest', async () => {
    await history(org, endpoint, 2_300, 400);
    await ownerSql()`
      insert into app.webhook_deliveries (org_id, environment, endpoint_id, event, status, attempts, completed_at, created_at)
      select ${org}, 'live', ${endpoint}, 'ping', 'succeeded', 1, now() - interval '91 days', now() - interval '91 days' from generate_series(1, 700)`;
    await ownerSql()`
      insert into app.idempotency_keys (org_id, environment, key, fingerprint, state, created_at)
      select ${org}, 'live', 'season-' || g, 'f', 'done', now() - interval '49 hours' from generate_series(1, 1_200) g`;

    const batches: PurgedBatch[] = [];
    const deleted = await purgeExpiredEvents(ownerSql(), { batch: 500, giveWay: 0, onBatch: (batch) => batches.push(batch) });

    expect(await expiredLeft(org)).toEqual({ events: 0, deliveries: 0, keys: 0 });
    for (const batch of batches) {
      expect(Math.max(batch.events, batch.pings, batch.idempotency_keys, batch.rate_windows)).toBeLessThanOrEqual(500);
    }
    // 2,300 events take five batches (other test files' expired rows, if any, may add one or two).
    expect(batches.length).toBeGreaterThanOrEqual(5);
    expect(batches.reduce((sum, batch) => sum + batch.events, 0)).toBeGreaterThanOrEqual(2_300);
    expect(deleted).toBeGreaterThanOrEqual(2_300 + 700 + 1_200);
    const [{ kept }] = await ownerSql()<{ kept: number }[]>`select count(*)::int as kept from app.events where org_id = ${org}`;
    expect(kept).toBe(400);
  });

  it('gives way after each batch, waiting three times as long as the batch took', async () => {
    await history(org, endpoint, 1_000);
    const times: number[] = [];
    const started = performance.now();
    await purgeExpiredEvents(ownerSql(), { batch: 100, onBatch: (_batch, ms) => times.push(ms) });
    const elapsed = performance.now() - started;
    expect(await expiredLeft(org)).toEqual({ events: 0, deliveries: 0, keys: 0 });
    expect(times.length).toBeGreaterThanOrEqual(10);
    // Every batch but the last is followed by its pause (a timer may fire up to a millisecond early).
    const working = times.reduce((sum, ms) => sum + ms, 0);
    const paused = purgeGivesWay * times.slice(0, -1).reduce((sum, ms) => sum + ms, 0);
    expect(purgeGivesWay).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(working + paused - times.length);
  });

  /** Purges 1,000 expired events in batches of 100, `abortAfter` deciding after each batch whether and how to stop; returns the batches run. */
  const purgeStopped = async (abortAfter: (batches: number, stop: AbortController) => void) => {
    await history(org, endpoint, 1_000);
    const stop = new AbortController();
    let batches = 0;
    await purgeExpiredEvents(ownerSql(), { batch: 100, onBatch: () => abortAfter(++batches, stop), signal: stop.signal });
    return batches;
  };

  it('stops after the batch in progress when its signal aborts, leaving the rest for the next run', async () => {
    expect(await purgeStopped((batches, stop) => batches === 2 && stop.abort())).toBe(2);
    expect((await expiredLeft(org)).events).toBeGreaterThanOrEqual(800);
  });

  it('stops during the pause after a batch when its signal aborts there, without another batch', async () => {
    // Aborted a moment after the first batch, while the purge waits three times its time.
    expect(await purgeStopped((batches, stop) => batches === 1 && setTimeout(() => stop.abort(), 0))).toBe(1);
    expect((await expiredLeft(org)).events).toBeGreaterThanOrEqual(900);
  });

  it("pg_cron's procedure purges everything, committing after each batch (so it refuses to run inside a transaction)", async () => {
    await history(org, endpoint, 900);
    await expect(ownerSql().begin((tx) => tx.unsafe('call app.purge_expired(200)'))).rejects.toThrow(/invalid transaction termination/);
    await ownerSql().unsafe('call app.purge_expired(200)').simple();
    expect(await expiredLeft(org)).toEqual({ events: 0, deliveries: 0, keys: 0 });
  });

  it("pg_cron's procedure spends most of a purge asleep between its batches' transactions", async () => {
    await history(org, endpoint, 1_500);
    // Its backend, sampled while it runs: with the default (three times the batch's time) about
    // three samples in four find it in pg_sleep, between two transactions.
    const connection = await ownerSql().reserve();
    try {
      const [{ pid }] = await connection<{ pid: number }[]>`select pg_backend_pid() as pid`;
      let running = true;
      const purge = connection.unsafe('call app.purge_expired(100)').simple().finally(() => { running = false; });
      const samples: { wait_event: string | null; state: string }[] = [];
      while (running) {
        const [row] = await ownerSql()<{ wait_event: string | null; state: string }[]>`
          select wait_event, state from pg_stat_activity where pid = ${pid}`;
        if (row?.state === 'active') samples.push(row);
      }
      await purge;
      expect(await expiredLeft(org)).toEqual({ events: 0, deliveries: 0, keys: 0 });
      expect(samples.length).toBeGreaterThan(20);
      const asleep = samples.filter((sample) => sample.wait_event === 'PgSleep').length / samples.length;
      expect(asleep).toBeGreaterThan(0.5);
    } finally {
      connection.release();
    }
  });
});
