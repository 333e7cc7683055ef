// Schema-driven fuzzing of every operation of the OpenAPI document, through the HTTP surface with a
// sandbox key of the side the operation serves. A request may be refused (4xx) but never fail (5xx),
// and every answer must be one the document declares, with a body of the declared shape.
//
// Seeded and bounded: FUZZ_RUNS (default 15 per operation, twice that for operations with a body)
// and FUZZ_SEED (default fixed) make a longer or a different run, for example
// FUZZ_RUNS=500 FUZZ_SEED=7 npx vitest run tests/fuzz.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/app.ts';
import { call, record, type ApiResponse } from '../helpers.ts';
import { useTemporaryDataDir } from '../claims/fixtures.ts';
import { completeHome } from '../properties/fixtures.ts';
import { arbitraryFor, mismatch, nastyValue, withOneFault, type Document, type Schema } from './schema.ts';
import { bodyExamples, consumesKey, createFixtures, freshKey, multipartParts, pathFixtures, type Side, type World } from './fixtures.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 15);
const seed = Number(process.env.FUZZ_SEED ?? 20261123);

const doc = openApiDocument() as unknown as Document;
const methods = ['get', 'post', 'patch', 'put', 'delete'] as const;
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  methods.filter((m) => item[m]).map((method) => ({ name: `${method.toUpperCase()} ${path}`, path, method, op: item[method] })),
);

let world: World;
/** The side whose key an operation accepts (the other gets 403 forbidden), found by asking once. */
const sideOf = new Map<string, Side>();

beforeAll(async () => {
  await useTemporaryDataDir();
  world = await createFixtures();
  for (const { name, path, method } of operations) {
    const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    for (const side of ['carrier', 'provider'] as const) {
      const key = consumesKey.has(name) ? await freshKey(world, side) : world.keys[side];
      // Without a body the scope check (the route's first step) still answers 403 to the wrong side.
      const res = await call(method.toUpperCase(), concrete, { key, headers: { 'content-type': 'application/json' }, body: method === 'get' ? undefined : '' });
      if (res.status !== 403) {
        sideOf.set(name, side);
        break;
      }
    }
  }
}, 120_000);

interface Generated {
  path: string;
  query: string;
  body?: unknown;
}

function pathValue(path: string, param: string, side: Side): fc.Arbitrary<string> {
  const fixture = pathFixtures.find((f) => f.param === param && f.path.test(path));
  const real = fixture ? world.ids[fixture.fixture(side)] ?? [] : [];
  // Never empty, '.' or '..': those make another route's path.
  const random = fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('REQ-000000', 'x', '%00', 'a\u0000b', '\ud800'))
    .filter((value) => value !== '.' && value !== '..');
  return real.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: random }) : random;
}

/** A URL-safe rendering of a generated value: lone surrogates cannot be percent-encoded as UTF-8. */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[\ud800-\udfff]/g, '%ED%A0%80');
  }
}

function requestArbitrary(name: string, path: string, op: any, side: Side): fc.Arbitrary<Generated> {
  const params: any[] = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const pathArb = fc.tuple(...pathParams.map((p) => pathValue(path, p.name, side))).map((values) =>
    pathParams.reduce((acc: string, p, i) => acc.replace(`{${p.name}}`, encode(values[i])), path),
  );
  const queryMembers: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(queryParams.map((p) => [p.name, arbitraryFor(doc, p.schema ?? {})]));
  const queryValues = fc.record(queryMembers, { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name as string) as never[] });
  // Either all parameters with one fault, or one parameter alone (with or without a fault), so that a
  // fault in one is not masked by the refusal of another.
  const single = queryParams.length === 0 ? fc.constant({}) : fc.constantFrom(...queryParams).chain((p) =>
    withOneFault(arbitraryFor(doc, p.schema ?? {})).map((value) => ({ [p.name]: value })));
  const queryArb = fc.oneof(withOneFault(queryValues, { root: false }), single).map((values) =>
    Object.entries((values ?? {}) as Record<string, unknown>).map(([k, v]) => `${encodeURIComponent(k)}=${encode(v)}`).join('&'),
  );
  const content = op.requestBody?.content ?? {};
  let bodyArb: fc.Arbitrary<unknown> = fc.constant(undefined);
  if (content['application/json']) {
    const generated = arbitraryFor(doc, content['application/json'].schema as Schema);
    const examples = bodyExamples[name]?.(world) ?? [];
    bodyArb = withOneFault(examples.length > 0 ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...examples) }, { weight: 1, arbitrary: generated }) : generated);
  }
  else if (content['multipart/form-data'] && multipartParts[name]) {
    const form = multipartParts[name];
    bodyArb = fc.oneof(fc.constant(null).map(() => form()), nastyValue.map((v) => { const f = form(); f.set('description', String(v)); return f; }));
  }
  return fc.record({ path: pathArb, query: queryArb, body: bodyArb });
}

/**
 * Whether the request carries text PostgreSQL cannot store unchanged: JSON.stringify writes NUL as
 * \u0000 and a lone surrogate (only those) as \udXXX; in the query string NUL is %00.
 */
function carriesUnstorableText(request: Generated): boolean {
  return /\\u0000|\\ud[89a-f][0-9a-f]{2}/i.test(JSON.stringify(request.body ?? null)) || /%00/.test(request.query);
}

/**
 * What is wrong with the response, by the document; null when it is a declared, well-formed answer.
 * A success for a request carrying text the database cannot store unchanged is wrong as well: the
 * value was stored altered (U+FFFD) instead of refused.
 */
function judge(op: any, res: ApiResponse, request: Generated): string | null {
  if (res.status >= 500) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  // 207: a batch refuses items one by one in its results.
  if (res.status < 300 && res.status !== 207 && carriesUnstorableText(request)) return `accepted text with NUL or a lone surrogate (${res.status})`;
  const declared = op.responses?.[String(res.status)] ?? op.responses?.default;
  if (!declared) return `status ${res.status} is not declared (${Object.keys(op.responses).join(', ')}): ${res.text.slice(0, 200)}`;
  const schema = declared.content?.['application/json']?.schema;
  if (!schema) return null;
  if (!res.headers.get('content-type')?.includes('application/json')) return `status ${res.status} without a JSON body`;
  const found = mismatch(doc, schema, res.body);
  return found ? `status ${res.status} body does not match the document: ${found}` : null;
}

async function send(name: string, method: string, side: Side, request: Generated) {
  const key = consumesKey.has(name) ? await freshKey(world, side) : world.keys[side];
  const url = request.query ? `${request.path}?${request.query}` : request.path;
  return call(method.toUpperCase(), url, { key, body: request.body });
}

describe('fuzz: every operation of the OpenAPI document', () => {
  it('covers every operation with a side', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter((o) => !sideOf.has(o.name)).map((o) => o.name)).toEqual([]);
  });

  it.each(operations.map((o) => [o.name, o] as const))('%s never answers 5xx or outside the document', async (name, { path, method, op }) => {
    const side = sideOf.get(name)!;
    await fc.assert(
      fc.asyncProperty(requestArbitrary(name, path, op, side), async (request) => {
        const res = await send(name, method, side, request);
        const problem = judge(op, res, request);
        if (problem) throw new Error(`${method.toUpperCase()} ${request.path}${request.query ? `?${request.query}` : ''} ${JSON.stringify(request.body)?.slice(0, 300)} -> ${problem}`);
      }),
      { seed, numRuns: op.requestBody ? 2 * runs : runs, endOnFailure: true },
    );
  });
});

/** The five reproductions of the issue that reported 500s: each is a 422 invalid_field naming the field. */
describe('fuzz: fixed cases (values the schema accepted and PostgreSQL refused)', () => {
  const home = () => world.ids.home[0];
  const claim = () => world.ids.claim[0];
  const endpoint = () => world.ids['provider:endpoint'][0];
  const cases: [string, Side, string, () => string, unknown, string][] = [
    ['a positive amount below a cent on a new home', 'provider', 'POST', () => '/properties', completeHome({ monthly_rate: 1e-9 }), 'monthly_rate'],
    ['a rent tier below a cent', 'provider', 'POST', () => '/properties', completeHome({ rent_4_6_months: 1e-9 }), 'rent_4_6_months'],
    ['an amount below a cent on a home update', 'provider', 'PATCH', () => `/properties/${home()}`, { monthly_rate: 1e-9 }, 'monthly_rate'],
    ['an amount below a cent in a batch', 'provider', 'POST', () => '/properties/batch', { properties: [completeHome({ monthly_rate: 1e-9 })] }, 'monthly_rate'],
    ['a budget below a cent on an amendment', 'carrier', 'PATCH', () => `/claims/${claim()}`, { max_budget: 1e-9 }, 'max_budget'],
    ['an ALE limit below a cent on an amendment', 'carrier', 'PATCH', () => `/claims/${claim()}`, { ale_limit: 1e-9 }, 'ale_limit'],
    ['a budget below a cent on a new request', 'carrier', 'POST', () => '/claims', { loss_address: '1 Main St', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701', target_move_in: new Date(Date.now() + 30 * 864e5).toISOString().slice(0, 10), est_length_months: 4, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, property_type: 'apartment', furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'tpa', max_budget: 1e-9 }, 'max_budget'],
    ['a deposit below a cent (was stored as 0)', 'provider', 'POST', () => '/properties', completeHome({ security_deposit: 1e-9 }), 'security_deposit'],
    ['year 0000 as available_from', 'provider', 'POST', () => '/properties', completeHome({ available_from: '0000-01-01' }), 'available_from'],
    ['year 0000 on a home update', 'provider', 'PATCH', () => `/properties/${home()}`, { available_from: '0000-01-01' }, 'available_from'],
    ['9999-12-31 as available_from', 'provider', 'PATCH', () => `/properties/${home()}`, { available_from: '9999-12-31' }, 'available_from'],
    ['year 0000 on a block', 'provider', 'POST', () => `/properties/${home()}/availability`, { start_date: '0000-01-01', end_date: '2027-01-01' }, 'start_date'],
    ['year 0079 on a block', 'provider', 'POST', () => `/properties/${home()}/availability`, { start_date: '0079-01-01', end_date: '0079-01-03' }, 'start_date'],
    ['year 0000 in the bulk calendar', 'provider', 'POST', () => '/properties/availability', () => ({ blocks: [{ property_id: home(), start_date: '0000-01-01', end_date: '2027-01-01' }] }), 'start_date'],
    ['year 0000 as an availability filter', 'provider', 'GET', () => `/properties/${home()}/availability?from=0000-01-01`, undefined, 'from'],
    ['year 0000 as the event log since', 'carrier', 'GET', () => '/events?since=0000-01-01T00:00:00Z', undefined, 'since'],
    ['a NUL in a new webhook description', 'provider', 'POST', () => '/webhooks', { url: 'https://hooks.example.com/x', description: 'a\u0000b' }, 'description'],
    ['a NUL in a webhook description update', 'provider', 'PATCH', () => `/webhooks/${endpoint()}`, { description: 'a\u0000b' }, 'description'],
    ['a lone surrogate in an address', 'provider', 'POST', () => '/properties', completeHome({ address: '\ud800 Main St' }), 'address'],
    ['a lone surrogate in a batch address', 'provider', 'POST', () => '/properties/batch', { properties: [completeHome({ address: '\ud800' })] }, 'address'],
    ['a lone surrogate in a home description (was stored as U+FFFD)', 'provider', 'PATCH', () => `/properties/${home()}`, { description: 'x\udc00' }, 'description'],
    ['a lone surrogate in a claim text field', 'carrier', 'PATCH', () => `/claims/${claim()}`, { adjuster_name: '\ud800' }, 'adjuster_name'],
    ['a lone surrogate in a webhook description', 'carrier', 'POST', () => '/webhooks', { url: 'https://hooks.example.com/x', description: '\ud800' }, 'description'],
    ['a subnormal coordinate (double precision refuses it)', 'provider', 'POST', () => '/properties', completeHome({ longitude: 5e-324 }), 'longitude'],
    ['a lone surrogate in a block reason', 'provider', 'POST', () => `/properties/${home()}/availability`, { start_date: '2027-02-01', end_date: '2027-02-02', reason: '\ud800' }, 'reason'],
  ];

  it.each(cases)('%s: 422 invalid_field', async (_title, side, method, path, body, field) => {
    const res = await call(method, path(), { key: world.keys[side], body: typeof body === 'function' ? body() : body });
    // Batch endpoints refuse the item in its result (422 with the batch answer, the field named within the item); the rest refuse the call.
    expect(res.status, res.text).toBe(422);
    const answer = record(res.body);
    const error = Array.isArray(answer.results) ? record(answer.results[0]).error : answer.error;
    expect(error, res.text).toMatchObject({ code: 'invalid_field', field });
  });

  it('a cursor naming a timestamp PostgreSQL cannot read is a 422 on cursor', async () => {
    const cursor = Buffer.from(JSON.stringify(['0000-01-01T00:00:00Z', '00000000-0000-4000-8000-000000000000'])).toString('base64url');
    const res = await call('GET', `/events?cursor=${cursor}`, { key: world.keys.carrier });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field: 'cursor' });
  });
});
