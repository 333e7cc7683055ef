// Every route of the events and webhooks groups, as their OpenAPI registries declare them, refuses a
// key without the scope the route documents: 403 forbidden, naming it. New routes are covered as
// they are added.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createOrg } from '../helpers.ts';
import { routes as eventRoutes } from '../../functions/events/app.ts';
import { routes as webhookRoutes } from '../../functions/webhooks/app.ts';
import { allows, describeRule, type ScopeRule } from '../../shared/http/scopes.ts';

const rules: ScopeRule[] = ['any-read', 'any-write', 'manage-webhooks', 'read-webhooks'];
const someId = '0d5a1c9e-7b3f-4e21-8a6d-2c4b9e7f1a30';

const declared = [
  ['events', eventRoutes],
  ['webhooks', webhookRoutes],
].flatMap(([group, routes]) =>
  (routes as typeof eventRoutes).openAPIRegistry.definitions.flatMap((definition) => {
    if (definition.type !== 'route') return [];
    const { method, path, description = '' } = definition.route;
    const rule = rules.find((candidate) => description.includes(`Requires: ${describeRule(candidate)}.`));
    const url = `/${group}${path === '/' ? '' : path.replace('{id}', someId)}`;
    return [{ name: `${method.toUpperCase()} ${url.replace(someId, '{id}')}`, method: method.toUpperCase(), url, rule }];
  }),
);

// Sandbox keys, so that a refusal is about the scope and never about the environment (simulate).
const keyScopes = { readOnly: ['claims:read'], writeOnly: ['claims:write'], manageOnly: ['webhooks:manage'] };
const keys: Record<string, string> = {};

beforeAll(async () => {
  const orgId = await createOrg('carrier');
  for (const [name, scopes] of Object.entries(keyScopes)) keys[name] = (await createKey(orgId, 'sandbox', { scopes })).key;
});

describe('scopes of the events and webhooks routes', () => {
  it('finds every route and its documented scope rule', () => {
    expect(declared.map((route) => route.name).sort()).toEqual(
      [
        'GET /events', 'GET /events/types', 'GET /events/{id}', 'POST /events/simulate', 'POST /events/{id}/replay',
        'POST /webhooks', 'GET /webhooks', 'GET /webhooks/deliveries', 'PATCH /webhooks/{id}', 'DELETE /webhooks/{id}',
        'POST /webhooks/{id}/rotate-secret', 'POST /webhooks/{id}/test',
      ].sort(),
    );
    expect(declared.filter((route) => route.rule === undefined)).toEqual([]);
  });

  it.each(declared)('$name answers 403 forbidden naming its scope to a key without it', async ({ method, url, rule }) => {
    const refused = Object.entries(keyScopes).filter(([, scopes]) => !allows(rule!, scopes));
    expect(refused.length).toBeGreaterThan(0);
    for (const [name] of refused) {
      const res = await call(method, url, { key: keys[name], body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'forbidden', message: `This call needs ${describeRule(rule!)}; the key does not have it.` });
    }
  });
});
