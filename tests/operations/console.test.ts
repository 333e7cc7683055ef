import { describe, expect, it } from 'vitest';
import { commands } from '../../scripts/console/commands.ts';
import { runConsole } from '../foundation/run-console.ts';
import { call, consoleCommand, createKey, createOrg } from '../helpers.ts';

const everyUsage = Object.values(commands).map((c) => c.usage);

describe('operator console help', () => {
  it('--help, help and no command print every command on stdout and exit 0, without a database', async () => {
    // An unreachable DATABASE_URL proves help never opens one.
    const env = { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/postgres' };
    for (const args of [['--help'], ['help'], [], ['-h']]) {
      const res = await runConsole(args, env);
      expect(res.code, args.join(' ')).toBe(0);
      expect(res.stderr).toBe('');
      expect(res.stdout).toMatch(/^Usage: npm run --silent admin -- <command>/);
      for (const usage of everyUsage) expect(res.stdout).toContain(usage);
    }
  }, 60_000);

  it('help for one command or one group; an unknown one is an error naming the known commands', async () => {
    const one = await runConsole(['key', 'limit', '--help'], { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/postgres' });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(commands['key limit'].usage);
    expect(one.stdout).toContain(commands['key limit'].summary);
    expect(one.stdout).not.toContain(commands['org create'].usage);

    const group = await runConsole(['help', 'key'], { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/postgres' });
    expect(group.code).toBe(0);
    for (const name of ['key create', 'key list', 'key revoke', 'key limit']) expect(group.stdout).toContain(commands[name].usage);
    expect(group.stdout).not.toContain(commands['org list'].usage);

    const unknown = await runConsole(['help', 'key', 'explode']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(JSON.parse(unknown.stderr).error.code).toBe('unknown_command');
  }, 60_000);

  it('an unknown command names every known command', async () => {
    const error = await consoleCommand('org', 'explode').catch((e) => e);
    expect(error.code).toBe('unknown_command');
    expect(error.message).toContain('unknown command "org explode"');
    for (const name of Object.keys(commands)) expect(error.message).toContain(name);
    expect(error.message).toContain('help');
  });
});

describe('key limit', () => {
  const limitHeader = async (key: string) => (await call('GET', '/usage', { key })).headers.get('x-ratelimit-limit');
  const listed = async (orgId: string, keyId: string) =>
    (await consoleCommand<{ data: Record<string, unknown>[] }>('key', 'list', '--org', orgId)).data.find((k) => k.id === keyId)!;

  it("raises one key's limit, which the API then enforces and reports; --default restores the environment's default", async () => {
    const orgId = await createOrg('carrier');
    const live = await createKey(orgId, 'live', { defaultLimits: true });
    const sandbox = await createKey(orgId, 'sandbox', { defaultLimits: true });
    expect(await limitHeader(live.key)).toBe('600');
    expect(await limitHeader(sandbox.key)).toBe('120');
    expect(await listed(orgId, live.id)).toMatchObject({ rate_limit_per_minute: null, rate_limit_default: 600 });

    const raised = await consoleCommand('key', 'limit', '--id', live.id, '--per-minute', '1500');
    expect(raised.data).toMatchObject({ id: live.id, rate_limit_per_minute: 1500, rate_limit_default: 600, effective_rate_limit_per_minute: 1500 });
    expect(await limitHeader(live.key)).toBe('1500');
    expect(await limitHeader(sandbox.key)).toBe('120');
    expect(await listed(orgId, live.id)).toMatchObject({ rate_limit_per_minute: 1500, rate_limit_default: 600 });

    // Lowered below what the key used this minute: the next call is refused with that limit.
    await consoleCommand('key', 'limit', '--id', sandbox.id, '--per-minute', '1');
    const limited = await call('GET', '/usage', { key: sandbox.key });
    expect(limited.status).toBe(429);
    expect(limited.body.error?.code).toBe('rate_limited');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('1');

    const restored = await consoleCommand('key', 'limit', '--id', live.id, '--default');
    expect(restored.data).toMatchObject({ rate_limit_per_minute: null, effective_rate_limit_per_minute: 600 });
    expect(await limitHeader(live.key)).toBe('600');
    expect(await listed(orgId, live.id)).toMatchObject({ rate_limit_per_minute: null });
  });

  it('refuses a missing, unknown or malformed key id, a limit that is not a whole number from 1 to 100000, and both or neither of --per-minute and --default', async () => {
    const orgId = await createOrg('provider');
    const { id } = await createKey(orgId, 'live');
    const cases: [string[], string, RegExp][] = [
      [['--per-minute', '10'], 'missing_option', /--id/],
      [['--id', 'nope', '--per-minute', '10'], 'invalid_option', /--id/],
      [['--id', crypto.randomUUID(), '--per-minute', '10'], 'not_found', /no key/],
      [['--id', id], 'missing_option', /--per-minute N or --default/],
      [['--id', id, '--per-minute', '10', '--default'], 'missing_option', /exactly one/],
      [['--id', id, '--per-minute', '0'], 'invalid_option', /1 to 100000/],
      [['--id', id, '--per-minute', '100001'], 'invalid_option', /1 to 100000/],
      [['--id', id, '--per-minute', '2.5'], 'invalid_option', /whole number/],
      [['--id', id, '--per-minute', '-5'], 'invalid_option', /./],
      [['--id', id, '--default=yes'], 'invalid_option', /takes no value/],
    ];
    for (const [args, code, message] of cases) {
      const error = await consoleCommand('key', 'limit', ...args).catch((e) => e);
      expect(error.code, args.join(' ')).toBe(code);
      expect(error.message, args.join(' ')).toMatch(message);
    }
  });
});
