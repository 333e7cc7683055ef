// The whole lifecycle in sandbox through the API, the pay page and the counterpart helpers.
import { describe, expect, it } from 'vitest';
import { splitCharge } from '../../shared/properties/earnings.ts';
import { ownerSql, record } from '../helpers.ts';
import { insertHome } from '../claims/fixtures.ts';
import { clockAt, drainJobs } from './fixtures.ts';
import { events, fetchPage, formOf, pagePath, payUrl, postForm, signedLease, submitPage } from './payment-fixtures.ts';

describe('paying, booking and moving in (sandbox)', () => {
  it('pays the first payment on the page, confirms the booking, shows it to the provider', async () => {
    const { c, api, ref, home, providerOrg, providerApi, lease } = await signedLease();
    const url = await payUrl(api, ref);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1\/pay\/[\w-]+\.[\w-]+\.[\w-]+$/);

    const page = await fetchPage(pagePath(url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.text).toContain('Due now: First payment');
    expect(page.text).not.toContain('<script');
    const total = Number(page.text.match(/name="amount_cents" value="(\d+)"/)![1]);
    expect(total).toBeGreaterThan(0);

    const paid = await submitPage(pagePath(url), 'succeeded');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('?result=succeeded');
    const after = await fetchPage(`${pagePath(url)}?result=succeeded`);
    expect(after.text).toContain('Payment received');
    expect(after.text).toContain('Nothing due right now');

    const placement = (await api.get(`/claims/${ref}/placement`)).body.data;
    expect(placement.status).toBe('booking_confirmed');
    const h = placement.homes[0];
    expect(h.payments_succeeded).toBe(1);
    expect(h.booking).toMatchObject({ booking_status: 'confirmed', check_in: lease.move_in_date, check_out: lease.move_out_date, move_in_confirmed_at: null });
    expect(h.payments).toEqual([expect.objectContaining({ charge_type: 'initial', status: 'succeeded', amount: total / 100, covers_rent: true, covers_deposit: true })]);

    const carrierPaid = (await events(c.orgId, 'payment.succeeded')).map((e) => e.payload);
    expect(carrierPaid).toEqual([expect.objectContaining({
      reference: ref, payment_id: h.payments[0].id, charge_type: 'initial', amount: total / 100, covers_rent: true, covers_deposit: true,
    })]);
    expect((await events(c.orgId, 'booking.confirmed')).length).toBe(1);
    const providerPaid = (await events(providerOrg, 'payment.succeeded')).map((e) => e.payload);
    expect(providerPaid).toHaveLength(1);
    expect(providerPaid[0].gross).toBe(total / 100);
    expect(providerPaid[0].net_to_you).toBeCloseTo(providerPaid[0].gross - providerPaid[0].platform_fee - providerPaid[0].processing_fee, 2);
    expect((await events(providerOrg, 'booking.confirmed')).map((e) => e.payload.property_id)).toEqual([home]);

    const bookings = await providerApi.get('/properties/bookings');
    expect(bookings.status).toBe(200);
    const [booking] = bookings.body.data;
    expect(booking).toMatchObject({ property_id: home, booking_status: 'confirmed', check_in: lease.move_in_date });
    const split = splitCharge({ rentCents: Math.round(h.payments[0].platform_fee * 100 / 0.08), depositCents: 0 });
    expect(booking.payments[0]).toMatchObject({ charge_type: 'initial', gross: total / 100, platform_fee: split.platformFeeCents / 100 });

    // The same page submitted a second time (a double click, a reload) pays nothing more.
    const again = await postForm(pagePath(url), formOf(page.text), 'succeeded');
    // ...shows the receipt, and charges nothing more.
    expect([again.status, again.headers.get('location')]).toEqual([303, '?result=succeeded']);
    expect((await api.get(`/claims/${ref}/placement`)).body.data.homes[0].payments_succeeded).toBe(1);
  });

  it('a declined payment records the attempt and emits payment.failed, nothing else', async () => {
    const { c, api, ref, providerOrg } = await signedLease();
    const url = await payUrl(api, ref);
    const declined = await submitPage(pagePath(url), 'failed');
    expect(declined.status).toBe(303);
    expect((await fetchPage(`${pagePath(url)}?result=failed`)).text).toContain('Payment declined');
    // A result the page does not know, even an inherited name, shows the page without a banner.
    for (const unknown of ['constructor', '__proto__', 'toString', 'nonsense']) {
      const page = await fetchPage(`${pagePath(url)}?result=${unknown}`);
      expect(page.status, unknown).toBe(200);
      expect(page.text).not.toContain('role="status"');
    }
    const placement = (await api.get(`/claims/${ref}/placement`)).body.data;
    expect(placement.status).toBe('payment_setup');
    expect(placement.homes[0]).toMatchObject({ booking: null, payments_succeeded: 0 });
    expect(placement.homes[0].payments).toEqual([expect.objectContaining({ status: 'failed', paid_at: null, failure_reason: 'card_declined' })]);
    expect((await events(c.orgId, 'payment.failed')).length).toBe(1);
    expect((await events(providerOrg, 'payment.failed')).length).toBe(1);
    expect((await events(c.orgId, 'booking.confirmed')).length).toBe(0);
  });
});

describe('after payment: move-in, cancellation and refunds (sandbox)', () => {
  const pay = (api: any, ref: string, home: string, outcome = 'succeeded') => api.post(`/sandbox/claims/${ref}/homes/${home}/payment`, { outcome });

  it('confirms move-in once; the provider sees it', async () => {
    const { c, api, ref, home, providerOrg, providerApi, lease: dated } = await signedLease();
    expect((await pay(api, ref, home)).status).toBe(200);
    await clockAt(api, dated.move_in_date);
    const moved = await api.post(`/claims/${ref}/confirm-move-in`, { property_id: home });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ property_id: home, status: 'move_in_complete', move_in_confirmed_at: expect.any(String) });
    // Back to the wall clock, before the move-in day: the move-in recorded stays recorded.
    await api.delete('/sandbox/clock');
    const again = await api.post(`/claims/${ref}/confirm-move-in`, { property_id: home });
    expect(again.body.data.move_in_confirmed_at).toBe(moved.body.data.move_in_confirmed_at);
    const updates = (await events(providerOrg, 'booking.updated')).map((e) => e.payload);
    expect(updates).toEqual([expect.objectContaining({ change: 'move_in_confirmed', booking_status: 'confirmed', move_in_confirmed_at: moved.body.data.move_in_confirmed_at })]);
    expect((await providerApi.get('/properties/bookings')).body.data[0].move_in_confirmed_at).toBe(moved.body.data.move_in_confirmed_at);
    const timeline = (await api.get(`/claims/${ref}/timeline`)).body.data.map((e: any) => e.type);
    expect(timeline).toEqual(expect.arrayContaining(['booking.created', 'payment.succeeded', 'move_in.confirmed']));
    expect((await events(c.orgId, 'request.status_changed')).map((e) => e.payload.status).slice(-2)).toEqual(['booking_confirmed', 'move_in_complete']);

    // Once moved in, an earlier move_out shortens the stay; any other change stays refused.
    const { lease } = await (async () => ({ lease: (await api.get(`/claims/${ref}/placement`)).body.data.homes[0].lease! }))();
    const earlier = new Date(Date.parse(`${lease.move_out_date}T00:00:00Z`) - 20 * 86_400_000).toISOString().slice(0, 10);
    const shortened = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: lease.move_in_date, move_out: earlier });
    expect(shortened.status).toBe(200);
    expect(shortened.body.data).toMatchObject({ id: lease.id, move_out_date: lease.move_out_date, shortened_move_out_date: earlier, status: 'fully_signed' });
    expect((await providerApi.get('/properties/bookings')).body.data[0].check_out).toBe(earlier);
    expect((await events(providerOrg, 'booking.updated')).map((e) => e.payload.change)).toEqual(['move_in_confirmed', 'dates_changed']);
    const [hold] = await ownerSql()<{ end_date: string }[]>`select end_date from app.availability_blocks where lease_agreement_id = ${lease.id}`;
    expect(hold.end_date <= earlier).toBe(true);
    // The signed lease keeps its dates; the stay's earlier end is beside them, and on the timeline.
    const after = (await api.get(`/claims/${ref}/placement`)).body.data.homes[0].lease!;
    expect(after).toMatchObject({ id: lease.id, move_out_date: lease.move_out_date, shortened_move_out_date: earlier });
    const changed = (await api.get(`/claims/${ref}/timeline`)).body.data.filter((e) => e.type === 'dates.changed');
    expect(changed).toEqual([expect.objectContaining({
      detail: expect.objectContaining({ shortened: true, previous_move_out_date: lease.move_out_date, move_out_date: earlier, refund_due: expect.any(Number) }),
    })]);
    // The same shortening again answers the same and records nothing more.
    expect((await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: lease.move_in_date, move_out: earlier })).body.data)
      .toMatchObject({ id: lease.id, move_out_date: lease.move_out_date, shortened_move_out_date: earlier });
    expect((await api.get(`/claims/${ref}/timeline`)).body.data.filter((e) => e.type === 'dates.changed')).toHaveLength(1);
    const later = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: lease.move_in_date, move_out: lease.move_out_date });
    expect(later.body.error?.code).toBe('already_signed');

    // The stay's scheduled steps: in_stay the next day; the closeout on the move-out date, moved
    // to the shortened date (the original date's job finds the stay no longer ends then).
    const steps = await ownerSql()<{ run_at: Date; payload: any }[]>`select run_at, payload from app.jobs where org_id = ${c.orgId} and kind = 'advance_stay' order by run_at`;
    expect(steps.map((j) => j.payload.to)).toEqual(['in_stay']);
    const closeouts = await ownerSql()<{ payload: any }[]>`select payload from app.jobs where org_id = ${c.orgId} and kind = 'close_stay' order by run_at`;
    expect(closeouts.map((j) => j.payload.move_out)).toEqual([earlier, lease.move_out_date]);
    await ownerSql()`update app.jobs set run_at = now() where org_id = ${c.orgId} and kind = 'advance_stay' and payload->>'to' = 'in_stay'`;
    await drainJobs(c.orgId);
    expect((await api.get(`/claims/${ref}`)).body.data.status_primary).toBe('in_stay');
    await ownerSql()`update app.jobs set run_at = now() where org_id = ${c.orgId} and kind = 'close_stay' and status = 'pending'`;
    await drainJobs(c.orgId);
    expect((await api.get(`/claims/${ref}`)).body.data.status_primary).toBe('move_out_closeout');
    expect((await providerApi.get('/properties/bookings')).body.data[0]).toMatchObject({ booking_status: 'completed', completed_at: expect.any(String) });
    expect((await events(providerOrg, 'booking.updated')).map((e) => e.payload.change)).toEqual(['move_in_confirmed', 'dates_changed', 'completed']);
    expect((await events(c.orgId, 'request.status_changed')).filter((e) => e.payload.status === 'move_out_closeout')).toHaveLength(1);
  });

  it('cancelling a second home leaves the request booked when another home is booked, and announces no status change', async () => {
    const s = await signedLease();
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('booking_confirmed');
    const second = await insertHome(s.providerOrg);
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: second, action: 'place', approve_budget: true })).status).toBe(200);
    const announced = (await events(s.c.orgId, 'request.status_changed')).length;

    expect((await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: second })).status).toBe(200);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('booking_confirmed');
    expect((await events(s.c.orgId, 'request.status_changed')).length).toBe(announced);
  });

  it('cancels an unpaid placement: contract withdrawn, holds released, home off the request, everyone emailed', async () => {
    const { c, api, ref, home, lease } = await signedLease();
    const res = await api.post(`/claims/${ref}/cancel-booking`, { property_id: home, reason: 'Family found other housing' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ request_id: expect.any(String), property_id: home, cancelled: true, property: expect.any(String), was_paid: false });
    const placement = (await api.get(`/claims/${ref}/placement`)).body.data;
    expect(placement.status).toBe('housing_options_found');
    expect(placement.homes[0]).toMatchObject({ option_status: 'cancelled', lease: null });
    // Withdrawn, but what was signed stays signed: the signatures and their timeline entries remain.
    expect(placement.homes[0].lease_history.at(-1)).toMatchObject({
      id: lease.id, status: 'withdrawn', policyholder_signed_at: expect.any(String), owner_signed_at: expect.any(String),
    });
    const timeline = (await api.get(`/claims/${ref}/timeline`)).body.data.map((e) => e.type);
    expect(timeline).toEqual(expect.arrayContaining(['lease.signed_by_recipient', 'lease.signed_by_owner']));
    expect(await ownerSql()`select 1 from app.availability_blocks where lease_agreement_id = ${lease.id}`).toHaveLength(0);
    const mails = await ownerSql()<{ payload: any }[]>`select payload from app.jobs where org_id = ${c.orgId} and kind = 'send_email' and payload->>'topic' = 'booking.cancelled'`;
    expect(mails[0].payload.to).toEqual(expect.arrayContaining(['family@example.com', 'adjuster@example.com']));
    expect((await api.post(`/claims/${ref}/cancel-booking`, { property_id: home })).status).toBe(404);
    // Back on the market: the home can be placed again.
    expect((await api.post(`/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
  });

  it('refuses to cancel a paid placement without force, then cancels with force; refund approved and declined', async () => {
    const { c, api, ref, home, providerOrg } = await signedLease();
    await pay(api, ref, home);
    const refused = await api.post(`/claims/${ref}/cancel-booking`, { property_id: home });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'already_paid', payment: { id: expect.any(String), amount_total_cents: expect.any(Number), currency: 'usd' } });
    const forced = await api.post(`/claims/${ref}/cancel-booking`, { property_id: home, force: true });
    expect(forced.body.data).toMatchObject({ cancelled: true, was_paid: true });
    expect((await events(providerOrg, 'booking.updated')).map((e) => e.payload.change)).toEqual(['cancelled']);

    const asked = await api.post(`/claims/${ref}/refund-request`, { property_id: home, reason: 'Cancelled before move-in' });
    expect(asked.status).toBe(202);
    // Cancelled before move-in: all of it is owed back, and that is the default.
    const total = record(refused.body.error?.payment).amount_total_cents as number;
    expect(asked.body.data).toEqual({
      refund_request_id: expect.any(String), amount_cents: total, amount: total / 100, currency: 'usd', status: 'pending_owner_approval',
      payment_id: record(refused.body.error?.payment).id, payer: 'carrier', purpose: 'owed_back', goodwill: false,
      history: [{ status: 'pending_owner_approval', at: expect.any(String) }],
    });
    expect((await api.post(`/claims/${ref}/refund-request`, { property_id: home })).body.error?.code).toBe('refund_pending');

    const declined = await api.post(`/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'decline_refund' });
    expect(declined.status).toBe(200);
    expect(declined.body.data.deposit_refunds).toEqual([expect.objectContaining({ status: 'declined' })]);
    expect((await events(c.orgId, 'payment.refunded')).map((e) => e.payload.outcome)).toEqual(['declined']);

    const again = await api.post(`/claims/${ref}/refund-request`, { property_id: home });
    expect(again.status).toBe(202);
    const approved = await api.post(`/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'approve_refund' });
    expect(approved.body.data.deposit_refunds.at(-1)).toMatchObject({ status: 'approved' });
    await drainJobs(c.orgId);
    const after = (await api.get(`/claims/${ref}/placement`)).body.data.homes[0];
    expect(after.deposit_refunds.at(-1)).toMatchObject({ status: 'refunded', refunded_at: expect.any(String) });
    expect(after.payments[0]).toMatchObject({ status: 'refunded', refunded_amount: after.payments[0].amount });
    expect((await events(c.orgId, 'payment.refunded')).map((e) => e.payload.outcome)).toEqual(['declined', 'approved']);
    expect((await api.post(`/claims/${ref}/refund-request`, { property_id: home })).body.error?.code).toBe('nothing_to_refund');
    const timeline = (await api.get(`/claims/${ref}/timeline`)).body.data.map((e: any) => e.type);
    expect(timeline).toEqual(expect.arrayContaining(['deposit.refund_requested', 'payment.refunded']));
  });

  it('a cancellation moves the request back to what its remaining homes support', async () => {
    const { c, api, ref, home, providerOrg } = await signedLease();
    const second = await insertHome(providerOrg);
    expect((await api.post(`/claims/${ref}/options`, { property_id: second, action: 'send', approve_budget: true })).status).toBe(200);
    expect((await api.get(`/claims/${ref}`)).body.data.status_primary).toBe('payment_setup');
    expect((await api.post(`/claims/${ref}/cancel-booking`, { property_id: home })).status).toBe(200);
    expect((await api.get(`/claims/${ref}`)).body.data.status_primary).toBe('options_sent');
    expect((await events(c.orgId, 'request.status_changed')).map((e) => e.payload.status).slice(-2)).toEqual(['housing_options_found', 'options_sent']);
  });
});
