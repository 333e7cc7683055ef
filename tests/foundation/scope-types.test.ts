import { describe, expect, it } from 'vitest';
import { allows, type ScopeRule } from '../../shared/http/scopes.ts';

// Checked by `npm run typecheck` (part of `npm test`): a route's scope is a union of the literal
// scopes and rules, so a misspelt scope in a route declaration does not compile.

describe('scope rules are typed', () => {
  it('refuses a misspelt scope at compile time, and a misspelt scope would allow nothing', () => {
    // @ts-expect-error 'claims:raed' is not a scope
    const misspelt: ScopeRule = 'claims:raed';
    const spelt: ScopeRule = 'claims:read';
    expect(allows(misspelt, ['claims:read'])).toBe(false);
    expect(allows(spelt, ['claims:read'])).toBe(true);
  });
});
