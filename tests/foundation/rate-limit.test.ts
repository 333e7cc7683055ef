import { clientAddress } from '../../shared/http/middleware/authenticate.ts';
import { describe, expect, it } from 'vitest';
import { connect } from '../../shared/db/client.ts';
import { call, createKey, createOrg, ownerSql } from '../helpers.ts';

const rateHeaders = (headers: Headers) => ({
  limit: headers.get('x-ratelimit-limit'),
  remaining: headers.get('x-ratelimit-remaining'),
  reset: headers.get('x-ratelimit-reset'),
});

/**
 * Runs `attempt` until all its requests fell in one fixed window (a minute boundary in the middle
 * would restart the count); `attempt` returns the X-RateLimit-Reset values it saw.
 */
async function inOneWindow(attempt: () => Promise<string[]>) {
  for (let tries = 0; tries < 3; tries++) {
    if (new Set(await attempt()).size === 1) return;
  }
  throw new Error('three attempts straddled a minute boundary');
}

describe('rate limits', () => {
  it('live keys get 600 a minute, sandbox keys 120, on every response including errors', async () => {
    const orgId = await createOrg('carrier');
    const live = await createKey(orgId, 'live', { defaultLimits: true });
    const sandbox = await createKey(orgId, 'sandbox', { defaultLimits: true });
    const ok = await call('GET', '/usage', { key: live.key });
    expect(rateHeaders(ok.headers)).toMatchObject({ limit: '600', remaining: '599' });
    expect(new Date(ok.headers.get('x-ratelimit-reset')!).getUTCSeconds()).toBe(0);
    const notFound = await call('GET', '/usage/missing', { key: sandbox.key });
    expect(notFound.status).toBe(404);
    expect(rateHeaders(notFound.headers)).toMatchObject({ limit: '120', remaining: '119' });
    const unauthenticated = await call('GET', '/usage', { address: '10.77.0.1' });
    expect(unauthenticated.status).toBe(401);
    expect(rateHeaders(unauthenticated.headers).limit).toBe('60');
  });

  it('429 rate_limited with Retry-After once the window is used up, and the work is not done', async () => {
    const orgId = await createOrg('provider');
    const { key, id } = await createKey(orgId, 'sandbox', { defaultLimits: true });
    await ownerSql()`
      insert into app.rate_windows (bucket, window_start, count) values (${'key:' + id}, date_trunc('minute', now()), 120)
      on conflict (bucket) do update set window_start = excluded.window_start, count = 120`;
    const res = await call('POST', '/usage/keys/self/revoke', { key });
    expect(res.status).toBe(429);
    expect(res.body.error?.code).toBe('rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(rateHeaders(res.headers).remaining).toBe('0');
    const [row] = await ownerSql()`select revoked_at from app.api_keys where id = ${id}`;
    expect(row.revoked_at).toBeNull();
  });

  it('counts 120 sandbox requests in a minute and refuses the 121st', async () => {
    await inOneWindow(async () => {
      const orgId = await createOrg('carrier');
      const { key } = await createKey(orgId, 'sandbox', { defaultLimits: true });
      const responses = [];
      for (let i = 0; i < 121; i++) responses.push(await call('GET', '/usage/x', { key }));
      const resets = responses.map((r) => r.headers.get('x-ratelimit-reset')!);
      if (new Set(resets).size === 1) {
        expect(responses.slice(0, 120).every((r) => r.status === 404)).toBe(true);
        expect(responses[120].status).toBe(429);
      }
      return resets;
    });
  });

  it('a new minute starts a new window', async () => {
    const orgId = await createOrg('carrier');
    const { key, id } = await createKey(orgId, 'sandbox', { defaultLimits: true });
    await ownerSql()`
      insert into app.rate_windows (bucket, window_start, count)
      values (${'key:' + id}, date_trunc('minute', now()) - interval '1 minute', 120)
      on conflict (bucket) do update set window_start = excluded.window_start, count = 120`;
    const res = await call('GET', '/usage', { key });
    expect(res.status).toBe(200);
    expect(rateHeaders(res.headers).remaining).toBe('119');
  });

  it('a request of a minute the window has left counts in the window as it stands, never moving it back', async () => {
    // The window row as the next minute's first requests leave it; the request's statement began
    // in the minute before (as one reaching the row late, behind the key's other requests, does).
    const orgId = await createOrg('carrier');
    const { key, id } = await createKey(orgId, 'sandbox', { defaultLimits: true });
    const [{ later }] = await ownerSql()<{ later: Date }[]>`
      insert into app.rate_windows (bucket, window_start, count)
      values (${'key:' + id}, date_trunc('minute', now()) + interval '1 minute', 5)
      on conflict (bucket) do update set window_start = excluded.window_start, count = 5
      returning window_start as later`;
    const res = await call('GET', '/usage', { key });
    expect(res.status).toBe(200);
    expect(rateHeaders(res.headers)).toEqual({ limit: '120', remaining: '114', reset: new Date(later.getTime() + 60_000).toISOString() });
    const [row] = await ownerSql()<{ window_start: Date; count: number }[]>`select window_start, count from app.rate_windows where bucket = ${'key:' + id}`;
    expect(row).toEqual({ window_start: later, count: 6 });
  });

  it('limits failed authentication by address at 60 a minute; a valid key from there still works', async () => {
    let address = '';
    await inOneWindow(async () => {
      address = `10.66.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      const responses = [];
      for (let i = 0; i < 61; i++) responses.push(await call('GET', '/usage', { key: 'svc_sk_wrong', address }));
      const resets = responses.map((r) => r.headers.get('x-ratelimit-reset')!);
      if (new Set(resets).size === 1) {
        expect(responses.slice(0, 60).every((r) => r.status === 401)).toBe(true);
        expect(responses[60].status).toBe(429);
        expect(responses[60].body.error?.code).toBe('rate_limited');
      }
      return resets;
    });
    const orgId = await createOrg('carrier');
    const { key } = await createKey(orgId, 'sandbox');
    expect((await call('GET', '/usage', { key, address })).status).toBe(200);
  });

  it('counts failed authentication by the hop the platform appended, not one the client wrote; a huge value counts as one', async () => {
    expect(clientAddress('6.6.6.6, 10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddress('6.6.6.6, 10.1.2.3', 2)).toBe('6.6.6.6');
    expect(clientAddress('10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddress(`${'9'.repeat(3000)}`)).toBe('invalid');
    expect(clientAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(clientAddress(undefined)).toBe('unknown');
    await inOneWindow(async () => {
      const platform = `10.67.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      const responses = [];
      // Each request claims another first hop; the platform's own hop is the same.
      for (let i = 0; i < 61; i++) responses.push(await call('GET', '/usage', { key: 'svc_sk_wrong', address: `203.0.113.${i}, ${platform}` }));
      const resets = responses.map((r) => r.headers.get('x-ratelimit-reset')!);
      if (new Set(resets).size === 1) expect(responses[60].status).toBe(429);
      return resets;
    });
  });

  it('lets requests pass when the limiter fails', async () => {
    const orgId = await createOrg('carrier');
    const { key } = await createKey(orgId, 'sandbox', { defaultLimits: true });
    const blocker = connect(process.env.DATABASE_URL!, { max: 1 });
    try {
      await blocker.begin(async (tx) => {
        await tx`lock table app.rate_windows in access exclusive mode`;
        const res = await call('GET', '/usage', { key });
        expect(res.status).toBe(200);
        expect(rateHeaders(res.headers).limit).toBe('120');
      });
    } finally {
      await blocker.end();
    }
  });
});
