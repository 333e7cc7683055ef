// The scope table (docs/conventions.md) is what integrators read to ask for keys: it names every scope the
// service knows, with the specification's wording of what it allows, and the side whose keys get it
// by default, as the code grants them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scopesBySide, scopesOfSide, webhooksManage } from '../../shared/http/scopes.ts';

const readme = readFileSync(new URL('../../docs/conventions.md', import.meta.url), 'utf8');

/** The specification's scope tables: scope to what it allows. */
const specification: Record<string, string> = {
  'claims:read': 'list and read housing requests',
  'claims:write': 'submit and amend housing requests',
  'options:read': 'read matched homes',
  'options:write': 'put homes on a request, set dates, place, cancel',
  'placements:read': 'read the state of a placement',
  'properties:read': 'read portfolio and readiness',
  'properties:write': 'publish homes, set availability',
  'bookings:read': 'read bookings',
  'payouts:read': 'read payout-account status',
};

/** Rows of the table whose header starts with `| Scope | Allows |`. */
function scopeTable(): { scope: string; allows: string; side: string }[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Scope | Allows |'));
  expect(start).toBeGreaterThan(-1);
  const rows: { scope: string; allows: string; side: string }[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [scope, allows, side] = line.split(' | ').map((cell) => cell.replace(/^\| ?|`| ?\|$/g, '').trim());
    rows.push({ scope, allows, side });
  }
  return rows;
}

describe('the scope table of docs/conventions.md', () => {
  it('names every scope once, with the side whose keys get it by default', () => {
    const rows = scopeTable();
    expect(rows.map((r) => r.scope).sort()).toEqual([...scopesBySide.carrier, ...scopesBySide.provider, webhooksManage].sort());
    for (const row of rows) {
      const sides = (['carrier', 'provider'] as const).filter((side) => scopesOfSide(side).includes(row.scope));
      expect(row.side, row.scope).toBe(sides.length === 2 ? 'both' : sides[0]);
    }
  });

  it("says what each scope allows in the specification's words", () => {
    for (const row of scopeTable()) {
      if (row.scope === webhooksManage) continue;
      expect(row.allows.startsWith(specification[row.scope]), row.scope).toBe(true);
    }
    expect(Object.keys(specification).sort()).toEqual([...scopesBySide.carrier, ...scopesBySide.provider].sort());
  });
});
