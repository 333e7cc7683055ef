// JSON Schema (OpenAPI 3.1) to fast-check arbitraries, and a conformance check of responses against
// the same document. Only the subset the service's zod schemas produce is covered; anything else is
// reported, so a new construct shows up as a failing check rather than a silent pass.
import fc from 'fast-check';

export type Schema = Record<string, any>;
export interface Document {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

const resolve = (doc: Document, schema: Schema): Schema => {
  let current = schema;
  while (current && typeof current.$ref === 'string') {
    current = doc.components.schemas[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return current ?? {};
};

// --- Values that have ended in a 5xx somewhere: mixed into every generated request ------------

// Text PostgreSQL cannot store, dates and timestamps outside what it reads, amounts below a cent:
// weighted up, as they are what a value type that is loosened lets through.
const storageBreakers = ['\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\ud83c', '0000-01-01', '0079-06-01', '9999-12-31', '0000-01-01T00:00:00Z'];
const oddStrings = [
  '', ' ', '2026-02-30', '-000001-01-01T00:00:00Z', '275760-09-13T00:00:00Z', '1e-9', 'NaN', '%00', '../..', "'; select 1; --",
  'x'.repeat(10_001), '\u202e', 'ǅ', '🏠'.repeat(3),
];
const nastyNumbers = [1e-9, 0.001, 0.005, -0, -1, 1e308, -1e308, 2 ** 53, 2 ** 31, 2 ** 63, 0.1 + 0.2, 10_000_000.01, 1.5, Number.MIN_VALUE];
const wrongTypes = [null, true, false, [], {}, [null], { '\u0000': 1 }];

const nastyString = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...storageBreakers) }, { weight: 1, arbitrary: fc.constantFrom(...oddStrings) });
const nastyNumber = fc.oneof({ weight: 4, arbitrary: fc.constant(1e-9) }, { weight: 2, arbitrary: fc.constantFrom(0.001, 0.005) }, { weight: 1, arbitrary: fc.constantFrom(...nastyNumbers) });

/** Any nasty value, whatever the place. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(nastyString, nastyNumber, fc.constantFrom(...wrongTypes), fc.string({ unit: 'binary', maxLength: 20 }));

const nastyDate = fc.constantFrom('0000-01-01', '0079-06-01', '9999-12-31', '2026-02-30', '1999-12-31', '2100-01-01');
const nastyTimestamp = fc.constantFrom('0000-01-01T00:00:00Z', '0001-01-01T00:00:00+14:00', '9999-12-31T23:59:59Z', '0000-12-31T23:59:59.999-12:00', '2100-01-01T00:00:00Z');

/** Nasty strings for the place of `current`, by its shape: dates and timestamps get their own. */
const nastyStringFor = (current: string): fc.Arbitrary<unknown> =>
  /^\d{4}-\d{2}-\d{2}$/.test(current) ? fc.oneof({ weight: 3, arbitrary: nastyDate }, { weight: 1, arbitrary: nastyString })
    : /^\d{4}-\d{2}-\d{2}T/.test(current) ? fc.oneof({ weight: 3, arbitrary: nastyTimestamp }, { weight: 1, arbitrary: nastyString })
      : nastyString;

/** A nasty value for the place of `current`: mostly of its own type (and shape), sometimes of another. */
const nastyFor = (current: unknown): fc.Arbitrary<unknown> =>
  typeof current === 'string' ? fc.oneof({ weight: 4, arbitrary: nastyStringFor(current) }, { weight: 1, arbitrary: nastyValue })
    : typeof current === 'number' ? fc.oneof({ weight: 4, arbitrary: nastyNumber }, { weight: 1, arbitrary: nastyValue })
      : nastyValue;

/** Every place in a JSON value: [path of keys, value there]. */
function places(value: unknown, path: (string | number)[] = []): [(string | number)[], unknown][] {
  const here: [(string | number)[], unknown][] = [[path, value]];
  if (Array.isArray(value)) return here.concat(value.flatMap((item, i) => places(item, [...path, i])));
  if (value !== null && typeof value === 'object') return here.concat(Object.entries(value).flatMap(([k, v]) => places(v, [...path, k])));
  return here;
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head] = replaced(copy[head], rest, by);
  return copy;
}

/**
 * The generated valid value, or (four times in five) the same value with exactly one fault: one place
 * replaced by a nasty value of its kind. One fault at a time, so that no other refusal masks it.
 */
export function withOneFault(valid: fc.Arbitrary<unknown>, options: { root: boolean } = { root: true }): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), fc.nat({ max: 4 })).chain(([value, pick, mode]) => {
    const all = places(value);
    const leaves = all.filter(([path, v]) => path.length > 0 && (v === null || typeof v !== 'object'));
    const candidates = leaves.length > 0 ? leaves : options.root ? all : [];
    if (mode === 0 || candidates.length === 0) return fc.constant(value);
    const [path, current] = candidates[pick % candidates.length];
    return nastyFor(current).map((nasty) => replaced(value, path, nasty));
  });
}

// --- Generation ----------------------------------------------------------------------------------

const isoDate = fc.date({ min: new Date('1999-06-01T00:00:00Z'), max: new Date('2100-06-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const isoDateTime = fc.date({ min: new Date('1960-01-01T00:00:00Z'), max: new Date('2100-06-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'date':
      return isoDate;
    case 'date-time':
      return isoDateTime;
    case 'uri':
    case 'url':
      return fc.webUrl({ validSchemes: ['https', 'http'] });
    default:
      break;
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 1000));
    } catch {
      // a pattern fast-check cannot invert: plain strings below
    }
  }
  const min = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, min + 40);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength }) },
  );
}

function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum : -1e6);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum : 1e6);
  if (schema.type === 'integer') return fc.integer({ min: Math.max(Math.ceil(min), -(2 ** 31)), max: Math.min(Math.floor(max), 2 ** 31) });
  const step = schema.multipleOf ?? 0.01;
  return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((n) => Number((n * step).toFixed(6)));
}

/** Values valid by the document (faults are added by withOneFault), now and then an unknown member. */
export function arbitraryFor(doc: Document, input: Schema, depth = 0): fc.Arbitrary<unknown> {
  return validArbitrary(doc, resolve(doc, input), depth);
}

/** The schema's own examples (the document's, so realistic), preferred three to one over generated values. */
function validArbitrary(doc: Document, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const examples = [...(schema.example !== undefined ? [schema.example] : []), ...(Array.isArray(schema.examples) ? schema.examples : [])];
  const generated = generatedArbitrary(doc, schema, depth);
  return examples.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...examples) }, { weight: 1, arbitrary: generated }) : generated;
}

function generatedArbitrary(doc: Document, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: Schema) => arbitraryFor(doc, s, depth)));
  if (Array.isArray(schema.allOf)) return arbitraryFor(doc, Object.assign({}, ...schema.allOf.map((s: Schema) => resolve(doc, s))), depth);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string', 'number', 'object'];
  return fc.oneof(...types.map((type) => typedArbitrary(doc, { ...schema, type }, depth)));
}

function typedArbitrary(doc: Document, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
    case 'number':
      return numberArbitrary(schema);
    case 'array': {
      if (depth > 4) return fc.constant([]);
      const items = schema.items ? arbitraryFor(doc, schema.items, depth + 1) : fc.string({ maxLength: 10 });
      const minLength = Math.min(schema.minItems ?? 0, 3);
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const members = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, arbitraryFor(doc, value, depth + 1)]));
      const known = fc.record(members, { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) });
      // Now and then an unknown member (strict bodies refuse it) or a free record's entries.
      const extra = schema.additionalProperties && typeof schema.additionalProperties === 'object'
        ? fc.dictionary(fc.string({ maxLength: 8 }), arbitraryFor(doc, schema.additionalProperties, depth + 1), { maxKeys: 3 })
        : fc.oneof({ weight: 12, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record({ unexpected_field: fc.string({ maxLength: 5 }) }) });
      return fc.tuple(known, extra).map(([a, b]) => ({ ...(b as object), ...(a as object) }));
    }
    default:
      return fc.string({ maxLength: 10 });
  }
}

// --- Conformance -------------------------------------------------------------------------------

const typeOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;

/** Where the value breaks the schema (first finding), or null when it conforms. */
export function mismatch(doc: Document, input: Schema, value: unknown, path = '$'): string | null {
  const schema = resolve(doc, input);
  if (schema.const !== undefined) return value === schema.const ? null : `${path}: expected ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return `${path}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`;
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const found = mismatch(doc, part, value, path);
      if (found) return found;
    }
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    const findings = alternatives.map((s: Schema) => mismatch(doc, s, value, path));
    if (findings.every((f: string | null) => f !== null)) return findings.join(' / ');
  }
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return `${path}: ${actual} where ${types.join('|')} is declared`;
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) return `${path}.${key}: missing`;
    for (const [key, member] of Object.entries(object)) {
      const declared = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (declared) {
        const found = mismatch(doc, declared, member, `${path}.${key}`);
        if (found) return found;
      } else if (schema.additionalProperties === false) {
        return `${path}.${key}: not declared`;
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
    for (const [index, item] of value.entries()) {
      const found = mismatch(doc, schema.items, item, `${path}[${index}]`);
      if (found) return found;
    }
  }
  return null;
}
