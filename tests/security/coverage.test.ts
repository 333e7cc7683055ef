// The security matrix covers every route: a route the registry declares without a fixture line
// fails here by name, as does a line for a route that no longer exists, and every deployed function
// is either an API group (in the matrix) or excluded with its reason.
import { describe, expect, it } from 'vitest';
import { apiGroups } from '../../functions/groups.ts';
import { entryPointFolders } from '../deploy/support.ts';
import { fixtures } from './fixtures.ts';
import { declaredRoutes, excludedFunctions } from './routes.ts';

describe('security matrix coverage', () => {
  it('every declared route has a fixture line (add one to tests/security/fixtures.ts)', () => {
    expect(declaredRoutes.length).toBeGreaterThan(50);
    expect(declaredRoutes.map((route) => route.name).filter((name) => !(name in fixtures))).toEqual([]);
  });

  it('every fixture line names a declared route', () => {
    const declared = new Set(declaredRoutes.map((route) => route.name));
    expect(Object.keys(fixtures).filter((name) => !declared.has(name))).toEqual([]);
  });

  it('every deployed function is an API group of the matrix or excluded with its reason', () => {
    const groups = apiGroups.map((group) => group.name);
    expect(entryPointFolders()).toEqual([...groups, ...Object.keys(excludedFunctions)].sort());
  });

  it.each(Object.entries(excludedFunctions))('%s is not in the matrix: %s', (name) => {
    expect(apiGroups.map((group) => group.name)).not.toContain(name);
  });
});
