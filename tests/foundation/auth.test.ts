import { describe, expect, it } from 'vitest';
import { call, client, consoleCommand, createKey, createOrg, createTenant, errorOf } from '../helpers.ts';

describe('authentication', () => {
  it('accepts a key as Bearer or as x-api-key, and takes the environment from the key', async () => {
    const t = await createTenant('carrier');
    const bearer = await call('GET', '/usage', { key: t.sandbox });
    expect(bearer.status).toBe(200);
    expect(bearer.body.data.organisation.environment).toBe('sandbox');
    const header = await call('GET', '/usage', { headers: { 'x-api-key': t.live } });
    expect(header.status).toBe(200);
    expect(header.body.data.organisation.environment).toBe('live');
  });

  it('401 missing_key without a key', async () => {
    const res = await call('GET', '/usage');
    expect(res.status).toBe(401);
    expect(res.body.error?.code).toBe('missing_key');
  });

  it('401 invalid_key for an unknown, malformed, revoked or personal key', async () => {
    const t = await createTenant('carrier');
    const orgId = await createOrg('carrier');
    const personal = await consoleCommand<{ data: { key: string } }>('key', 'create', '--org', orgId, '--env', 'live', '--user', 'adjuster@example.com');
    const revoked = await createKey(orgId, 'live');
    // Used first, so that this process has its hash at hand: revocation still applies at once.
    expect((await call('GET', '/usage', { key: revoked.key })).status).toBe(200);
    await consoleCommand('key', 'revoke', '--id', revoked.id);
    for (const key of [t.sandbox.slice(0, -1) + (t.sandbox.endsWith('x') ? 'y' : 'x'), 'not-a-key', personal.data.key, revoked.key]) {
      const res = await call('GET', '/usage', { key });
      expect(res.status, key).toBe(401);
      expect(res.body.error?.code).toBe('invalid_key');
    }
  });
});

describe('scopes', () => {
  it('403 forbidden names the missing scope', async () => {
    const orgId = await createOrg('carrier');
    const { key } = await createKey(orgId, 'sandbox', { scopes: ['claims:write'] });
    const res = await call('GET', '/usage', { key });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('forbidden');
    expect(res.body.error?.message).toContain('any read scope');
  });

  it('self-revocation needs no scope and takes effect at once', async () => {
    const orgId = await createOrg('provider');
    const { key, id } = await createKey(orgId, 'live', { scopes: [] });
    const res = await client(key).post('/usage/keys/self/revoke');
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(id);
    expect(Date.parse(res.body.data.revoked_at)).not.toBeNaN();
    const after = await client(key).post('/usage/keys/self/revoke');
    expect(after.status).toBe(401);
    expect(after.body.error?.code).toBe('invalid_key');
  });
});

describe('errors and routing', () => {
  it('404 not_found for unknown paths, 405 with Allow for a known path and a wrong method', async () => {
    const t = await createTenant('carrier');
    const unknownFunction = await call('GET', '/nothing-here', { key: t.sandbox });
    expect(unknownFunction.status).toBe(404);
    expect(errorOf(unknownFunction.body).code).toBe('not_found');
    const unknownPath = await call('GET', '/usage/nothing', { key: t.sandbox });
    expect(unknownPath.status).toBe(404);
    const wrongMethod = await call('DELETE', '/usage', { key: t.sandbox });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(errorOf(wrongMethod.body).code).toBe('method_not_allowed');
  });

  it('echoes the caller X-Request-Id, or makes one', async () => {
    const t = await createTenant('carrier');
    const given = await call('GET', '/usage', { key: t.sandbox, headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await call('GET', '/usage/none', { key: t.sandbox });
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });
});
