import { describe, expect, it } from 'vitest';
import { call, errorOf } from '../helpers.ts';
import { apiGroups, publicDocumentedRoutes } from '../../functions/groups.ts';
import { scopeOf } from '../../shared/http/routes.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { route } from '../../scripts/lib/router.ts';
import { gzippedBundle, referenceBundle } from '../../functions/docs/reference-bundle.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('API reference', () => {
  it('serves one OpenAPI 3.1 document covering every function, without a key', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    // The document's operations are exactly the routes the groups declare, none missing and none
    // extra, each with the scope rule it is enforced with.
    const declared = apiGroups.flatMap((group) => group.routes.openAPIRegistry.definitions.flatMap((definition) =>
      definition.type === 'route'
        ? [{ operation: `${definition.route.method.toUpperCase()} /${group.name}${definition.route.path === '/' ? '' : definition.route.path}`, scope: scopeOf(definition.route) }]
        : []));
    const documented = Object.entries(doc.paths as Record<string, Record<string, { 'x-scope'?: string }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ operation: `${method.toUpperCase()} ${path}`, scope: operation['x-scope'] })));
    // Besides them, the addresses without a key that the document covers too (the calendar feed), with no scope.
    const keyless = publicDocumentedRoutes.map((route) => ({ operation: `${route.method.toUpperCase()} ${route.path}`, scope: undefined }));
    const byOperation = (a: { operation: string }, b: { operation: string }) => a.operation.localeCompare(b.operation);
    expect(documented.sort(byOperation)).toEqual([...declared, ...keyless].sort(byOperation));
    expect(declared.filter((route) => route.scope === undefined)).toEqual([]);
    const revoke = doc.paths['/usage/keys/self/revoke'].post;
    expect(revoke.parameters!.some((p: { name: string }) => p.name === 'Idempotency-Key')).toBe(true);
    expect(Object.keys(revoke.responses)).toEqual(expect.arrayContaining(['200', '401', '409', '429', '500']));
    // The shared Error object, its code narrowed to the codes of the status.
    const unauthorised = revoke.responses['401'].content['application/json'].schema;
    expect(unauthorised.allOf?.[0].$ref).toBe('#/components/schemas/Error');
    expect(unauthorised.allOf?.[1].properties?.error.properties?.code.enum).toEqual(['missing_key', 'invalid_key']);
    expect(doc.paths['/usage'].get.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(doc.paths['/usage'].get.description).toContain('any read scope');
  });

  it('is also served under the docs function, with an interactive page', async () => {
    const doc = await call('GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.info.title).toBe('Housing Placement Service API');
    const page = await call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('./docs/openapi.json');
    // With a trailing slash the page is one folder deeper: its document link still reaches the document.
    const slashed = await call('GET', '/docs/');
    expect(slashed.status).toBe(200);
    expect(slashed.text).toContain('"./openapi.json"');
    expect(new URL('./openapi.json', 'http://host/functions/v1/docs/').pathname).toBe('/functions/v1/docs/openapi.json');
  });
});

describe('API reference page', () => {
  const origin = 'http://localhost';
  /** Every address the page names: attributes and the reference's configuration. */
  const addresses = (html: string) => [
    ...[...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]),
    ...[...html.matchAll(/"(?:url|cdn|proxyUrl)"\s*:\s*"([^"]*)"/g)].map((m) => m[1]),
  ];

  for (const path of ['/docs', '/docs/']) {
    it(`at ${path} names only its own origin, and everything it names is served`, async () => {
      const page = await call('GET', path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      // No absolute or protocol-relative address at all, so nothing from another origin.
      expect(page.text).not.toMatch(/(?:https?:)?\/\/[a-z0-9]/i);
      const named = addresses(page.text);
      expect(named).toHaveLength(2);
      for (const address of named) {
        const url = new URL(address, `${origin}/functions/v1${path}`);
        expect(url.origin).toBe(origin);
        const res = await call('GET', url.pathname.replace('/functions/v1', ''));
        expect(res.status, url.pathname).toBe(200);
      }
      expect(page.text).toContain('"withDefaultFonts": false');
      expect(page.text).toContain('"telemetry": false');
    });
  }

  it("serves the pinned package's script, gzipped when the client accepts it", async () => {
    const path = `/docs/assets/${referenceBundle.name}`;
    const plain = await route(new Request(`${origin}/functions/v1${path}`));
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toContain('javascript');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('cache-control')).toContain('immutable');
    const script = new Uint8Array(await plain.arrayBuffer());
    expect(sha256(script)).toBe(referenceBundle.sha256);
    expect(new TextDecoder().decode(script.slice(-2000))).toContain('createApiReference');

    const zipped = await route(new Request(`${origin}/functions/v1${path}`, { headers: { 'accept-encoding': 'gzip, br' } }));
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(sha256(gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(referenceBundle.sha256);

    const other = await call('GET', '/docs/assets/scalar-api-reference-0.0.1.js');
    expect(other.status).toBe(404);
    expect(errorOf(other.body).code).toBe('not_found');
  });

  it('embeds exactly the package pinned in package.json', () => {
    const pin = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).referenceBundle;
    expect({ package: referenceBundle.package, version: referenceBundle.version, integrity: referenceBundle.integrity, file: referenceBundle.file })
      .toEqual(pin);
    // The embedded bytes are the file whose hash the generator recorded from the published package.
    expect(sha256(gunzipSync(gzippedBundle()))).toBe(referenceBundle.sha256);
  });

  it('answers a path with a trailing slash like the path without it', async () => {
    const res = await call('GET', '/docs/openapi.json/');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
  });
});

describe('the published schema is as strict as the server', () => {
  it('states the limits the server enforces: Idempotency-Key length, the date window, bathrooms in halves', async () => {
    // Walked as plain JSON: the document's own type does not describe itself.
    const doc: any = (await call('GET', '/openapi.json')).body;
    const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item));
    const idempotency = operations.flatMap((op) => (op.parameters ?? []).filter((p: any) => p.name === 'Idempotency-Key'));
    expect(idempotency.length).toBeGreaterThan(10);
    for (const header of idempotency) expect(header.schema).toMatchObject({ minLength: 1, maxLength: 255 });

    // Every date and timestamp the API accepts (bodies and parameters) carries the window's pattern.
    const inputs: any[] = [
      ...operations.flatMap((op) => (op.parameters ?? []).map((p: any) => p.schema)),
      ...Object.entries(doc.components.schemas as Record<string, any>).filter(([name]) => /Create|Amend|Input|Patch|Action|Body|Request/.test(name)).map(([, schema]) => schema),
    ];
    const leaves: any[] = [];
    const walk = (node: any) => {
      if (!node || typeof node !== 'object') return;
      if (node.format === 'date' || node.format === 'date-time') leaves.push(node);
      for (const value of Object.values(node)) walk(value);
    };
    inputs.forEach(walk);
    expect(leaves.filter((leaf) => leaf.format === 'date').length).toBeGreaterThan(5);
    for (const leaf of leaves) expect(leaf.pattern, JSON.stringify(leaf)).toMatch(/^\^/);
    const date = new RegExp(leaves.find((leaf) => leaf.format === 'date').pattern);
    expect(['2000-01-01', '2099-12-31'].map((d) => date.test(d))).toEqual([true, true]);
    expect(['1999-12-31', '2100-01-01', '2026-13-01'].map((d) => date.test(d))).toEqual([false, false, false]);

    for (const name of ['CreateHousingRequest', 'AmendHousingRequest', 'HomeInput', 'HomePatch']) {
      expect(doc.components.schemas[name].properties.bathrooms, name).toMatchObject({ multipleOf: 0.5 });
    }
  });
});
