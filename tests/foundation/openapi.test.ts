import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { apiGroups } from '../../functions/groups.ts';

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
    // Every declared route of every group is in the document.
    for (const group of apiGroups) {
      for (const definition of group.routes.openAPIRegistry.definitions) {
        if (definition.type !== 'route') continue;
        const path = `/${group.name}${definition.route.path === '/' ? '' : definition.route.path}`;
        expect(doc.paths[path]?.[definition.route.method], path).toBeDefined();
      }
    }
    const revoke = doc.paths['/usage/keys/self/revoke'].post;
    expect(revoke.parameters.some((p: { name: string }) => p.name === 'Idempotency-Key')).toBe(true);
    expect(Object.keys(revoke.responses)).toEqual(expect.arrayContaining(['200', '401', '409', '429', '500']));
    expect(revoke.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
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
