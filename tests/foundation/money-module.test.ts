// One place reads money. The money module (shared/placements/ledger.ts, ledger-refunds.ts,
// ledger-repository.ts, stay-ledger.ts and stay-money.ts) is the only code that computes an amount
// owed, paid or refunded from the stay's ledger; everything else reads it through stay-money.ts
// (and posts through stay-ledger.ts's post functions, in commands). Read from the files themselves:
// a value imported from the ledger's inner modules, a read function taken from stay-ledger.ts, a SQL
// sum of ledger amounts or a service fee worked out from rent outside the module fails here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = normalize(join(dirname(new URL(import.meta.url).pathname), '..', '..'));

const moneyModule = ['ledger.ts', 'ledger-refunds.ts', 'ledger-repository.ts', 'stay-ledger.ts', 'stay-money.ts'].map((f) => `shared/placements/${f}`);
const inner = moneyModule.filter((f) => !f.endsWith('stay-ledger.ts') && !f.endsWith('stay-money.ts'));

function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (/\.ts$/.test(name) && !name.endsWith('.generated.ts')) found.push(path);
    }
  };
  walk(folder);
  return found;
}

/** What a file outside the money module does with money that only the module may do, one line each. */
function trespasses(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?\{([^}]*)\}\s+from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const [, , typeOnly, names, specifier] = m;
    const target = relative(root, join(root, dirname(file), specifier));
    const values = names.split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));
    if (inner.includes(target) && !typeOnly && values.length > 0) found.push(`${file}: imports ${values.join(', ')} from ${target} (read money through stay-money.ts)`);
    if (target === 'shared/placements/stay-ledger.ts' && !typeOnly) {
      for (const name of values.filter((n) => !/^(post|preview)[A-Z]/.test(n))) found.push(`${file}: imports ${name} from stay-ledger.ts (only posting, in commands; read through stay-money.ts)`);
    }
  }
  if (/sum\(\s*(?:\w+\.)?amount_cents/.test(text)) found.push(`${file}: sums the ledger's amounts in SQL (ledger-repository.ts does)`);
  if (/platformFeeOf\(|platformFeeRateBps\s*\*|\*\s*platformFeeRateBps/.test(text)) found.push(`${file}: works out a service fee (the ledger's fee entries hold it)`);
  return found;
}

// Quotes before anything is signed price a home (shared/placements/pricing.ts) and what a landlord
// earns is split from a charge (shared/properties/earnings.ts): prices, not amounts owed or paid.
const pricing = ['shared/placements/pricing.ts', 'shared/properties/earnings.ts'];

describe('one place reads money', () => {
  it('finds what it looks for', () => {
    expect(trespasses('shared/placements/commands/x.ts', [
      "import { chargesOf } from '../ledger.ts';",
      "import type { Entry } from '../ledger.ts';",
      "import { ledgerOf, postRefund } from '../stay-ledger.ts';",
      "import { moneyOf } from '../stay-money.ts';",
      'tx`select sum(e.amount_cents) from app.ledger_entries e`',
      'const fee = platformFeeOf(rent);',
    ].join('\n'))).toEqual([
      'shared/placements/commands/x.ts: imports chargesOf from shared/placements/ledger.ts (read money through stay-money.ts)',
      'shared/placements/commands/x.ts: imports ledgerOf from stay-ledger.ts (only posting, in commands; read through stay-money.ts)',
      "shared/placements/commands/x.ts: sums the ledger's amounts in SQL (ledger-repository.ts does)",
      "shared/placements/commands/x.ts: works out a service fee (the ledger's fee entries hold it)",
    ]);
  });

  it('nothing outside the money module computes an amount owed, paid or refunded', () => {
    // The service's code; scripts/ holds checks that work money out apart on purpose (the chaos run's own sums).
    const files = [...sources('shared'), ...sources('functions')].filter((f) => !moneyModule.includes(f) && !pricing.includes(f));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => trespasses(f, readFileSync(join(root, f), 'utf8')))).toEqual([]);
  });
});
