// The request's timeline only grows: walked through a whole stay on the sandbox clock (a failed
// payment, move-in, an extension declined, a shortening, an extension in effect, one lapsed at the
// closeout) and a booking cancelled after payment, every entry once shown stays word for word, and
// each step adds its own entries.
import { describe, expect, it } from 'vitest';
import { drainJobs, inDays, scene, type Api } from './fixtures.ts';

interface Entry { at: string; type: string; summary: string; property_id?: string; detail: Record<string, unknown> }

/**
 * The request's timeline as it grows: each read checks that every entry an earlier read showed is
 * still there, equal in time, type, words, home and detail, and returns the entries new since.
 */
function history(api: Api, ref: string) {
  let shown: Entry[] = [];
  return async (step: string): Promise<Entry[]> => {
    const now: Entry[] = (await api.get(`/claims/${ref}/timeline`)).body.data;
    expect(now, `after ${step}, an entry shown before changed or went`).toEqual(expect.arrayContaining(shown));
    const rest = now.map((entry) => JSON.stringify(entry));
    for (const entry of shown) rest.splice(rest.indexOf(JSON.stringify(entry)), 1);
    shown = now;
    return rest.map((entry) => JSON.parse(entry));
  };
}

const sign = async (api: Api, ref: string, home: string) => {
  for (const who of ['household', 'landlord']) {
    const res = await api.post(`/sandbox/claims/${ref}/homes/${home}/${who}`, { action: 'sign' });
    expect(res.status, `${who} signs: ${res.text}`).toBe(200);
  }
};

const pay = (api: Api, ref: string, home: string, outcome: 'succeeded' | 'failed') =>
  api.post(`/sandbox/claims/${ref}/homes/${home}/payment`, { outcome });

const dayAfter = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const noon = (iso: string) => `${iso}T12:00:00Z`;
const types = (entries: Entry[]) => entries.map((e) => e.type).sort();

describe('GET /claims/{reference}/timeline: history that only grows', () => {
  it('keeps every entry of a stay word for word through a failed payment, an extension declined, a shortening, an extension, and one lapsed at the closeout', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const read = history(s.api, s.ref);
    const moveIn = inDays(40);
    const moveOut = dayAfter(moveIn, 90);
    expect((await s.api.post('/sandbox/clock', {})).status).toBe(201);
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: moveIn, move_out: moveOut })).status).toBe(200);
    await drainJobs(s.c.orgId);
    await sign(s.api, s.ref, s.home);
    expect(types(await read('signing'))).toContain('lease.signed_by_owner');

    // A declined card: its own entry, with the amount and the processor's reason.
    expect((await pay(s.api, s.ref, s.home, 'failed')).status).toBe(200);
    const [failed, ...noMore] = await read('a failed payment');
    expect(noMore).toEqual([]);
    const due = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments[0];
    expect(failed).toEqual({
      at: expect.any(String), type: 'payment.failed', property_id: s.home,
      summary: `First payment of ${due.amount.toFixed(2)} USD failed: "card_declined".`,
      detail: { payment_id: due.id, charge_type: 'initial', payer: 'carrier', amount: due.amount, currency: 'usd', failure_reason: 'card_declined' },
    });

    expect((await pay(s.api, s.ref, s.home, 'succeeded')).status).toBe(200);
    const booked = await read('the first payment');
    expect(types(booked)).toEqual(['booking.created', 'payment.succeeded']);
    const created = booked.find((e) => e.type === 'booking.created')!;
    expect(created.summary).toBe(`Booking confirmed: ${moveIn} to ${moveOut}.`);

    await s.api.post('/sandbox/clock/advance', { frozen_time: noon(moveIn) });
    expect((await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home })).status).toBe(200);
    expect(types(await read('move-in'))).toEqual(['move_in.confirmed']);
    await s.api.post('/sandbox/clock/advance', { frozen_time: noon(dayAfter(moveIn, 10)) });

    // An extension asked for and declined by the landlord.
    const declinedTo = dayAfter(moveIn, 100);
    expect((await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: declinedTo })).status).toBe(201);
    await drainJobs(s.c.orgId);
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'decline_extension' })).status).toBe(200);
    const declined = await read('an extension declined');
    expect(declined.find((e) => e.type === 'extension.requested')?.summary)
      .toBe(`Extension asked for: the stay to end on ${declinedTo} instead of ${moveOut}.`);
    expect(declined.find((e) => e.type === 'extension.declined')?.summary).toBe(`The landlord declined the extension to ${declinedTo}.`);

    // Shortened on day 10: its own dates.changed; the booking's entry keeps the dates it was confirmed for.
    const shortTo = dayAfter(moveIn, 60);
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: moveIn, move_out: shortTo })).status).toBe(200);
    const shortened = await read('a shortening');
    expect(shortened).toEqual([expect.objectContaining({ type: 'dates.changed', detail: expect.objectContaining({ shortened: true, move_out_date: shortTo }) })]);

    // Extended and signed: in effect, again its own dates.changed. Its nights are ones the lease signed and the shortening
    // released, so they come back at their signed price on the lease's own charges: nothing of its own to pay.
    const extendedTo = dayAfter(moveIn, 75);
    const extension = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: extendedTo });
    expect(extension.status, extension.text).toBe(201);
    await drainJobs(s.c.orgId);
    await sign(s.api, s.ref, s.home);
    const extended = await read('an extension in effect');
    expect(extended.find((e) => e.type === 'dates.changed')?.detail).toMatchObject({ extended: true, previous_move_out_date: shortTo, move_out_date: extendedTo });

    // Another extension, never signed: it lapses when the stay ends, and the stay is closed out.
    const lapsedTo = dayAfter(moveIn, 85);
    expect((await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: lapsedTo })).status).toBe(201);
    await s.api.post('/sandbox/clock/advance', { frozen_time: noon(extendedTo) });
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('move_out_closeout');
    const closed = await read('the closeout');
    expect(closed.find((e) => e.type === 'extension.lapsed')?.summary)
      .toBe(`The extension to ${lapsedTo} lapsed: it was not signed and paid when the stay ended.`);
    expect(closed.find((e) => e.type === 'booking.completed')).toMatchObject({
      property_id: s.home, summary: 'The stay reached its move-out date and was closed out.', detail: { booking_id: created.detail.booking_id },
    });
  });

  it('a booking cancelled after payment: its own entry with the reason, the open extension withdrawn with it; the booking and payment entries stay', async () => {
    const s = await scene();
    const read = history(s.api, s.ref);
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(130) })).status).toBe(200);
    await drainJobs(s.c.orgId);
    await sign(s.api, s.ref, s.home);
    expect((await pay(s.api, s.ref, s.home, 'succeeded')).status).toBe(200);
    expect((await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) })).status).toBe(201);
    const [booking] = (await read('booking and an extension asked')).filter((e) => e.type === 'booking.created');

    expect((await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: s.home })).body.error?.code).toBe('already_paid');
    const reason = 'The family found a place of their own';
    expect((await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: s.home, reason, force: true })).status).toBe(200);
    const cancelled = await read('the cancellation');
    expect(types(cancelled)).toEqual(['booking.cancelled', 'extension.cancelled']);
    expect(cancelled.find((e) => e.type === 'booking.cancelled')).toEqual({
      at: expect.any(String), type: 'booking.cancelled', property_id: s.home, summary: `Booking cancelled: "${reason}".`,
      detail: { booking_id: booking.detail.booking_id, reason },
    });
    expect(cancelled.find((e) => e.type === 'extension.cancelled')?.summary)
      .toBe(`The extension to ${inDays(160)} was withdrawn with the cancelled placement.`);
  });
});
