import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';

describe('API reference', () => {
  it('documents every housing-request route with its scope and errors', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    const expected: [string, string, string][] = [
      ['/claims', 'post', 'claims:write'],
      ['/claims', 'get', 'claims:read'],
      ['/claims/batch', 'post', 'claims:write'],
      ['/claims/{reference}', 'get', 'claims:read'],
      ['/claims/{reference}', 'patch', 'claims:write'],
      ['/claims/{reference}/matches', 'get', 'options:read'],
      ['/claims/{reference}/source-more', 'post', 'claims:write'],
      ['/claims/{reference}/documents', 'post', 'claims:write'],
      ['/claims/{reference}/documents', 'get', 'claims:read'],
      ['/claims/{reference}/documents/{documentId}', 'get', 'claims:read'],
      ['/claims/{reference}/timeline', 'get', 'claims:read'],
    ];
    for (const [path, method, scope] of expected) {
      expect(paths[path]?.[method]?.description, `${method} ${path}`).toContain(`Requires: ${scope}.`);
    }
    expect(Object.keys(paths['/claims/{reference}/source-more'].post.responses)).toEqual(expect.arrayContaining(['202', '404', '409']));
    expect(Object.keys(paths['/claims/{reference}/documents'].post.requestBody!.content)).toEqual(['multipart/form-data']);
    const create = res.body.components.schemas.CreateHousingRequest;
    expect(create.required).toEqual(expect.arrayContaining(['loss_address', 'target_move_in', 'rent_payer', 'deposit_payer']));
    expect(create.properties!.furnishing.enum).toEqual(['furnished', 'partial', 'unfurnished', 'any']);
    expect(JSON.stringify(res.body.components.schemas.HousingRequestBatch)).toContain('#/components/schemas/CreateHousingRequest');
  });
});
