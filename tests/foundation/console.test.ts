import { describe, expect, it } from 'vitest';
import { runConsole } from './run-console.ts';

describe('operator console', () => {
  it('creates organisations and keys, lists them without secrets, revokes keys; one JSON object per command', async () => {
    const org = await runConsole(['org', 'create', '--name', 'Console Mutual', '--side', 'carrier']);
    expect(org.code).toBe(0);
    const { data: created } = JSON.parse(org.stdout);
    expect(created).toMatchObject({ name: 'Console Mutual', side: 'carrier' });

    const key = await runConsole(['key', 'create', '--org', created.id, '--env', 'live', '--name', 'prod']);
    const keyData = JSON.parse(key.stdout).data;
    expect(keyData.key).toMatch(/^svc_pk_[0-9A-Za-z]{32}$/);
    expect(keyData.scopes).toEqual(['claims:read', 'claims:write', 'options:read', 'options:write', 'placements:read', 'webhooks:manage']);
    const sandbox = JSON.parse((await runConsole(['key', 'create', '--org', created.id, '--env', 'sandbox', '--scopes', 'claims:read'])).stdout).data;
    expect(sandbox).toMatchObject({ environment: 'sandbox', scopes: ['claims:read'] });
    expect(sandbox.key).toMatch(/^svc_sk_/);

    const list = JSON.parse((await runConsole(['key', 'list', '--org', created.id])).stdout);
    expect(list.count).toBe(2);
    expect(JSON.stringify(list)).not.toContain(keyData.key);
    expect(JSON.stringify(list)).not.toContain('key_hash');

    const revoked = JSON.parse((await runConsole(['key', 'revoke', '--id', keyData.id])).stdout).data;
    expect(revoked.id).toBe(keyData.id);
    expect(revoked.revoked_at).toBeTruthy();

    const orgs = JSON.parse((await runConsole(['org', 'list'])).stdout);
    expect(orgs.data.some((o: { id: string }) => o.id === created.id)).toBe(true);
    expect(orgs.count).toBe(orgs.data.length);
  }, 90_000);

  it('a bad command or argument exits non-zero with an error object on stderr', async () => {
    for (const args of [['org', 'explode'], ['org', 'create', '--name', 'X', '--side', 'insurer'], ['key', 'create', '--org', 'nope', '--env', 'live'], ['calls', 'list', '--kind', 'email']]) {
      const res = await runConsole(args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(JSON.parse(res.stderr).error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    const unreachable = await runConsole(['org', 'list'], { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/postgres' });
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stdout).toBe('');
    expect(JSON.parse(unreachable.stderr).error.message).toMatch(/ECONNREFUSED/);
    const org = JSON.parse((await runConsole(['org', 'create', '--name', 'P', '--side', 'provider'])).stdout).data;
    const foreign = await runConsole(['key', 'create', '--org', org.id, '--env', 'live', '--scopes', 'claims:read']);
    expect(foreign.code).not.toBe(0);
    expect(JSON.parse(foreign.stderr).error.message).toContain('claims:read');
  }, 90_000);
});
