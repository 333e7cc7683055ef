// The landlord answers refund requests through the provider API (the live path; sandbox alike).
import { describe, expect, it } from 'vitest';
import { drainJobs } from './fixtures.ts';
import { events, signedLease } from './payment-fixtures.ts';

describe('refund requests on the provider side', () => {
  it('lists the requests, declines one, approves the next; errors (security cases: tests/security)', async () => {
    const s = await signedLease();
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    const asked = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, reason: 'Moved early' });
    const id = asked.body.data.refund_request_id;

    const list = await s.providerApi.get('/properties/refund-requests');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ count: 1, data: [expect.objectContaining({ id, reference: s.ref, property_id: s.home, status: 'pending_owner_approval', reason: 'Moved early' })] });

    const declined = await s.providerApi.post(`/properties/refund-requests/${id}`, { decision: 'decline' });
    expect(declined.status).toBe(200);
    expect(declined.body.data).toMatchObject({ id, status: 'declined', decided_at: expect.any(String) });
    expect((await s.providerApi.post(`/properties/refund-requests/${id}`, { decision: 'approve' })).body.error?.code).toBe('no_refund_request');

    const next = (await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home })).body.data.refund_request_id;
    expect((await s.providerApi.post(`/properties/refund-requests/${next}`, { decision: 'approve' })).body.data.status).toBe('approved');
    await drainJobs(s.c.orgId);
    expect((await s.providerApi.get('/properties/refund-requests')).body.data[0]).toMatchObject({ id: next, status: 'refunded' });
    expect((await events(s.c.orgId, 'payment.refunded')).map((e) => e.payload.outcome)).toEqual(['declined', 'approved']);
    expect((await s.providerApi.get('/properties/bookings')).body.data[0].payments[0].status).toBe('refunded');

    expect((await s.providerApi.post(`/properties/refund-requests/${next}`, { decision: 'maybe' })).body.error).toMatchObject({ code: 'invalid_field', field: 'decision' });
    expect((await s.providerApi.post(`/properties/refund-requests/not-a-uuid`, { decision: 'approve' })).status).toBe(404);
  });
});
