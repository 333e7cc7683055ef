// What the security matrix is generated from: every route the registry declares (each API group's
// OpenAPI routes, with the scope rule recorded by defineRoute), and the functions that are not API
// groups, each excluded with the reason and the tests that cover its own authentication.
import { apiGroups } from '../../functions/groups.ts';
import { scopeOf } from '../../shared/http/routes.ts';
import { allows, scopesOfSide, type ScopeRule } from '../../shared/http/scopes.ts';
import type { Side } from '../../shared/db/tenant.ts';

export interface DeclaredRoute {
  /** `METHOD /group/path`, exactly as the registry declares it: the key of the fixture table. */
  name: string;
  /** The API group (function) that serves it. */
  group: string;
  method: string;
  path: string;
  rule: ScopeRule;
  /** Documented as refusing live keys (403 sandbox_only). */
  sandboxOnly: boolean;
  /** Addresses a resource through path parameters (another tenant's gets 404). */
  addressesResource: boolean;
}

export const declaredRoutes: DeclaredRoute[] = apiGroups.flatMap((group) =>
  group.routes.openAPIRegistry.definitions.flatMap((definition) => {
    if (definition.type !== 'route') return [];
    const { route } = definition;
    const path = `/${group.name}${route.path === '/' ? '' : route.path}`;
    const method = route.method.toUpperCase();
    const rule = scopeOf(route);
    if (rule === undefined) throw new Error(`${method} ${path} was not declared with defineRoute: it has no scope rule`);
    const refusals = (route.responses as Record<string, { description?: string }>)['403']?.description ?? '';
    return [{ name: `${method} ${path}`, group: group.name, method, path, rule, sandboxOnly: refusals.includes('sandbox_only'), addressesResource: path.includes('{') }];
  }),
);

/** The groups whose fixtures place homes: their matrix runs in a file of its own, in parallel with the rest. */
export const heavyGroups = ['claims', 'sandbox'];

/**
 * The functions deployed besides the API groups. They take no API key, so the matrix has nothing to
 * ask of them; each authenticates in its own way, tested where named.
 */
export const excludedFunctions: Record<string, string> = {
  health: 'public by design: answers without a key (tests/health.test.ts)',
  docs: 'public by design: the API reference (tests/foundation/openapi.test.ts)',
  pay: "the payer's browser page, authorised by its signed, expiring link (tests/placements/payments.error.test.ts, tests/placements/payments-live.domain.test.ts)",
  household: "the household's browser page, authorised by its signed, expiring, replaceable link (tests/placements/household-page.test.ts)",
  calendar: "a home's iCalendar feed for other channels, authorised by the unguessable, revocable token in its address (tests/properties/calendar-export.test.ts)",
  'esign-callback': "the e-signature provider's callbacks, verified by their signature (tests/placements/jobs.domain.test.ts, tests/placements/ports.test.ts)",
  'payments-webhook': "the payment processor's notifications, verified by their signature (tests/placements/payments-live.domain.test.ts)",
  'webhook-dispatcher': 'internal: pg_cron calls it with a shared secret (tests/webhooks/dispatcher-function.test.ts)',
};

/** The side whose keys a rule names a scope of; undefined for the shared rules both sides satisfy. */
export function sideOfRule(rule: ScopeRule): Side | undefined {
  const sides = (['carrier', 'provider'] as const).filter((side) => scopesOfSide(side).some((scope) => scope === rule));
  return sides.length === 1 ? sides[0] : undefined;
}

/**
 * The strongest key of the side that the rule still refuses: every scope of the side that does not
 * satisfy the rule on its own. For a named scope, that is every scope but that one; for the shared
 * rules, every scope outside what they accept. Empty when the rule accepts any key ('none').
 */
export function refusedScopes(rule: ScopeRule, side: Side): string[] {
  return scopesOfSide(side).filter((scope) => !allows(rule, [scope]));
}
