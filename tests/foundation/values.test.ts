// The value types guard: walks the route registry that produces the OpenAPI document and fails on any
// query or body field that is a plain string, number or date instead of the shared value types
// of shared/http/values.ts (or an explicit, commented valueException). A new route is covered the
// moment it is declared: nothing here lists routes.
import { describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import { apiGroups } from '../../functions/groups.ts';
import { calendarDate, isStorableText, measure, money, storedText, timestampQuery, valueKindOf } from '../../shared/http/values.ts';

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Field names that carry money: a number under such a name must be the money type. */
const moneyName = /(amount|rate|rent|fee|deposit|budget|price|cost|_limit)$/;

/** String formats that cannot carry NUL or surrogates: a closed character set by construction. */
const closedFormats = new Set(['uuid', 'guid', 'email']);

/** Every field of the schema that breaks the rule, as `path: reason`. */
export function plainFields(schema: z.ZodType, path: string, found: string[] = []): string[] {
  const def = defOf(schema);
  const kind = valueKindOf(schema);
  if (kind === 'exception') return found;
  const name = path.split('.').pop() ?? '';
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return plainFields(def.innerType as z.ZodType, path, found);
    case 'pipe':
      plainFields(def.in as z.ZodType, path, found);
      return found;
    case 'lazy':
      return plainFields((def.getter as () => z.ZodType)(), path, found);
    case 'object':
      for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) plainFields(value, `${path}.${key}`, found);
      return found;
    case 'array':
      return plainFields(def.element as z.ZodType, `${path}[]`, found);
    case 'union':
      for (const option of def.options as z.ZodType[]) plainFields(option, path, found);
      return found;
    case 'intersection':
      plainFields(def.left as z.ZodType, path, found);
      return plainFields(def.right as z.ZodType, path, found);
    case 'record':
      if (kind !== 'json') found.push(`${path}: a free record, use storedJson()`);
      return found;
    case 'string': {
      if (kind === 'text' || kind === 'date' || kind === 'timestamp') return found;
      const formats = [def.format, ...((def.checks ?? []) as { _zod: { def: { format?: string } } }[]).map((c) => c._zod.def.format)];
      if (formats.some((format) => closedFormats.has(format as string))) return found;
      found.push(`${path}: a plain string${def.format ? ` (${def.format})` : ''}, use storedText(), calendarDate() or timestampQuery()`);
      return found;
    }
    case 'number': {
      if (kind === 'money' || kind === 'measure') return found;
      if (moneyName.test(name)) {
        found.push(`${path}: an amount as a plain number, use money()`);
        return found;
      }
      const checks = ((def.checks ?? []) as { _zod: { def: { check: string; format?: string } } }[]).map((c) => c._zod.def);
      const kinds = checks.map((c) => c.check);
      if (!kinds.includes('greater_than') || !kinds.includes('less_than')) found.push(`${path}: an unbounded number`);
      // A fraction that is neither money nor a step (multipleOf) can be subnormal, which double precision refuses.
      else if (!checks.some((c) => c.format === 'safeint' || c.check === 'multiple_of')) found.push(`${path}: a fraction, use measure() or money()`);
      return found;
    }
    case 'date':
      found.push(`${path}: a Date, use calendarDate() or timestampQuery()`);
      return found;
    case 'unknown':
    case 'any':
      found.push(`${path}: any value; use a shared type or a commented valueException`);
      return found;
    case 'enum':
    case 'literal':
    case 'boolean':
    case 'null':
    case 'undefined':
      return found;
    default:
      found.push(`${path}: unrecognised schema type ${def.type}`);
      return found;
  }
}

/**
 * Every input schema the registry declares: query strings, JSON bodies and registered components.
 * Path values are identifiers, looked up and never stored: one no row can have is 404 not_found
 * (the fuzz test holds them to "never a 5xx").
 */
function inputs() {
  const list: { where: string; schema: z.ZodType }[] = [];
  for (const group of apiGroups) {
    for (const definition of group.routes.openAPIRegistry.definitions) {
      if (definition.type === 'schema') {
        list.push({ where: `/${group.name} registered component`, schema: definition.schema as z.ZodType });
        continue;
      }
      if (definition.type !== 'route') continue;
      const { method, path, request } = definition.route;
      const where = `${method.toUpperCase()} /${group.name}${path === '/' ? '' : path}`;
      if (request?.query) list.push({ where: `${where} query`, schema: request.query as z.ZodType });
      const json = (request?.body?.content?.['application/json'] as { schema?: unknown } | undefined)?.schema;
      if (json) list.push({ where: `${where} body`, schema: json as z.ZodType });
    }
  }
  return list;
}

describe('shared value types', () => {
  it('every query and body field of every route uses them (the registry walk)', () => {
    const found = inputs().flatMap(({ where, schema }) => plainFields(schema, where));
    expect(inputs().length).toBeGreaterThan(15);
    expect(found).toEqual([]);
  });

  it('the walk catches plain fields (the guard itself can fail)', () => {
    const body = z.object({
      note: z.string(),
      monthly_rate: z.number().positive(),
      count: z.number().int(),
      on: z.iso.date(),
      at: z.coerce.date(),
      good: storedText(),
      day: calendarDate().optional(),
      since: timestampQuery().nullable(),
      amount: money({ positive: true }),
      lat: measure(-90, 90),
      ratio: z.number().min(0).max(1),
      beds: z.number().int().min(0).max(9),
    });
    expect(plainFields(body, 'body').map((f) => f.split(':')[0])).toEqual(['body.note', 'body.monthly_rate', 'body.count', 'body.on', 'body.at', 'body.ratio']);
  });

  it('refuse what PostgreSQL cannot take, and nothing else', () => {
    expect(isStorableText('plain, émoji 🏠 and CJK 家')).toBe(true);
    for (const bad of ['a\u0000b', '\ud800', 'x\udc00', '\udc00\ud800']) expect(isStorableText(bad)).toBe(false);
    const positive = money({ positive: true });
    const nonNegative = money({ positive: false });
    for (const value of [0.01, 19.99, 1_000_000.5, 10_000_000]) expect(positive.safeParse(value).success, String(value)).toBe(true);
    for (const value of [0, 1e-9, 0.001, 10.005, 0.1 + 0.2, 10_000_000.01, -1]) expect(positive.safeParse(value).success, String(value)).toBe(false);
    expect(nonNegative.safeParse(0).success).toBe(true);
    expect(nonNegative.safeParse(1e-9).success).toBe(false);
    expect(measure(-90, 90).safeParse(5e-324).success).toBe(false);
    expect(measure(-90, 90).safeParse(0).success).toBe(true);
    expect(measure(-90, 90).safeParse(-1e-300).success).toBe(true);
    const date = calendarDate();
    for (const value of ['2000-01-01', '2026-02-28', '2028-02-29', '2099-12-31']) expect(date.safeParse(value).success, value).toBe(true);
    for (const value of ['0000-01-01', '0079-06-01', '1999-12-31', '2100-01-01', '9999-12-31', '2026-02-30', '2026-13-01']) {
      expect(date.safeParse(value).success, value).toBe(false);
    }
    const at = timestampQuery();
    for (const value of ['2026-11-21T10:15:00Z', '2026-11-21T10:15:00.123+02:00', '1970-01-01T00:00:00Z']) expect(at.safeParse(value).success, value).toBe(true);
    for (const value of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-11-21', '2026-11-21T10:15:00']) {
      expect(at.safeParse(value).success, value).toBe(false);
    }
  });
});
