// Test helpers: every call goes through the real HTTP surface (the local router that mounts every
// function under /functions/v1) against the real database.
import postgres from 'postgres';
import { afterAll } from 'vitest';
import { route } from '../scripts/lib/router.ts';
import { connect, pgTypes } from '../shared/db/client.ts';
import { runCommand } from '../scripts/console/commands.ts';
import type { Environment, Side } from '../shared/db/tenant.ts';
import type { ErrorDetail, ResponseBody } from './api-types.ts';

let owner: postgres.Sql | undefined;

/** A database connection as the owner (bypasses row-level security), for set-up and assertions. */
export function ownerSql(): postgres.Sql {
  owner ??= connect(process.env.DATABASE_URL!, {
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

export interface ApiResponse<T = unknown> {
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
  /** The host the request is addressed to (its Host header), which the sender chooses. */
  host?: string;
}

const defaultAddress = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/** One HTTP call to /functions/v1 + path. A body that is not a string or FormData is sent as JSON.
 * The response body has the type the OpenAPI document gives `method path` (see api-types.ts). */
export async function call<Method extends string, Path extends string>(
  method: Method,
  path: Path,
  options: CallOptions = {},
): Promise<ApiResponse<ResponseBody<Method, Path>>> {
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
  const response = await route(new Request(`http://${options.host ?? 'localhost'}/functions/v1${path}`, { method, headers, body }));
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (HTML docs page)
  }
  return { status: response.status, headers: response.headers, body: parsed as ResponseBody<Method, Path>, text };
}

/** A client bound to one key: api.get('/claims'), api.post('/claims', body, headers). */
export function client(key: string, address?: string) {
  return {
    get: <Path extends string>(path: Path, headers?: Record<string, string>) => call('GET', path, { key, headers, address }),
    post: <Path extends string>(path: Path, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, { key, body, headers, address }),
    patch: <Path extends string>(path: Path, body?: unknown, headers?: Record<string, string>) =>
      call('PATCH', path, { key, body, headers, address }),
    delete: <Path extends string>(path: Path, headers?: Record<string, string>) => call('DELETE', path, { key, headers, address }),
  };
}

/** An object the document leaves open (an error's extra members, an item of an untyped body), read
 * member by member; anything else fails the test, showing the value. */
export function record(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new Error(`expected an object, got ${JSON.stringify(value)}`);
}

/** The error object of a body the document does not type (an undocumented path, or a path only
 * known as a string at compile time); a body without one fails the test, showing the body. */
export function errorOf(body: unknown): ErrorDetail {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const { error } = body;
    if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error as ErrorDetail;
  }
  throw new Error(`expected an error answer, got ${JSON.stringify(body)}`);
}
