// Every paged list takes `limit` and `cursor` by the same rules (shared/http/paging.ts): limit from
// 1 to the list's maximum, its default documented in the OpenAPI document; a garbled cursor, or a
// cursor of the other anchor's shape (another list's), is 422 invalid_field on `cursor`; a
// row-anchored list also refuses a cursor naming a row the key cannot see.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, client, createTenant } from '../helpers.ts';
import { encodeCursor, pageSizes } from '../../shared/http/paging.ts';

type Side = 'carrier' | 'provider';

const lists: { path: string; side: Side; size: { default: number; max: number }; anchor: 'row' | 'time' }[] = [
  { path: '/claims', side: 'carrier', size: pageSizes.claims, anchor: 'row' },
  { path: '/properties', side: 'provider', size: pageSizes.homes, anchor: 'row' },
  { path: '/properties/bookings', side: 'provider', size: pageSizes.bookings, anchor: 'row' },
  { path: '/events', side: 'carrier', size: pageSizes.events, anchor: 'time' },
  { path: '/webhooks', side: 'provider', size: pageSizes.webhookEndpoints, anchor: 'time' },
  { path: '/webhooks/deliveries', side: 'carrier', size: pageSizes.webhookDeliveries, anchor: 'time' },
];

const someId = '3f2b6c1e-9a4d-4e7b-8c5a-1d0e2f3a4b5c';
const rowShaped = encodeCursor([someId]);
const timeShaped = encodeCursor(['2026-11-21T10:15:00.123456+00:00', someId]);

const keys = {} as Record<Side, string>;
let doc: any;

beforeAll(async () => {
  keys.carrier = (await createTenant('carrier')).live;
  keys.provider = (await createTenant('provider')).live;
  doc = (await call('GET', '/openapi.json')).body;
});

describe.each(lists)('GET $path', ({ path, side, size, anchor }) => {
  const get = (query: string) => client(keys[side]).get(`${path}?${query}`);
  const refused = (res: { status: number; body: any }, field: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
  };

  it(`takes limit 1 to ${size.max} and refuses anything else on limit`, async () => {
    expect((await get('limit=1')).status).toBe(200);
    expect((await get(`limit=${size.max}`)).status).toBe(200);
    for (const limit of ['0', String(size.max + 1), '2.5', 'ten', '-1']) refused(await get(`limit=${limit}`), 'limit');
  });

  it(`documents its default (${size.default}) and maximum in the OpenAPI document`, () => {
    const limit = doc.paths[path].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ default: size.default, maximum: size.max, minimum: 1 });
    expect(limit.description ?? limit.schema.description).toContain(`default ${size.default}`);
  });

  it('refuses a garbled cursor, or one of the other shape, on cursor', async () => {
    for (const cursor of ['not-a-cursor', '%%%', encodeCursor([]), anchor === 'row' ? timeShaped : rowShaped]) {
      refused(await get(`cursor=${encodeURIComponent(cursor)}`), 'cursor');
    }
  });

  if (anchor === 'row') {
    it('refuses a cursor naming a row this key cannot see, instead of an empty last page', async () => {
      refused(await get(`cursor=${rowShaped}`), 'cursor');
    });
  } else {
    it('continues from the time in its cursor, also when the row it came from is gone', async () => {
      const res = await get(`cursor=${timeShaped}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ data: [], count: 0, next_cursor: null });
    });
  }
});
