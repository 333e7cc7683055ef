// The test helpers type every response body from the OpenAPI document (tests/api-types.ts): the
// type assertions here are checked by `npm run typecheck`, and the calls run against the service,
// so a test that reads a field the API does not answer no longer compiles.
import { expect, expectTypeOf, it } from 'vitest';
import type { components } from '../../client/schema.generated.ts';
import type { ErrorDetail, ResponseBody, RouteOf } from '../api-types.ts';
import { client, createTenant } from '../helpers.ts';

type Schemas = components['schemas'];

it('matches a concrete path to the documented route serving it, the most literal first', () => {
  expectTypeOf<RouteOf<'/claims/batch'>>().toEqualTypeOf<'/claims/batch'>();
  expectTypeOf<RouteOf<`/claims/${string}`>>().toEqualTypeOf<'/claims/{reference}'>();
  expectTypeOf<RouteOf<'/claims/REQ-1234/options?limit=5'>>().toEqualTypeOf<'/claims/{reference}/options'>();
  expectTypeOf<RouteOf<`/claims/${string}/options/${string}/budget`>>().toEqualTypeOf<'/claims/{reference}/options/{propertyId}/budget'>();
  expectTypeOf<RouteOf<'/properties/availability'>>().toEqualTypeOf<'/properties/availability'>();
  expectTypeOf<RouteOf<`/events/${number}`>>().toEqualTypeOf<'/events/{id}'>();
  // A parameter is one segment: three segments never land on a two-segment route.
  expectTypeOf<RouteOf<'/claims/REQ-1/unknown/extra'>>().toBeNever();
  expectTypeOf<RouteOf<'/nowhere'>>().toBeNever();
  expectTypeOf<RouteOf<string>>().toBeNever();
});

it('gives what no route documents an unknown body, and an undocumented method too', () => {
  expectTypeOf<ResponseBody<'GET', '/health'>>().toBeUnknown();
  expectTypeOf<ResponseBody<'GET', string>>().toBeUnknown();
  expectTypeOf<ResponseBody<'PUT', '/claims'>>().toBeUnknown();
});

it("types a documented route's body by its method, and refuses a field the document does not declare", async () => {
  const api = client((await createTenant('carrier')).sandbox);
  const list = await api.get('/claims?limit=1');
  expect(list.status).toBe(200);
  expectTypeOf(list.body.data).toEqualTypeOf<Schemas['HousingRequestListItem'][]>();
  expectTypeOf(list.body.next_cursor).toEqualTypeOf<string | null>();
  expectTypeOf(list.body.error).toExtend<ErrorDetail | undefined>();
  // Error codes are a union of exactly the codes the route documents, not a string.
  expectTypeOf(list.body.error?.code).toEqualTypeOf<
    'invalid_json' | 'missing_key' | 'invalid_key' | 'forbidden' | 'invalid_field' | 'rate_limited' | 'server_error' | undefined
  >();
  // @ts-expect-error: the list answers data, count and next_cursor; it has no total.
  expect(list.body.total).toBeUndefined();

  const missing = await api.get(`/claims/${'REQ-ZZZZZZ'}`);
  expect(missing.status).toBe(404);
  expect(missing.body.error?.code).toBe('not_found');
  expectTypeOf(missing.body.data).toEqualTypeOf<Schemas['HousingRequest']>();

  const unknownPath = await api.get('/claims/REQ-ZZZZZZ/nothing-here');
  expect(unknownPath.status).toBe(404);
  // @ts-expect-error: an undocumented path's body is unknown until the test narrows it.
  expect(unknownPath.body.error).toBeDefined();
});
