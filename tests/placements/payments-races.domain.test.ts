// Concurrency: nothing is double-recorded, double-booked or double-refunded.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { drainJobs } from './fixtures.ts';
import { events, fetchPage, formOf, pagePath, payUrl, postForm, signedLease } from './payment-fixtures.ts';

describe('payments under concurrency', () => {
  it('a page submitted twice at once pays once', async () => {
    const s = await signedLease();
    const path = pagePath(await payUrl(s.api, s.ref));
    const form = formOf((await fetchPage(path)).text);
    const results = await Promise.all([postForm(path, form, 'succeeded'), postForm(path, form, 'succeeded'), postForm(path, form, 'succeeded')]);
    // Each answers the receipt (the later ones find nothing due); one charge is made.
    expect(results.map((r) => [r.status, r.headers.get('location')])).toEqual(Array(3).fill([303, '?result=succeeded']));
    expect(await ownerSql()`select 1 from app.payments where claim_id = ${s.claim.id} and status = 'succeeded'`).toHaveLength(1);
    expect(await ownerSql()`select 1 from app.bookings where claim_id = ${s.claim.id}`).toHaveLength(1);
    expect((await events(s.c.orgId, 'booking.confirmed')).length).toBe(1);
  });

  it('a payment racing a cancellation: either paid then refused to cancel, or cancelled then refused to pay; never both half-done', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await signedLease();
      const [paid, cancelled] = await Promise.all([
        s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' }),
        s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: s.home }),
      ]);
      const payments = await ownerSql()`select status from app.payments where claim_id = ${s.claim.id}`;
      const [home] = await ownerSql()<{ option_status: string }[]>`select option_status from app.claim_options where claim_id = ${s.claim.id}`;
      const bookings = await ownerSql()<{ booking_status: string }[]>`select booking_status from app.bookings where claim_id = ${s.claim.id}`;
      if (paid.status === 200) {
        expect(cancelled.status).toBe(409);
        expect(cancelled.body.error?.code).toBe('already_paid');
        expect(payments).toHaveLength(1);
        expect(home.option_status).toBe('approved');
        expect(bookings.map((b) => b.booking_status)).toEqual(['confirmed']);
      } else {
        expect(cancelled.status).toBe(200);
        expect(paid.body.error?.code).toBe('not_on_request');
        expect(payments).toHaveLength(0);
        expect(home.option_status).toBe('cancelled');
        expect(bookings).toHaveLength(0);
      }
    }
  });

  it('a refund requested twice at once opens one request and refunds once', async () => {
    const s = await signedLease();
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    const asks = await Promise.all([1, 2, 3].map(() => s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, goodwill: true })));
    expect(asks.map((r) => r.status).sort()).toEqual([202, 409, 409]);
    expect(asks.filter((r) => r.status === 409).map((r) => r.body.error?.code)).toEqual(['refund_pending', 'refund_pending']);
    const approvals = await Promise.all([1, 2].map(() => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_refund' })));
    expect(approvals.map((r) => r.status).sort()).toEqual([200, 409]);
    await Promise.all([drainJobs(s.c.orgId), drainJobs(s.c.orgId)]);
    expect(await ownerSql()`select 1 from app.refund_requests where claim_id = ${s.claim.id}`).toHaveLength(1);
    expect(await ownerSql()`select 1 from app.jobs where org_id = ${s.c.orgId} and kind = 'issue_refund'`).toHaveLength(1);
    expect((await events(s.c.orgId, 'payment.refunded')).map((e) => e.payload.outcome)).toEqual(['approved']);
  });
});
