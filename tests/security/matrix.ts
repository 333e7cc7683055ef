// The security matrix, generated from the route registry. For every declared route, with a real
// resource of the owner in each environment (fixtures.ts):
// - no key: 401 missing_key;
// - the other side's key: 403 forbidden naming the rule (a route both sides may use: another
//   organisation's resource is 404, a collection serves the caller only);
// - the strongest key of the owner's own organisation that the rule refuses: 403 forbidden naming it;
// - sandbox-only routes: a live key gets 403 sandbox_only;
// - another organisation: 404 not_found on the owner's resource (by every path that names it), or,
//   for a collection, an answer that shows none of the owner's;
// - the other environment, both ways: the same as another organisation;
// - afterwards, the refused calls have changed no row of any organisation involved;
// - and the owner's own key reaches the resource, so the refusals above are about who asks.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Environment, Side } from '../../shared/db/tenant.ts';
import { describeRule, scopesOfSide } from '../../shared/http/scopes.ts';
import { call, createKey, errorOf, ownerSql, type ApiResponse } from '../helpers.ts';
import { useTemporaryDataDir } from '../claims/fixtures.ts';
import { drainJobs } from '../placements/fixtures.ts';
import { fixtures, tenant, type Target, type Tenant } from './fixtures.ts';
import { declaredRoutes, refusedScopes, sideOfRule, type DeclaredRoute } from './routes.ts';

const otherSide = (side: Side): Side => (side === 'carrier' ? 'provider' : 'carrier');
const otherEnvironment = (environment: Environment): Environment => (environment === 'live' ? 'sandbox' : 'live');

/**
 * A collection served the caller for itself: a 2xx, or, for a batch whose every item named something
 * the caller cannot see, the batch answer with each item refused (422, as every batch route answers).
 */
function expectServedForItself(res: ApiResponse) {
  const { body } = res;
  if (res.status === 422 && typeof body === 'object' && body !== null && 'results' in body && Array.isArray(body.results)) return;
  expect(res.status, res.text).toBeLessThan(300);
}

/** Tables of a tenant's data; not the key, usage and rate-limit bookkeeping every call updates. */
const bookkeeping = ['api_keys', 'usage_daily', 'rate_windows', 'idempotency_keys'];
let tables: string[] | undefined;

/** A digest of every row the organisations own, table by table. */
async function footprint(orgs: string[]): Promise<Record<string, string>> {
  tables ??= (await ownerSql()<{ table_name: string }[]>`
    select c.table_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
     where c.table_schema = 'app' and c.column_name = 'org_id' and c.table_name <> all(${bookkeeping})
     order by 1`).map((row) => row.table_name);
  const query = tables
    .map((table) => `select '${table}' as name, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from app.${table} t where org_id = any($1)`)
    .join(' union all ');
  const rows = await ownerSql().unsafe<{ name: string; digest: string }[]>(query, [orgs]);
  return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
}

const forbidden = (rule: DeclaredRoute['rule']) => ({
  code: 'forbidden',
  message: `This call needs ${describeRule(rule)}; the key does not have it.`,
  doc_url: expect.stringMatching(/\/docs\/errors#error-forbidden$/),
});

interface Case {
  name: string;
  /** A refusal must change nothing: refusals run first, then the footprint check, then the calls that are served. */
  refusal: boolean;
  run: () => Promise<void>;
}

let addressCounter = 0;

/** Declares the matrix of the declared routes that pass the filter. */
export function securityMatrix(filter: (route: DeclaredRoute) => boolean) {
  beforeAll(async () => {
    await useTemporaryDataDir();
  });

  for (const route of declaredRoutes.filter(filter)) {
    const fixture = fixtures[route.name];
    // A route without a line is reported by the coverage test; it has no cases to generate.
    if (!fixture) continue;

    const ruleSide = sideOfRule(route.rule);
    const side = ruleSide ?? fixture.side ?? 'carrier';
    const built: Environment[] = fixture.sandboxOnlyBecause ? ['sandbox'] : ['live', 'sandbox'];
    /** Where the route is called for the checks that are not about environments. */
    const home: Environment = route.sandboxOnly || fixture.sandboxOnlyBecause ? 'sandbox' : 'live';
    /** Environments whose keys the route serves. */
    const serves = (environment: Environment) => !(route.sandboxOnly && environment === 'live');
    // The failed-authentication limit counts by address: each route's no-key calls come from their own.
    const address = `10.${200 + Math.floor(addressCounter / 250)}.${addressCounter++ % 250}.${Math.floor(Math.random() * 250)}`;

    let owner: Tenant;
    let stranger: Tenant;
    let wrongSide: Tenant;
    const targets: Partial<Record<Environment, Target>> = {};
    let before: Record<string, string>;
    // Every organisation of the route: until the check, every call was one to refuse, so none may have changed.
    const orgs = () => [owner.orgId, stranger.orgId, wrongSide.orgId, ...built.flatMap((environment) => targets[environment]!.orgs ?? [])];

    const keyOf = async (who: Tenant, environment: Environment) =>
      fixture.consumesKey ? (await createKey(who.orgId, environment)).key : who.keys[environment];
    const send = (key: string | undefined, target: Target, path = target.paths[0]) =>
      call(route.method, path, { key, body: target.body?.(), address });
    const showsNone = (text: string, target: Target) => {
      for (const id of target.shows ?? []) expect(text, `shows ${id}`).not.toContain(id);
    };

    describe(route.name, () => {
      beforeAll(async () => {
        [owner, stranger, wrongSide] = await Promise.all([tenant(side), tenant(side), tenant(otherSide(side))]);
        for (const environment of built) targets[environment] = await fixture.build({ owner, stranger }, environment);
        // Work the fixtures queued (a placement's contract) runs now, so the footprint is taken at rest.
        await drainJobs(...orgs());
        before = await footprint(orgs());
      });

      const cases: Case[] = [];
      const target = () => targets[home]!;

      cases.push({
        name: 'no key → 401 missing_key',
        refusal: true,
        run: async () => {
          for (const path of target().paths) {
            const res = await send(undefined, target(), path);
            expect(res.status, path).toBe(401);
            expect(errorOf(res.body).code).toBe('missing_key');
          }
        },
      });

      if (ruleSide) {
        cases.push({
          name: `the other side's key → 403 forbidden naming ${describeRule(route.rule)}`,
          refusal: true,
          run: async () => {
            const res = await send(await keyOf(wrongSide, home), target());
            expect(res.status).toBe(403);
            expect(errorOf(res.body)).toEqual(forbidden(route.rule));
          },
        });
      } else if (route.addressesResource) {
        cases.push({
          name: "the other side's key → 404 not_found (the rule serves both sides; the resource is another organisation's)",
          refusal: true,
          run: async () => {
            for (const path of target().paths) {
              const res = await send(await keyOf(wrongSide, home), target(), path);
              expect(res.status, path).toBe(404);
              expect(errorOf(res.body).code).toBe('not_found');
            }
          },
        });
      } else {
        cases.push({
          name: "the other side's key → served for itself (the rule serves both sides), showing none of the owner's",
          refusal: false,
          run: async () => {
            const res = await send(await keyOf(wrongSide, home), target());
            expect(res.status, res.text).toBeLessThan(300);
            showsNone(res.text, target());
          },
        });
      }

      const refused = refusedScopes(route.rule, side);
      if (refused.length > 0) {
        const granted = ruleSide ? `every scope but ${route.rule}` : `only ${refused.join(', ')}`;
        cases.push({
          name: `a key with ${granted} → 403 forbidden naming ${describeRule(route.rule)}`,
          refusal: true,
          run: async () => {
            const key = await createKey(owner.orgId, home, { scopes: refused });
            const res = await send(key.key, target());
            expect(res.status).toBe(403);
            expect(errorOf(res.body)).toEqual(forbidden(route.rule));
          },
        });
      } else {
        const [single] = scopesOfSide(side);
        cases.push({
          name: `a key with only ${single} → served (the rule needs no scope)`,
          refusal: false,
          run: async () => {
            const key = await createKey(owner.orgId, home, { scopes: [single] });
            const res = await send(key.key, target());
            expect(res.status, res.text).toBeLessThan(300);
          },
        });
      }

      if (route.sandboxOnly) {
        cases.push({
          name: 'a live key → 403 sandbox_only',
          refusal: true,
          run: async () => {
            for (const environment of built) {
              const res = await send(await keyOf(owner, 'live'), targets[environment]!);
              expect(res.status, environment).toBe(403);
              expect(errorOf(res.body).code).toBe('sandbox_only');
            }
          },
        });
      }

      if (route.addressesResource) {
        cases.push({
          name: 'another organisation → 404 not_found',
          refusal: true,
          run: async () => {
            for (const path of target().paths) {
              const res = await send(await keyOf(stranger, home), target(), path);
              expect(res.status, path).toBe(404);
              expect(errorOf(res.body).code).toBe('not_found');
            }
          },
        });
        cases.push({
          name: built.length === 2 ? 'the other environment → 404 not_found, both ways' : `the other environment → 404 not_found (${fixture.sandboxOnlyBecause})`,
          refusal: true,
          run: async () => {
            for (const environment of built) {
              const caller = otherEnvironment(environment);
              // A live key on a sandbox-only route is refused before anything is looked up (above).
              if (!serves(caller)) continue;
              for (const path of targets[environment]!.paths) {
                const res = await send(await keyOf(owner, caller), targets[environment]!, path);
                expect(res.status, `${caller} key on ${path}`).toBe(404);
                expect(errorOf(res.body).code).toBe('not_found');
                // No existence leak: the owner's key of the other environment hears what a key that
                // can have no such object (another organisation's, same environment) hears.
                const nowhere = await send(await keyOf(stranger, caller), targets[environment]!, path);
                expect(errorOf(nowhere.body).message, `${caller} key on ${path}`).toBe(errorOf(res.body).message);
              }
            }
          },
        });
      } else {
        cases.push({
          name: "another organisation → served for itself, showing none of the owner's",
          refusal: false,
          run: async () => {
            const res = await send(await keyOf(stranger, home), target());
            expectServedForItself(res);
            showsNone(res.text, target());
          },
        });
        cases.push({
          name: "the other environment → served for itself, showing none of the other environment's",
          refusal: false,
          run: async () => {
            for (const environment of built) {
              const caller = otherEnvironment(environment);
              if (!serves(caller)) continue;
              const res = await send(await keyOf(owner, caller), targets[environment]!);
              expectServedForItself(res);
              showsNone(res.text, targets[environment]!);
            }
          },
        });
      }

      cases.push({
        name: "the owner's key reaches it (the refusals are about who asks)",
        refusal: false,
        run: async () => {
          for (const environment of built.filter(serves)) {
            const mine = targets[environment]!;
            // Writes are sent once; a read is asked by every path that names the resource.
            for (const path of route.method === 'GET' ? mine.paths : mine.paths.slice(0, 1)) {
              const res = await send(await keyOf(owner, environment), mine, path);
              expect([401, 403, 404, 405, 422], `${environment} ${path}: ${res.status} ${res.text}`).not.toContain(res.status);
              for (const id of mine.shows ?? []) expect(res.text, `shows ${id}`).toContain(id);
            }
          }
        },
      });

      for (const refusal of cases.filter((c) => c.refusal)) it(refusal.name, refusal.run);
      it('the refused calls changed nothing', async () => {
        expect(await footprint(orgs())).toEqual(before);
      });
      for (const served of cases.filter((c) => !c.refusal)) it(served.name, served.run);
    });
  }
}
