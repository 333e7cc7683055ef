// The three batch routes answer one shape (shared/http/batch.ts): the batch result at the top level,
// results in input order with the item's external_id, and 201 all succeeded, 207 mixed, 422 all
// refused; the OpenAPI document declares those statuses with the one result shape.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, client, createTenant, errorOf } from '../helpers.ts';
import { at, claimBody, spot } from '../claims/fixtures.ts';
import { completeHome } from '../properties/fixtures.ts';

type Api = ReturnType<typeof client>;
type Item = (ref: string) => unknown;

const apis = {} as Record<'carrier' | 'provider', Api>;

beforeAll(async () => {
  apis.carrier = client((await createTenant('carrier')).live);
  const provider = await createTenant('provider');
  apis.provider = client(provider.live);
  // Homes for the calendar sync to name by external_id.
  const homes = ['CAL-1', 'CAL-2', 'CAL-3'].map((ref) => completeHome({ external_id: ref }));
  expect((await apis.provider.post('/properties/batch', { properties: homes })).status).toBe(201);
});

const where = at(spot(11, 3));
const routes: { path: '/claims/batch' | '/properties/batch' | '/properties/availability'; side: 'carrier' | 'provider'; array: string; lead: string; tail: string[]; good: Item; bad: Item }[] = [
  {
    path: '/claims/batch', side: 'carrier', array: 'requests', lead: 'created', tail: [],
    good: (ref) => claimBody({ ...where, external_id: `${ref}-${crypto.randomUUID().slice(0, 8)}` }),
    bad: (ref) => claimBody({ external_id: ref, bedrooms: 'two' }),
  },
  {
    path: '/properties/batch', side: 'provider', array: 'properties', lead: 'created', tail: ['updated'],
    good: (ref) => completeHome({ external_id: `${ref}-${crypto.randomUUID().slice(0, 8)}` }),
    bad: (ref) => completeHome({ external_id: ref, monthly_rate: 0 }),
  },
  {
    path: '/properties/availability', side: 'provider', array: 'blocks', lead: 'blocked', tail: ['replaced_existing', 'homes_touched'],
    good: (ref) => ({ external_id: ref, start_date: '2027-03-01', end_date: '2027-03-02' }),
    bad: (ref) => ({ external_id: ref, start_date: '2027-03-05', end_date: '2027-03-01' }),
  },
];

describe.each(routes)('POST $path', ({ path, side, array, lead, tail, good, bad }) => {
  const send = (items: unknown[]) => apis[side].post(path, { [array]: items });
  const keys = ['index', 'external_id', 'ok'];

  it('answers 201 when every item succeeds, at the top level, results in input order with their external_id', async () => {
    const res = await send([good('CAL-1'), good('CAL-2')]);
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual([lead, 'failed', ...tail, 'results']);
    expect(res.body).toMatchObject({ [lead]: 2, failed: 0 });
    expect(res.body.results.map((r: any) => Object.keys(r).slice(0, 3))).toEqual([keys, keys]);
    expect(res.body.results.map((r: any) => [r.index, r.ok, r.external_id.slice(0, 5)])).toEqual([[0, true, 'CAL-1'], [1, true, 'CAL-2']]);
  });

  it('answers 207 when some items are refused, each refused item with its external_id and error', async () => {
    const res = await send([bad('CAL-3'), good('CAL-1'), 'not an item']);
    expect(res.status, res.text).toBe(207);
    expect(Object.keys(res.body)).toEqual([lead, 'failed', ...tail, 'results']);
    expect(res.body).toMatchObject({ [lead]: 1, failed: 2 });
    const [refused, accepted, whole] = res.body.results;
    expect(refused).toMatchObject({ index: 0, external_id: 'CAL-3', ok: false, error: { code: 'invalid_field', field: expect.any(String) } });
    expect(accepted).toMatchObject({ index: 1, ok: true });
    expect(whole).toEqual(expect.objectContaining({ index: 2, external_id: null, ok: false }));
    expect(whole.error).toEqual({ code: 'invalid_field', message: expect.stringMatching(/^The item: /), doc_url: expect.stringMatching(/#error-invalid_field$/) });
  });

  it('answers 422 with the batch result when every item is refused', async () => {
    const res = await send([bad('CAL-1'), bad('CAL-2')]);
    expect(res.status, res.text).toBe(422);
    expect(Object.keys(res.body)).toEqual([lead, 'failed', ...tail, 'results']);
    expect(res.body).toMatchObject({ [lead]: 0, failed: 2 });
    expect(res.body.results.map((r: any) => [r.index, r.external_id, r.ok])).toEqual([[0, 'CAL-1', false], [1, 'CAL-2', false]]);
  });

  it('refuses a body without items as a whole, in the error shape', async () => {
    const res = await send([]);
    expect(res.status).toBe(422);
    expect(errorOf(res.body)).toMatchObject({ code: 'invalid_field', field: array });
  });

  it('is declared with 201, 207 and 422 answering the one result shape', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const responses = doc.paths[path].post.responses;
    const schemaOf = (status: string) => responses[status].content['application/json'].schema;
    const result = schemaOf('201').$ref!;
    expect(schemaOf('207').$ref).toBe(result);
    expect(schemaOf('422').anyOf!.map((s: any) => s.$ref)).toEqual([result, '#/components/schemas/Error']);
    const shape = doc.components.schemas[result.split('/').pop()!];
    expect(Object.keys(shape.properties!)).toEqual([lead, 'failed', ...tail, 'results']);
    expect(Object.keys(shape.properties!.results.items!.properties!).slice(0, 3)).toEqual(keys);
    expect(JSON.stringify(shape.properties!.results.items!.properties!.error)).toContain('#/components/schemas/BatchItemError');
  });
});
