import { describe, expect, it } from 'vitest';
import { claimTiming } from '../../shared/http/middleware/idempotency.ts';
import { call, createKey, createTenant, errorOf, ownerSql } from '../helpers.ts';
import { callProbe, failures } from './probe-app.ts';

const eventCount = async (orgId: string) =>
  (await ownerSql()<{ n: number }[]>`select count(*)::int as n from app.events where org_id = ${orgId}`)[0].n;

describe('idempotency', () => {
  it('replays the first response byte for byte and does not repeat the work', async () => {
    const t = await createTenant('carrier');
    const headers = { 'idempotency-key': 'create-1' };
    const first = await callProbe(t.sandbox, { note: 'one' }, headers);
    expect(first.status).toBe(201);
    // Same JSON, other key order and spacing: the same body.
    const second = await callProbe(t.sandbox, '{ "note" : "one" }', headers);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // The replay is a stored response, not one the handler built: it still carries this request's headers.
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    expect(second.headers.get('x-request-id')).toMatch(/^req_/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await eventCount(t.orgId)).toBe(1);
  });

  it('without a key, nothing is remembered', async () => {
    const t = await createTenant('carrier');
    await callProbe(t.sandbox, { note: 'a' });
    await callProbe(t.sandbox, { note: 'a' });
    expect(await eventCount(t.orgId)).toBe(2);
  });

  it('refuses the same key with a different body: 409 idempotency_key_reused', async () => {
    const t = await createTenant('carrier');
    await callProbe(t.sandbox, { note: 'one' }, { 'idempotency-key': 'k' });
    const res = await callProbe(t.sandbox, { note: 'two' }, { 'idempotency-key': 'k' });
    expect(res.status).toBe(409);
    expect(JSON.parse(res.text).error.code).toBe('idempotency_key_reused');
    expect(await eventCount(t.orgId)).toBe(1);
  });

  it('a call running past its claim\'s lock keeps renewing it: a retry meanwhile is told it is in progress, and the write happens once', async () => {
    const t = await createTenant('carrier');
    const saved = { ...claimTiming };
    Object.assign(claimTiming, { lockSeconds: 1, renewSeconds: 0.25 });
    try {
      const headers = { 'idempotency-key': 'long' };
      const first = callProbe(t.sandbox, { note: 'long', delay_ms: 1800 }, headers);
      // Past the first lock: without renewal the key would be free and the retry would run the call again.
      await new Promise((r) => setTimeout(r, 1400));
      const retry = await callProbe(t.sandbox, { note: 'long', delay_ms: 1800 }, headers);
      expect(errorOf(JSON.parse(retry.text))).toMatchObject({ code: 'request_in_progress' });
      expect((await first).status).toBe(201);
      expect(await eventCount(t.orgId)).toBe(1);
    } finally {
      Object.assign(claimTiming, saved);
    }
  });

  it('a 500 after the write committed keeps the key: the retry is told the change is done, and nothing is written twice', async () => {
    const t = await createTenant('carrier');
    failures.crashesLeft = 1;
    const headers = { 'idempotency-key': 'after-write' };
    const first = await callProbe(t.sandbox, { note: 'once', fail: 'crash_after_write' }, headers);
    expect(first.status).toBe(500);
    expect(await eventCount(t.orgId)).toBe(1);
    const retry = await callProbe(t.sandbox, { note: 'once', fail: 'crash_after_write' }, headers);
    expect(retry.status).toBe(409);
    expect(errorOf(JSON.parse(retry.text))).toMatchObject({ code: 'idempotent_answer_lost', field: 'Idempotency-Key' });
    expect(await eventCount(t.orgId)).toBe(1);
  });

  it('a server that stopped between the write and keeping its answer: in progress while its claim holds, then the change is said done, never made twice', async () => {
    const t = await createTenant('carrier');
    const headers = { 'idempotency-key': 'stopped' };
    expect((await callProbe(t.sandbox, { note: 'stopped' }, headers)).status).toBe(201);
    // As the write's own transaction left it, had the server stopped right after its commit.
    const state = (lockedFor: string) => ownerSql()`
      update app.idempotency_keys set state = 'applied', response_status = null, response_body = null, response_content_type = null,
             locked_until = now() + ${lockedFor}::interval
       where org_id = ${t.orgId} and key = 'stopped'`;
    await state('20 seconds');
    const running = await callProbe(t.sandbox, { note: 'stopped' }, headers);
    expect(errorOf(JSON.parse(running.text))).toMatchObject({ code: 'request_in_progress' });
    await state('-1 second');
    const lost = await callProbe(t.sandbox, { note: 'stopped' }, headers);
    expect(lost.status).toBe(409);
    expect(errorOf(JSON.parse(lost.text))).toMatchObject({ code: 'idempotent_answer_lost' });
    expect(await eventCount(t.orgId)).toBe(1);
  });

  it('answers 409 request_in_progress while the first call with the key runs', async () => {
    const t = await createTenant('carrier');
    const headers = { 'idempotency-key': 'slow' };
    const lockWhileRunning = new Promise((r) => setTimeout(r, 150)).then(async () =>
      (await ownerSql()<{ seconds: number }[]>`
        select extract(epoch from locked_until - now())::float as seconds from app.idempotency_keys where org_id = ${t.orgId} and key = 'slow'`)[0]?.seconds);
    const [a, b, lock] = await Promise.all([
      callProbe(t.sandbox, { note: 'slow', delay_ms: 400 }, headers),
      new Promise((r) => setTimeout(r, 100)).then(() => callProbe(t.sandbox, { note: 'slow', delay_ms: 400 }, headers)),
      lockWhileRunning,
    ]);
    // The running call's claim holds for a short lease (renewed while it runs): a server that dies
    // with it leaves the key blocked for half a minute at most, not minutes.
    expect(lock).toBeGreaterThan(claimTiming.lockSeconds - 5);
    expect(lock).toBeLessThanOrEqual(claimTiming.lockSeconds);
    expect(a.status).toBe(201);
    expect(b.status).toBe(409);
    expect(JSON.parse(b.text).error.code).toBe('request_in_progress');
    expect(await eventCount(t.orgId)).toBe(1);
    // Once the first finished, the key replays it.
    const c = await callProbe(t.sandbox, { note: 'slow', delay_ms: 400 }, headers);
    expect(c.text).toBe(a.text);
  });

  it('a 500 releases the key so a retry runs again', async () => {
    const t = await createTenant('carrier');
    failures.crashesLeft = 1;
    const headers = { 'idempotency-key': 'crashy' };
    const first = await callProbe(t.sandbox, { note: 'x', fail: 'crash' }, headers);
    expect(first.status).toBe(500);
    const retry = await callProbe(t.sandbox, { note: 'x', fail: 'crash' }, headers);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await eventCount(t.orgId)).toBe(1);
  });

  it('a 4xx is replayed as given', async () => {
    const t = await createTenant('carrier');
    const headers = { 'idempotency-key': 'conflict' };
    const first = await callProbe(t.sandbox, { note: 'x', fail: 'conflict' }, headers);
    expect(first.status).toBe(409);
    const second = await callProbe(t.sandbox, { note: 'x', fail: 'conflict' }, headers);
    expect(second.status).toBe(409);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses keys over 255 characters', async () => {
    const t = await createTenant('carrier');
    const ok = await callProbe(t.sandbox, { note: 'x' }, { 'idempotency-key': 'k'.repeat(255) });
    expect(ok.status).toBe(201);
    const res = await callProbe(t.sandbox, { note: 'x' }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'idempotency_key_too_long', field: 'Idempotency-Key' });
  });

  it('is scoped to the organisation and environment', async () => {
    const a = await createTenant('carrier');
    const b = await createTenant('carrier');
    const headers = { 'idempotency-key': 'shared-key' };
    const first = await callProbe(a.sandbox, { note: 'one' }, headers);
    const otherOrg = await callProbe(b.sandbox, { note: 'two' }, headers);
    const otherEnv = await callProbe(a.live, { note: 'three' }, headers);
    expect([first.status, otherOrg.status, otherEnv.status]).toEqual([201, 201, 201]);
    expect(JSON.parse(otherOrg.text).data.note).toBe('two');
    expect(JSON.parse(otherEnv.text).data.note).toBe('three');
  });

  it('forgets keys after 48 hours', async () => {
    const t = await createTenant('carrier');
    const headers = { 'idempotency-key': 'old' };
    await callProbe(t.sandbox, { note: 'one' }, headers);
    await ownerSql()`update app.idempotency_keys set created_at = now() - interval '49 hours' where org_id = ${t.orgId}`;
    const again = await callProbe(t.sandbox, { note: 'two' }, headers);
    expect(again.status).toBe(201);
    expect(JSON.parse(again.text).data.note).toBe('two');
    expect(await eventCount(t.orgId)).toBe(2);
  });

  it('takes over a claim abandoned by a worker that died', async () => {
    const t = await createTenant('carrier');
    await ownerSql()`
      insert into app.idempotency_keys (org_id, environment, key, fingerprint, state, locked_until)
      values (${t.orgId}, 'sandbox', 'orphan', 'whatever', 'in_progress', now() - interval '1 second')`;
    const res = await callProbe(t.sandbox, { note: 'x' }, { 'idempotency-key': 'orphan' });
    expect(res.status).toBe(201);
  });
});

describe('idempotency across the keys of an organisation', () => {
  const hook = { url: 'https://hooks.example.com/idem-keys' };
  const endpointCount = async (orgId: string, environment: string) =>
    (await ownerSql()<{ n: number }[]>`select count(*)::int as n from app.webhook_endpoints where org_id = ${orgId} and environment = ${environment}`)[0].n;
  const record = async (orgId: string, key: string) =>
    ownerSql()`select * from app.idempotency_keys where org_id = ${orgId} and key = ${key}`;
  const create = (key: string, idempotencyKey: string) =>
    call('POST', '/webhooks', { key, body: hook, headers: { 'idempotency-key': idempotencyKey } });

  it('checks the scope first: a key without it is 403 forbidden whatever its Idempotency-Key, and the record is not touched', async () => {
    const t = await createTenant('carrier');
    const first = await create(t.sandbox, 'hook-scope');
    expect(first.status).toBe(201);
    const before = await record(t.orgId, 'hook-scope');
    const reader = await createKey(t.orgId, 'sandbox', { scopes: ['claims:read'] });
    const refused = await create(reader.key, 'hook-scope');
    expect(refused.status).toBe(403);
    expect(errorOf(refused.body)).toMatchObject({ code: 'forbidden' });
    expect(errorOf(refused.body).message).toContain('webhooks:manage');
    expect(refused.headers.get('idempotent-replayed')).toBeNull();
    expect(await record(t.orgId, 'hook-scope')).toEqual(before);
    // A key of its own is not remembered either: a refused call claims nothing.
    expect((await create(reader.key, 'hook-fresh')).status).toBe(403);
    expect(await record(t.orgId, 'hook-fresh')).toEqual([]);
    // The first key's replay still works.
    const replay = await create(t.sandbox, 'hook-scope');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toMatchObject({ id: first.body.data.id, secret: null });
  });

  it('another key of the organisation with the scope replays the answer, never a secret it issued', async () => {
    const t = await createTenant('carrier');
    const first = await create(t.sandbox, 'hook-rotation');
    expect(first.body.data.secret).toMatch(/^whsec_/);
    // Key rotation: the new key works at once, and a retry it sends is the same call.
    const next = await createKey(t.orgId, 'sandbox', { scopes: ['webhooks:manage'] });
    const replay = await create(next.key, 'hook-rotation');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toMatchObject({ id: first.body.data.id, url: hook.url, secret: null });
    expect(replay.body.data.secret_note).toMatch(/shown only once/);
    expect(replay.text).not.toContain('whsec_');
    expect(await endpointCount(t.orgId, 'sandbox')).toBe(1);
    const [stored] = await record(t.orgId, 'hook-rotation');
    expect(stored.response_body).not.toContain('whsec_');

    // A rotated secret alike: the replay names the rotation and withholds the secret, which is not rotated again.
    const path = `/webhooks/${first.body.data.id}/rotate-secret` as const;
    const rotated = await call('POST', path, { key: t.sandbox, headers: { 'idempotency-key': 'rotate-1' } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    const again = await call('POST', path, { key: next.key, headers: { 'idempotency-key': 'rotate-1' } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toMatchObject({ id: first.body.data.id, secret: null, secret_rotated_at: rotated.body.data.secret_rotated_at });
    expect(again.text).not.toContain('whsec_');
    const [{ secret }] = await ownerSql()<{ secret: string }[]>`select secret from app.webhook_endpoints where id = ${first.body.data.id}`;
    expect(secret).toBe(rotated.body.data.secret);
  });

  it('another organisation with the same Idempotency-Key and body gets its own answer', async () => {
    const a = await createTenant('carrier');
    const b = await createTenant('carrier');
    const first = await create(a.sandbox, 'hook-shared');
    const other = await create(b.sandbox, 'hook-shared');
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expect(other.body.data.secret).toMatch(/^whsec_/);
    expect(await endpointCount(b.orgId, 'sandbox')).toBe(1);
  });

  it('the sandbox and live keys of one organisation keep their records apart', async () => {
    const t = await createTenant('carrier');
    const sandbox = await create(t.sandbox, 'hook-env');
    const live = await create(t.live, 'hook-env');
    expect(live.status).toBe(201);
    expect(live.headers.get('idempotent-replayed')).toBeNull();
    expect(live.body.data.id).not.toBe(sandbox.body.data.id);
    expect(live.body.data.secret).toMatch(/^whsec_/);
    expect([await endpointCount(t.orgId, 'sandbox'), await endpointCount(t.orgId, 'live')]).toEqual([1, 1]);
    // Each environment's retry replays its own answer.
    expect((await create(t.live, 'hook-env')).body.data.id).toBe(live.body.data.id);
    expect((await create(t.sandbox, 'hook-env')).body.data.id).toBe(sandbox.body.data.id);
  });
});
