// Each route group's table of errors (functions/<group>/errors.ts) holds exactly what its routes
// document: no route of the group declares a code outside the table, or under a status the table
// does not give it, and no row of the table is dead (every code at every status is documented by
// at least one of its routes). Read from the group's part of the OpenAPI document, which is built
// from the routes' declarations; the type check refuses the same mistakes in a declaration, and the
// route's build refuses them again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import { apiGroups } from '../../functions/groups.ts';
import { defineRoute as defineClaimsRoute } from '../../functions/claims/errors.ts';
import { errorTable, statusesOf, type ErrorCode, type ErrorTable } from '../../shared/http/errors.ts';
import { createRoutes, defineRoute, jsonResponse, type Routes } from '../../shared/http/routes.ts';
import { root, sources } from './source-files.ts';

/** The `error.code` enums under a response schema, wherever a union or intersection puts them. */
function codeEnums(schema: unknown): string[][] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const here = (node.properties as { error?: { properties?: { code?: { enum?: string[] } } } } | undefined)?.error?.properties?.code?.enum;
  const branches = ['allOf', 'anyOf', 'oneOf'].flatMap((key) => (Array.isArray(node[key]) ? (node[key] as unknown[]) : []));
  return [...(here ? [here] : []), ...branches.flatMap(codeEnums)];
}

/** Every (code, status) pair the routes document in their error responses, as `code status`, each once. */
function documentedPairs(routes: Routes): string[] {
  const document = routes.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'group', version: '1' } });
  const pairs = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>)) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        if (Number(status) < 400) continue;
        for (const content of Object.values(response.content ?? {})) {
          for (const codes of codeEnums(content.schema)) for (const code of codes) pairs.add(`${code} ${status}`);
        }
      }
    }
  }
  return [...pairs].sort();
}

/** The table's rows as `code status`. */
const tablePairs = (table: ErrorTable) =>
  Object.entries(table).flatMap(([code, statuses]) => (statuses ?? []).map((status) => `${code} ${status}`)).sort();

/** Documented pairs the table does not hold. */
const outsideTable = (documented: string[], table: ErrorTable) => documented.filter((pair) => !tablePairs(table).includes(pair));

/** Table rows no route documents. */
const deadRows = (documented: string[], table: ErrorTable) => tablePairs(table).filter((pair) => !documented.includes(pair));

describe("each route group's table of errors", () => {
  it('every group with routes has one', () => {
    expect(apiGroups.length).toBeGreaterThanOrEqual(6);
    for (const group of apiGroups) expect(Object.keys(group.errors).length, group.name).toBeGreaterThan(0);
  });

  it.each(apiGroups.map((group) => [group.name, group] as const))('%s: its routes document only codes of its table, and every row is documented', (name, group) => {
    const documented = documentedPairs(group.routes);
    expect(documented.length, name).toBeGreaterThan(10);
    expect(outsideTable(documented, group.errors), `${name}: documented by its routes but not in functions/${name}/errors.ts`).toEqual([]);
    expect(deadRows(documented, group.errors), `${name}: rows of functions/${name}/errors.ts that no route documents`).toEqual([]);
  });

  it('takes each status from the one table of codes, so a code cannot have another status in another group', () => {
    for (const group of apiGroups) {
      for (const [code, statuses] of Object.entries(group.errors)) {
        expect(statusesOf(code as ErrorCode), `${group.name}: ${code}`).toEqual(expect.arrayContaining([...(statuses as readonly number[])]));
      }
    }
    expect(() => errorTable(['not_found', 409] as never)).toThrow(/not_found is not answered with 409/);
  });

  it('the check finds a code outside the table and a dead row', () => {
    const table = errorTable('not_found', 'could_not_replay');
    const routes = createRoutes().openapi(
      defineRoute({
        method: 'post',
        path: '/probe',
        operationId: 'probeErrorTables',
        scope: 'claims:write',
        responses: { 200: jsonResponse(z.object({}), 'ok') },
        errors: { 404: { not_found: 'never.' }, 409: { no_endpoint: 'never.' } },
      }),
      (c) => c.json({}, 200),
    );
    const documented = documentedPairs(routes);
    expect(outsideTable(documented, table)).toEqual(['no_endpoint 409']);
    expect(deadRows(documented, table)).toEqual(['could_not_replay 409']);
  });

  it("refuses a code outside the group's table when the route is declared, and again when it is built", () => {
    const declare = () =>
      defineClaimsRoute({
        method: 'get',
        path: '/probe',
        operationId: 'probeClaimsErrors',
        scope: 'claims:read',
        responses: { 200: jsonResponse(z.object({}), 'ok') },
        // @ts-expect-error no_endpoint is the event log's and the webhooks' code, not in the claims table
        errors: { 409: { no_endpoint: 'never.' } },
      });
    expect(declare).toThrow("GET /probe: no_endpoint at 409 is not in its group's table of errors");
    const misplaced = () =>
      defineClaimsRoute({
        method: 'get',
        path: '/probe',
        operationId: 'probeClaimsErrors',
        scope: 'claims:read',
        responses: { 200: jsonResponse(z.object({}), 'ok') },
        // @ts-expect-error not_found is 404, never 409
        errors: { 409: { not_found: 'never.' } },
      });
    expect(misplaced).toThrow("GET /probe: not_found at 409 is not in its group's table of errors");
  });

  it("every route file declares its routes with its group's defineRoute", () => {
    const routeFiles = sources('functions').filter((file) => /^functions\/[^/]+\/routes\//.test(file));
    expect(routeFiles.length).toBeGreaterThan(20);
    const unbound = routeFiles.filter((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return /\bdefineRoute\(/.test(text) && !/^import \{ defineRoute \} from '\.\.\/errors\.ts';$/m.test(text);
    });
    expect(unbound, "route files whose defineRoute is not their group's (import it from ../errors.ts)").toEqual([]);
  });
});
