// The routes of this part in the OpenAPI document, each with its scope and errors.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';

describe('payments in the OpenAPI document', () => {
  it('declares every new route with its errors', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const expected: [string, string, string[]][] = [
      ['/claims/{reference}/confirm-move-in', 'post', ['200', '404', '409', '422']],
      ['/claims/{reference}/cancel-booking', 'post', ['200', '404', '409', '422']],
      ['/claims/{reference}/refund-request', 'post', ['202', '404', '409', '422']],
      ['/sandbox/claims/{reference}/homes/{propertyId}/payment', 'post', ['200', '403', '404', '409', '422']],
      ['/properties/refund-requests', 'get', ['200']],
      ['/properties/refund-requests/{id}', 'post', ['200', '404', '409', '422']],
    ];
    for (const [path, method, statuses] of expected) {
      const operation = doc.paths[path]?.[method];
      expect(operation, path).toBeDefined();
      for (const status of statuses) expect(Object.keys(operation.responses), `${path} ${status}`).toContain(status);
    }
    expect(doc.paths['/claims/{reference}/cancel-booking'].post.responses['409'].description).toContain('already_paid');
    const home = doc.components.schemas.PlacementHome.properties!;
    expect(Object.keys(home)).toEqual(expect.arrayContaining(['booking', 'payments', 'deposit_refunds', 'payments_succeeded']));
  });
});
