import type { Side } from '../db/tenant.ts';

// Scopes of the specification, per side. `webhooks:manage` is available to both sides.
// Literal types, so that a route declaring a misspelt scope does not compile.

export const scopesBySide = {
  carrier: ['claims:read', 'claims:write', 'options:read', 'options:write', 'placements:read'],
  provider: ['properties:read', 'properties:write', 'bookings:read', 'payouts:read'],
} as const satisfies Record<Side, readonly string[]>;

export const webhooksManage = 'webhooks:manage';

/** A scope a key may hold. */
export type Scope = (typeof scopesBySide)[Side][number] | typeof webhooksManage;

/** Every scope a key of the side may hold; a key created without --scopes gets all of them. */
export function scopesOfSide(side: Side): string[] {
  return [...scopesBySide[side], webhooksManage];
}

/**
 * What a route needs:
 * - a named scope;
 * - `any-read` / `any-write`: any scope ending in `:read` / `:write` (the shared surfaces);
 * - `manage-webhooks`: `webhooks:manage` or any write scope;
 * - `read-webhooks`: any read scope or `webhooks:manage` (reading one's own endpoints and deliveries);
 * - `none`: only a valid key.
 */
export type ScopeRule = Scope | 'any-read' | 'any-write' | 'manage-webhooks' | 'read-webhooks' | 'none';

const isRead = (s: string) => s.endsWith(':read');
const isWrite = (s: string) => s.endsWith(':write');

export function allows(rule: ScopeRule, scopes: readonly string[]): boolean {
  switch (rule) {
    case 'none':
      return true;
    case 'any-read':
      return scopes.some(isRead);
    case 'any-write':
      return scopes.some(isWrite);
    case 'manage-webhooks':
      return scopes.includes(webhooksManage) || scopes.some(isWrite);
    case 'read-webhooks':
      return scopes.includes(webhooksManage) || scopes.some(isRead);
    default:
      return scopes.includes(rule);
  }
}

export function describeRule(rule: ScopeRule): string {
  switch (rule) {
    case 'none':
      return 'no scope';
    case 'any-read':
      return 'any read scope (a scope ending in :read)';
    case 'any-write':
      return 'any write scope (a scope ending in :write)';
    case 'manage-webhooks':
      return 'webhooks:manage or any write scope';
    case 'read-webhooks':
      return 'any read scope or webhooks:manage';
    default:
      return rule;
  }
}
