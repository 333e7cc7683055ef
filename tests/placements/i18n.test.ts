// The household's catalogues: every language has every English key (nested ones included, the type
// says so too), and no catalogue carries a key nobody reads. A key is read where the source names it
// after a dot (m.apply, w.m.email.subject) or as a quoted word (problem(c, 'gone', 404)); the values
// of a nested record keyed by data (state, part, amenity, ...) are read by lookup and need not be named.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogues, chooseLanguage } from '../../shared/i18n/index.ts';
import { en } from '../../shared/i18n/en.ts';

/** Every key path of a catalogue: a.b for a nested record, functions and strings as leaves. */
function paths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, member]) => paths(member, prefix ? `${prefix}.${key}` : key));
}

/** Records keyed by data, read by lookup (m.state[view.state]): their own keys are not named in code. */
const lookedUp = new Set(['state', 'part', 'amenity', 'furnished', 'bedrooms', 'bathrooms', 'months', 'leaseStatus', 'line']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.includes(join('shared', 'i18n')) ? [readFileSync(path, 'utf8')] : [];
  });
}

describe("the household's catalogues", () => {
  it('every catalogue has exactly the English keys, and every value is words', () => {
    const english = paths(en).sort();
    for (const [language, catalogue] of Object.entries(catalogues)) {
      expect(paths(catalogue).sort(), language).toEqual(english);
      for (const path of paths(catalogue)) {
        const value = path.split('.').reduce<any>((node, key) => node[key], catalogue);
        const text = typeof value === 'function' ? value('X', 'Y') : Array.isArray(value) ? value.join(' ') : String(value);
        expect(text.trim().length, `${language} ${path}`).toBeGreaterThan(0);
      }
    }
  });

  it('no key is unused: each is named by the code that renders the household\'s words', () => {
    const code = [...sources('functions'), ...sources('shared')].join('\n');
    const named = (key: string) => new RegExp(`\\.${key}\\b|'${key}'`).test(code);
    const unused = paths(en).flatMap((path) => {
      const keys = path.split('.');
      // The keys up to the first record read by lookup must be named; the rest are data.
      const cut = keys.findIndex((key) => lookedUp.has(key));
      return (cut === -1 ? keys : keys.slice(0, cut + 1)).filter((key) => !named(key)).map((key) => `${path} (${key})`);
    });
    expect(unused).toEqual([]);
  });

  it('a language without a catalogue falls back to its base language, then to English; Intl formats in the locale', () => {
    expect(chooseLanguage({ stated: 'es-PR' })).toMatchObject({ language: 'es', locale: 'es-PR' });
    expect(chooseLanguage({ stated: 'fr', acceptLanguage: 'es;q=0.5, de' })).toMatchObject({ language: 'es', locale: 'es-US' });
    expect(chooseLanguage({ stated: 'fr' })).toMatchObject({ language: 'en', locale: 'en-US' });
    expect(chooseLanguage({ chosen: 'en', stated: 'es' }).language).toBe('en');
    const w = chooseLanguage({ stated: 'es' });
    expect(w.money(150_000, 'usd')).toBe('$1,500.00');
    expect(w.date('2026-12-01')).toBe('1 de diciembre de 2026');
    expect([w.count(1, w.m.bedrooms), w.count(3, w.m.bedrooms)]).toEqual(['1 habitación', '3 habitaciones']);
    expect(w.list(['la renta', 'los cargos'])).toBe('la renta y los cargos');
  });
});
