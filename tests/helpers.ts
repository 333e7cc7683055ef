// Test helpers: every call goes through the real HTTP surface (the local router that mounts every
// function under /functions/v1) against the real database.
import postgres from 'postgres';
import { afterAll } from 'vitest';
import { route } from '../scripts/lib/router.ts';
import { pgTypes } from '../shared/db/client.ts';
import { runCommand } from '../scripts/console/commands.ts';
import type { Environment, Side } from '../shared/db/tenant.ts';

let owner: postgres.Sql | undefined;

/** A database connection as the owner (bypasses row-level security), for set-up and assertions. */
export function ownerSql(): postgres.Sql {
  owner ??= postgres(process.env.DATABASE_URL!, {
    max: 2,
    onnotice: () => {},
    types: pgTypes,
  });
  return owner;
}

afterAll(async () => {
  // Jobs that creations started after their commit finish before the pool closes under them.
  const { settleRunsAfterCommit } = await import('../shared/jobs/after-commit.ts');
  await settleRunsAfterCommit();
  await owner?.end();
  owner = undefined;
  const { closeDb } = await import('../shared/db/client.ts');
  await closeDb();
});

/** Runs an operator console command in-process and returns its printed object. */
export async function consoleCommand<T = { data: Record<string, unknown> }>(...argv: string[]): Promise<T> {
  return (await runCommand(ownerSql(), argv)) as T;
}

export async function createOrg(side: Side, name = `${side} ${crypto.randomUUID().slice(0, 8)}`): Promise<string> {
  const result = await consoleCommand<{ data: { id: string } }>('org', 'create', '--name', name, '--side', side);
  return result.data.id;
}

export interface KeyOptions {
  scopes?: string[];
  /** Keep the default per-minute limit; otherwise test keys get a high limit so suites never trip it. */
  defaultLimits?: boolean;
}

export async function createKey(orgId: string, environment: Environment, options: KeyOptions = {}) {
  const args = ['key', 'create', '--org', orgId, '--env', environment];
  if (options.scopes) args.push('--scopes', options.scopes.join(','));
  const result = await consoleCommand<{ data: { id: string; key: string } }>(...args);
  if (!options.defaultLimits) {
    await ownerSql()`update app.api_keys set rate_limit_per_minute = 100000 where id = ${result.data.id}`;
  }
  return result.data;
}

/** An organisation of the given side with a live and a sandbox key (all scopes of the side). */
export async function createTenant(side: Side) {
  const orgId = await createOrg(side);
  const live = await createKey(orgId, 'live');
  const sandbox = await createKey(orgId, 'sandbox');
  return { orgId, live: live.key, sandbox: sandbox.key, liveKeyId: live.id, sandboxKeyId: sandbox.id };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The client address the server sees (X-Forwarded-For). */
  address?: string;
}

const defaultAddress = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/** One HTTP call to /functions/v1 + path. A body that is not a string or FormData is sent as JSON. */
export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers = new Headers(options.headers);
  headers.set('x-forwarded-for', options.address ?? defaultAddress);
  if (options.key) headers.set('authorization', `Bearer ${options.key}`);
  let body: BodyInit | undefined;
  if (options.body instanceof FormData || typeof options.body === 'string') {
    body = options.body;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const response = await route(new Request(`http://localhost/functions/v1${path}`, { method, headers, body }));
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (HTML docs page)
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A client bound to one key: api.get('/claims'), api.post('/claims', body, headers). */
export function client(key: string, address?: string) {
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, { key, headers, address }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', path, { key, body, headers, address }),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PATCH', path, { key, body, headers, address }),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, { key, headers, address }),
  };
}
