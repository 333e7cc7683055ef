// The landlord answers refund requests through the provider API (the live path; sandbox alike).
import { describe, expect, it } from 'vitest';
import { drainJobs } from './fixtures.ts';
import { events, signedLease } from './payment-fixtures.ts';

describe('refund requests on the provider side', () => {
  it('lists the requests, declines one, approves the next; errors (security cases: tests/security)', async () => {
    const s = await signedLease();
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    // Nothing is owed back on a stay booked as paid: a refund is the landlord's goodwill, asked as such.
    const asked = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, reason: 'Moved early', goodwill: true });
    const id = asked.body.data.refund_request_id;
    // The landlord, who answers it, is told at once.
    expect((await events(s.providerOrg, 'refund.requested')).map((e) => e.payload)).toEqual([expect.objectContaining({
      refund_request_id: id, reference: s.ref, property_id: s.home, amount: asked.body.data.amount_cents / 100, purpose: 'owed_back', goodwill: true, reason: 'Moved early',
    })]);

    const list = await s.providerApi.get('/properties/refund-requests');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      count: 1,
      next_cursor: null,
      data: [expect.objectContaining({ id, reference: s.ref, property_id: s.home, status: 'pending_owner_approval', reason: 'Moved early' })],
    });

    const declined = await s.providerApi.post(`/properties/refund-requests/${id}`, { decision: 'decline' });
    expect(declined.status).toBe(200);
    expect(declined.body.data).toMatchObject({ id, status: 'declined', decided_at: expect.any(String) });
    expect((await s.providerApi.post(`/properties/refund-requests/${id}`, { decision: 'approve' })).body.error?.code).toBe('no_refund_request');

    const next = (await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, goodwill: true })).body.data.refund_request_id;
    expect((await s.providerApi.post(`/properties/refund-requests/${next}`, { decision: 'approve' })).body.data.status).toBe('approved');
    await drainJobs(s.c.orgId);
    expect((await s.providerApi.get('/properties/refund-requests')).body.data[0]).toMatchObject({ id: next, status: 'refunded' });
    expect((await events(s.c.orgId, 'payment.refunded')).map((e) => e.payload.outcome)).toEqual(['declined', 'approved']);
    expect((await s.providerApi.get('/properties/bookings')).body.data[0].payments[0].status).toBe('refunded');
    // Both answers stay on the carrier's timeline, the refund with the service fee returned with it.
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data;
    expect(timeline.find((e) => e.type === 'refund.declined')).toMatchObject({ property_id: s.home, detail: { refund_request_id: id } });
    expect(timeline.find((e) => e.type === 'payment.refunded')).toMatchObject({
      detail: { refund_request_id: next, platform_fee_refunded: expect.any(Number) }, summary: expect.stringContaining('service fee'),
    });

    expect((await s.providerApi.post(`/properties/refund-requests/${next}`, { decision: 'maybe' })).body.error).toMatchObject({ code: 'invalid_field', field: 'decision' });

    // Paged like every list: newest first, a cursor to the next page, none after the last.
    const first = await s.providerApi.get('/properties/refund-requests?limit=1');
    expect(first.body).toMatchObject({ count: 1, data: [{ id: next }], next_cursor: expect.any(String) });
    const second = await s.providerApi.get(`/properties/refund-requests?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ count: 1, data: [{ id, status: 'declined' }], next_cursor: null });
    // A cursor this key was not given (another provider's list), or not a cursor at all, is refused by name.
    const other = await signedLease();
    expect((await other.providerApi.get(`/properties/refund-requests?cursor=${first.body.next_cursor}`)).body.error).toMatchObject({ code: 'invalid_field', field: 'cursor' });
    expect((await s.providerApi.get('/properties/refund-requests?cursor=nonsense')).body.error).toMatchObject({ code: 'invalid_field', field: 'cursor' });
    expect((await s.providerApi.get('/properties/refund-requests?limit=101')).body.error).toMatchObject({ code: 'invalid_field', field: 'limit' });
    expect((await s.providerApi.post(`/properties/refund-requests/not-a-uuid`, { decision: 'approve' })).status).toBe(404);
  });
  it('goodwill: refunds part of a payment, then the rest; never more than was paid; any settled payment by its id', async () => {
    const s = await signedLease();
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    const [payment] = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments;
    const paidCents = Math.round(payment.amount * 100);

    // Nothing is owed back: without goodwill there is nothing to refund, and any amount is more than is owed.
    const owed = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home });
    expect(owed.status).toBe(409);
    expect(owed.body.error).toMatchObject({ code: 'nothing_to_refund', message: expect.stringContaining('goodwill') });
    const beyond = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, payment_id: payment.id, amount: 100 });
    expect(beyond.status).toBe(422);
    expect(beyond.body.error).toMatchObject({ code: 'invalid_field', field: 'amount', message: expect.stringMatching(/^amount: 0 USD is owed back to .*goodwill/) });

    const tooMuch = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, amount: payment.amount + 0.01, goodwill: true });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toMatchObject({ code: 'invalid_field', field: 'amount', message: expect.stringContaining(String(payment.amount)) });
    expect((await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, amount: 0, goodwill: true })).body.error).toMatchObject({ code: 'invalid_field', field: 'amount' });
    const unknown = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, payment_id: crypto.randomUUID(), goodwill: true });
    expect(unknown.body.error?.code).toBe('nothing_to_refund');

    const part = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, payment_id: payment.id, amount: 100, goodwill: true });
    expect(part.status).toBe(202);
    expect(part.body.data.amount_cents).toBe(10_000);
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_refund' });
    await drainJobs(s.c.orgId);
    let after = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments[0];
    expect(after).toMatchObject({ status: 'succeeded', refunded_amount: 100, refunded_at: null });

    // The rest, by default; then nothing is left.
    const rest = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, goodwill: true });
    expect(rest.body.data.amount_cents).toBe(paidCents - 10_000);
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_refund' });
    await drainJobs(s.c.orgId);
    after = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments[0];
    expect(after).toMatchObject({ status: 'refunded', refunded_amount: payment.amount, refunded_at: expect.any(String) });
    expect((await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, goodwill: true })).body.error?.code).toBe('nothing_to_refund');
    expect((await events(s.c.orgId, 'payment.refunded')).map((e) => e.payload.amount)).toEqual([100, (paidCents - 10_000) / 100]);
    // What goodwill gave shows as such on the statement, and is never due again.
    const statement = (await s.api.get(`/claims/${s.ref}/statement?property_id=${s.home}`)).body.data;
    expect(statement.entries.filter((e: { cause: string }) => e.cause === 'goodwill').reduce((sum: number, e: { amount: number }) => sum + e.amount, 0)).toBeCloseTo(-payment.amount, 2);
    expect(statement.totals).toMatchObject({ paid: payment.amount, refunded: payment.amount, due_now: 0, refund_due: 0 });
  });
});
