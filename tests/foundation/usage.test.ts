import { describe, expect, it } from 'vitest';
import { call, createKey, createTenant, ownerSql } from '../helpers.ts';

describe('GET /usage', () => {
  it("counts the key's and the organisation's requests per day and status class", async () => {
    const t = await createTenant('carrier');
    const other = await createKey(t.orgId, 'sandbox');
    const elsewhere = await createTenant('carrier');
    await call('GET', '/usage', { key: t.sandbox });
    await call('GET', '/usage/none', { key: t.sandbox });
    await call('GET', '/usage', { key: other.key });
    await call('GET', '/usage', { key: t.live });
    await call('GET', '/usage', { key: elsewhere.sandbox });
    await ownerSql()`insert into app.usage_daily (org_id, environment, key_id, day, status_class, count)
                     values (${t.orgId}, 'sandbox', ${t.sandboxKeyId}, current_date - 40, '2xx', 7),
                            (${t.orgId}, 'sandbox', ${t.sandboxKeyId}, current_date - 3, '5xx', 2)`;
    const res = await call('GET', '/usage', { key: t.sandbox });
    expect(res.status).toBe(200);
    const { key, organisation, since } = res.body.data;
    expect(key.id).toBe(t.sandboxKeyId);
    // 2 earlier requests of this key today (one 2xx, one 4xx) plus 2 5xx three days ago; day 40 is outside.
    expect(key.total).toBe(4);
    expect(key.days[0]).toMatchObject({ total: 2, '2xx': 1, '4xx': 1, '5xx': 0 });
    expect(key.days[1]).toMatchObject({ total: 2, '5xx': 2 });
    expect(key.days[0].day > key.days[1].day).toBe(true);
    expect(organisation).toMatchObject({ id: t.orgId, environment: 'sandbox', total: 5 });
    expect(since).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('is refused without a read scope, and counts nothing of other organisations', async () => {
    const t = await createTenant('provider');
    const writeOnly = await createKey(t.orgId, 'live', { scopes: ['properties:write'] });
    const res = await call('GET', '/usage', { key: writeOnly.key });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('forbidden');
  });
});
