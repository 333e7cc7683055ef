import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';

describe('API reference', () => {
  it('documents every placement route and sandbox helper with its scope and errors', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    const expected: [string, string, string, string[]][] = [
      ['/claims/{reference}/options/{propertyId}/budget', 'get', 'options:read', ['200', '404']],
      ['/claims/{reference}/options/{propertyId}/budget', 'post', 'options:write', ['200', '404', '422']],
      ['/claims/{reference}/options', 'post', 'options:write', ['200', '400', '404', '409', '422']],
      ['/claims/{reference}/dates', 'post', 'options:write', ['200', '400', '404', '409', '422']],
      ['/claims/{reference}/dates/approve-proposal', 'post', 'options:write', ['200', '400', '404', '409', '422']],
      ['/claims/{reference}/signer', 'post', 'options:write', ['200', '400', '404', '409', '422']],
      ['/claims/{reference}/placement', 'get', 'placements:read', ['200', '404']],
      ['/sandbox/claims/{reference}/homes/{propertyId}/household', 'post', 'options:write', ['200', '403', '404', '409', '422']],
      ['/sandbox/claims/{reference}/homes/{propertyId}/landlord', 'post', 'options:write', ['200', '403', '404', '409', '422']],
    ];
    for (const [path, method, scope, statuses] of expected) {
      const op = paths[path]?.[method];
      expect(op?.description, `${method} ${path}`).toContain(`Requires: ${scope}.`);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(statuses));
    }
    const dates = paths['/claims/{reference}/dates'].post.responses;
    for (const code of ['not_on_request', 'dates_unavailable', 'already_signed']) expect(dates['409'].description).toContain(code);
    expect(dates['422'].description).toContain('stay_too_short');
    expect(dates['400'].description).toContain('could_not_set_dates');
    const options = paths['/claims/{reference}/options'].post.responses;
    expect(options['409'].description).toContain('budget_not_approved');
    expect(options['409'].description).toContain('no_billing_account');
    expect(options['400'].description).toContain('could_not_place');
    expect(res.body.components.schemas.BudgetReview.properties!.against_budget).toBeDefined();
  });
});
