// app.record_event files an event for the calling tenant, or for the provider of a home on one of
// its requests: never in another organisation's log, nor in the other environment's.
import { describe, expect, it } from 'vitest';
import { withTenant } from '../../shared/db/tenant.ts';
import { createOrg, ownerSql } from '../helpers.ts';
import { scene } from '../placements/fixtures.ts';

const record = (tenant: { orgId: string; environment: 'live' | 'sandbox' }, org: string, env: string) =>
  withTenant(tenant, (tx) => tx`select app.record_event('booking.updated', '{}'::jsonb, ${org}, ${env})`);

describe('app.record_event from a tenant', () => {
  it('records for itself and for the provider of a home on its request; refuses anyone else and the other environment', async () => {
    const s = await scene();
    const carrier = { orgId: s.c.orgId, environment: 'sandbox' as const };
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    await record(carrier, s.c.orgId, 'sandbox');
    await record(carrier, s.providerOrg, 'sandbox');
    const stranger = await createOrg('provider');
    await expect(record(carrier, stranger, 'sandbox')).rejects.toThrow(/not the calling tenant's to record/);
    await expect(record(carrier, s.c.orgId, 'live')).rejects.toThrow(/not the calling tenant's to record/);
    const logged = await ownerSql()`select org_id from app.events where org_id = ${stranger}`;
    expect(logged).toHaveLength(0);
  });
});
