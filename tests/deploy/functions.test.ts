// The functions as `supabase functions deploy` ships them: resolved from the import map the CLI
// picks, out of a folder holding only the uploaded files, type-checked and booted under Deno with
// the permissions of Supabase's Edge Runtime (network and environment; no file access), against the
// test database, each answering one real route and one unknown path.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/app.ts';
import { createTenant } from '../helpers.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { deno, denoEnv, deployBundle, deployedFunctions, entryPointFolders, resolutionFlags, runDeno, type DeployedFunction } from './support.ts';

const functions = deployedFunctions();
const dispatcherSecret = 'deploy-test-dispatcher-secret';
/** What the Edge Runtime grants: network and environment. Nothing on disk is read or written. */
const edgePermissions = ['--allow-net', '--allow-env'];
/** Functions booted at once (the machine has other test files running). */
const parallel = 2;

let bundle: string;
beforeAll(async () => {
  bundle = await deployBundle(functions);
}, 240_000);
afterAll(async () => {
  if (bundle) await rm(bundle, { recursive: true, force: true });
});

describe('supabase/config.toml', () => {
  it('deploys every function folder with an entry point', () => {
    expect(functions.map((fn) => fn.name).sort()).toEqual(entryPointFolders());
  });

  it('gives every function an import map the CLI finds', () => {
    for (const fn of functions) expect(fn.importMap, `[functions.${fn.name}] resolves no import map`).toBe('functions/import_map.json');
  });

  it('without the import map setting, a deployment could not resolve the functions', async () => {
    const [health] = deployedFunctions(`[functions.health]\nentrypoint = "../functions/health/index.ts"\n`);
    expect(health.importMap).toBeUndefined();
    const run = await runDeno(['check', '--quiet', ...resolutionFlags(undefined), 'functions/health/index.ts'], { cwd: bundle });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Import "(hono|@hono\/zod-openapi|zod)" not a dependency/);
  }, 120_000);
});

describe('the deployed functions under Deno', () => {
  it('type-check as uploaded', async () => {
    for (const importMap of new Set(functions.map((fn) => fn.importMap))) {
      const group = functions.filter((fn) => fn.importMap === importMap);
      const run = await runDeno(['check', '--quiet', ...resolutionFlags(importMap), ...group.map((fn) => fn.entrypoint)], { cwd: bundle });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
  }, 240_000);

  it('boot and answer a route and an unknown path, with network and environment only', async () => {
    const tenants = { carrier: await createTenant('carrier'), provider: await createTenant('provider') };
    const keys = [tenants.carrier.live, tenants.provider.live, tenants.carrier.sandbox, tenants.provider.sandbox];
    const queue = [...functions];
    const failures: string[] = [];
    const started = Date.now();
    await Promise.all(Array.from({ length: parallel }, async () => {
      for (let fn = queue.shift(); fn; fn = queue.shift()) {
        try {
          await withBootedFunction(fn, async (base) => {
            const key = await expectRoute(fn, base, keys);
            await expectUnknownPath(fn, base, key || tenants.carrier.live);
          });
        } catch (error) {
          failures.push(`${fn.name}: ${(error as Error).message}`);
        }
      }
    }));
    console.info(`deploy test: ${functions.length} functions booted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(failures).toEqual([]);
  }, 300_000);

  it('refuse to start the claims function without the Supabase Storage settings, naming them', async () => {
    const claims = functions.find((fn) => fn.name === 'claims')!;
    const run = await runDeno(['run', '--quiet', ...resolutionFlags(claims.importMap), ...edgePermissions, claims.entrypoint], {
      cwd: bundle,
      env: { ...functionEnv(await freePort()), SUPABASE_URL: '' },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('needs SUPABASE_URL');
  }, 120_000);
});

describe('the public address on the Edge Runtime', () => {
  it('a function that hands out addresses refuses to start without PUBLIC_BASE_URL, naming it (never the request\'s Host)', async () => {
    const calendar = functions.find((fn) => fn.name === 'calendar')!;
    const run = await runDeno(['run', '--quiet', ...resolutionFlags(calendar.importMap), ...edgePermissions, calendar.entrypoint], {
      cwd: bundle,
      env: { ...functionEnv(await freePort()), PUBLIC_BASE_URL: '' },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('PUBLIC_BASE_URL is not set');
  }, 120_000);
});

/** The settings Supabase gives every function, pointed at the test database. */
function functionEnv(port: number): Record<string, string> {
  return {
    DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}`,
    SUPABASE_DB_URL: process.env.DATABASE_URL!,
    SUPABASE_URL: 'http://127.0.0.1:9',
    SUPABASE_SERVICE_ROLE_KEY: 'stand-in-service-role',
    WEBHOOK_DISPATCHER_SECRET: dispatcherSecret,
    // The live callbacks' secrets, as a deployment sets them; the probes send none and are refused.
    ESIGN_CALLBACK_SECRET: 'stand-in-esign-secret',
    STRIPE_SECRET_KEY: 'sk_test_stand_in',
    STRIPE_WEBHOOK_SECRET: 'whsec_stand_in',
    PAY_LINK_SECRET: 'stand-in-pay-link-secret-of-32-chars-or-more',
    PUBLIC_BASE_URL: 'https://project.supabase.example/functions/v1',
    LOG_LEVEL: 'warn',
  };
}

async function withBootedFunction(fn: DeployedFunction, work: (base: string) => Promise<void>) {
  const port = await freePort();
  const child: ChildProcess = spawn(deno, ['run', '--quiet', '--no-prompt', ...resolutionFlags(fn.importMap), ...edgePermissions, fn.entrypoint], {
    cwd: bundle,
    env: denoEnv(functionEnv(port)),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before listening:\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`did not listen within 90 s:\n${stderr}`);
      try {
        await fetch(`${base}/`);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await work(base);
    if (/"level":"error"/.test(stderr)) throw new Error(`logged an error:\n${stderr}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Internal functions are called as their caller does; the others by a public or documented GET. */
const internalProbes: Partial<Record<string, (base: string) => Promise<Response>>> = {
  'webhook-dispatcher': (base) => fetch(`${base}/webhook-dispatcher/`, { method: 'POST', headers: { authorization: `Bearer ${dispatcherSecret}` } }),
  // Callbacks and the pay page carry their own credentials: an unsigned call or a made-up link is
  // refused by the function itself, which is the answer that proves it booted and routes.
  'esign-callback': (base) => fetch(`${base}/esign-callback`, { method: 'POST', body: '{}' }),
  'payments-webhook': (base) => fetch(`${base}/payments-webhook`, { method: 'POST', body: '{}' }),
  pay: (base) => fetch(`${base}/pay/not-a-token`),
  calendar: (base) => fetch(`${base}/calendar/not-a-token.ics`),
};

/** What an internal probe must answer when it is not 200. */
// The sandbox group's GET is the organisation's clock: a fresh organisation has none (404 not_found, in the API's JSON).
// The household page's root is no page (404, HTML): its pages live under a link.
const probeStatus: Partial<Record<string, number>> = { 'esign-callback': 401, 'payments-webhook': 401, pay: 403, sandbox: 404, household: 404, calendar: 404 };

/** The pay page answers people in a browser: its unknown paths are an HTML page, not the API's JSON. */
const htmlFunctions = new Set(['pay', 'household']);

/** A documented route of the function without path parameters, a GET when it has one. */
function documentedRoute(name: string): { method: string; path: string } | undefined {
  const routes = Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
    (path === `/${name}` || path.startsWith(`/${name}/`)) && !path.includes('{')
      ? Object.keys(item ?? {}).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)).map((method) => ({ method, path }))
      : []);
  return routes.find((route) => route.method === 'get') ?? routes[0];
}

/** Calls the function's probe route; returns the key it answered to (the side and environment the group serves). */
async function expectRoute(fn: DeployedFunction, base: string, keys: string[]): Promise<string> {
  const internal = internalProbes[fn.name];
  const documented = documentedRoute(fn.name);
  const attempts: string[] = [];
  for (const key of internal ? [''] : keys) {
    // A trailing slash routes as without, on this runtime as on Node.
    const response = internal
      ? await internal(base)
      : documented
        ? await fetch(`${base}${documented.path}/`, {
          method: documented.method.toUpperCase(),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: documented.method === 'get' ? undefined : '{}',
        })
        : await fetch(`${base}/${fn.name}/`, { headers: { authorization: `Bearer ${key}` } });
    const body = await response.text();
    if (response.status === 200 || response.status === 201 || response.status === probeStatus[fn.name]) return key;
    attempts.push(`${response.status}: ${body}`);
  }
  throw new Error(`route ${documented ? `${documented.method} ${documented.path}` : `/${fn.name}`} answered ${attempts.join(' | ')}`);
}

async function expectUnknownPath(fn: DeployedFunction, base: string, key: string) {
  const path = `/${fn.name}/no-such/route/in/this/function`;
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await response.text();
  if (htmlFunctions.has(fn.name)) {
    expect([response.status, response.headers.get('content-type')]).toEqual([404, expect.stringMatching(/^text\/html/)]);
    return;
  }
  if (response.status !== 404 || !/^application\/json/.test(response.headers.get('content-type') ?? '')) {
    throw new Error(`unknown path answered ${response.status} ${response.headers.get('content-type')}: ${body}`);
  }
  expect(JSON.parse(body).error.code).toBe('not_found');
}
