// The whole lifecycle in sandbox through the API, the pay page and the counterpart helpers.
import { describe, expect, it } from 'vitest';
import { splitCharge } from '../../shared/properties/earnings.ts';
import { events, fetchPage, formOf, pagePath, payUrl, postForm, signedLease, submitPage } from './fixtures.ts';

describe('paying, booking and moving in (sandbox)', () => {
  it('pays the first payment on the page, confirms the booking, shows it to the provider', async () => {
    const { c, api, ref, home, providerOrg, providerApi, lease } = await signedLease();
    const url = await payUrl(api, ref);
    expect(url).toMatch(/^http:\/\/localhost\/functions\/v1\/pay\/[\w-]+\.[\w-]+\.[\w-]+$/);

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
    expect(carrierPaid).toEqual([expect.objectContaining({ reference: ref, charge_type: 'initial', amount: total / 100, covers_rent: true, covers_deposit: true })]);
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
    expect(again.status).toBe(409);
    expect(again.text).toContain('Payment not possible');
    expect((await api.get(`/claims/${ref}/placement`)).body.data.homes[0].payments_succeeded).toBe(1);
  });

  it('a declined payment records the attempt and emits payment.failed, nothing else', async () => {
    const { c, api, ref, providerOrg } = await signedLease();
    const url = await payUrl(api, ref);
    const declined = await submitPage(pagePath(url), 'failed');
    expect(declined.status).toBe(303);
    expect((await fetchPage(`${pagePath(url)}?result=failed`)).text).toContain('Payment declined');
    const placement = (await api.get(`/claims/${ref}/placement`)).body.data;
    expect(placement.status).toBe('lease_signed');
    expect(placement.homes[0]).toMatchObject({ booking: null, payments_succeeded: 0 });
    expect(placement.homes[0].payments).toEqual([expect.objectContaining({ status: 'failed', paid_at: null, failure_reason: 'card_declined' })]);
    expect((await events(c.orgId, 'payment.failed')).length).toBe(1);
    expect((await events(providerOrg, 'payment.failed')).length).toBe(1);
    expect((await events(c.orgId, 'booking.confirmed')).length).toBe(0);
  });
});
