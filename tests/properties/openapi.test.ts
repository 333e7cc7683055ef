import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';

describe('provider side in the OpenAPI document', () => {
  it('declares every provider route, and every schema reference of them resolves', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/properties') || p === '/sandbox/payouts');
    expect(paths.sort()).toEqual([
      '/properties',
      '/properties/applications',
      '/properties/applications/{id}',
      '/properties/availability',
      '/properties/batch',
      '/properties/bookings',
      '/properties/payouts',
      '/properties/readiness',
      '/properties/refund-requests',
      '/properties/refund-requests/{id}',
      '/properties/{ref}',
      '/properties/{ref}/availability',
      '/properties/{ref}/availability/{block_id}/release',
      '/properties/{ref}/calendar-export',
      '/properties/{ref}/calendar-feeds',
      '/properties/{ref}/calendar-feeds/{feed_id}',
      '/properties/{ref}/calendar-feeds/{feed_id}/refresh',
      '/sandbox/payouts',
    ]);
    const refs = [...JSON.stringify(paths.map((p) => doc.paths[p])).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs).toContain('AvailabilityBulkItem');
    expect(refs).toContain('HomeInput');
    for (const name of refs) expect(doc.components.schemas, name).toHaveProperty(name);
  });
});
