// The stay over time: one home hosting stays back to back, the sandbox clock, shortening after
// move-in and the closeout on the move-out date.
import { describe, expect, it } from 'vitest';
import { openClaim } from '../claims/fixtures.ts';
import { call, createKey, client, ownerSql } from '../helpers.ts';
import { drainJobs, events, inDays, scene, type Api } from './fixtures.ts';

const sign = async (api: Api, ref: string, home: string) => {
  for (const who of ['household', 'landlord']) {
    const res = await api.post(`/sandbox/claims/${ref}/homes/${home}/${who}`, { action: 'sign' });
    if (res.status !== 200) throw new Error(`${who} sign: ${res.status} ${res.text}`);
  }
};

/** Places the home on the request, sets the dates, signs and pays: a confirmed booking. */
async function book(api: Api, orgId: string, ref: string, home: string, moveIn: string, moveOut: string) {
  expect((await api.post(`/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
  const dates = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: moveIn, move_out: moveOut });
  if (dates.status !== 200) return dates;
  await drainJobs(orgId);
  await sign(api, ref, home);
  const paid = await api.post(`/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded' });
  expect(paid.status).toBe(200);
  return dates;
}

const dayAfter = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const noon = (iso: string) => `${iso}T12:00:00Z`;

describe('one home, one stay after another', () => {
  it('three consecutive stays back to back: each move-out day is the next move-in; an overlap by one night is refused', async () => {
    const s = await scene();
    // Each request wants the stay it books (a home is placed only for nights no other stay holds).
    const second = await openClaim(s.api, { target_move_in: inDays(100), est_length_months: 2 });
    const third = await openClaim(s.api, { target_move_in: inDays(160), est_length_months: 2 });
    const overlapping = await openClaim(s.api, { target_move_in: inDays(220), est_length_months: 2 });
    expect((await book(s.api, s.c.orgId, s.ref, s.home, inDays(40), inDays(100))).status).toBe(200);
    expect((await book(s.api, s.c.orgId, second.claim_ref, s.home, inDays(100), inDays(160))).status).toBe(200);
    expect((await book(s.api, s.c.orgId, third.claim_ref, s.home, inDays(160), inDays(220))).status).toBe(200);
    for (const ref of [s.ref, second.claim_ref, third.claim_ref]) {
      expect((await s.api.get(`/claims/${ref}`)).body.data.status_primary).toBe('booking_confirmed');
    }
    // The calendar: three booking holds, each ending the night before the next stay's move-in.
    const holds = await ownerSql()<{ start_date: string; end_date: string; held_for: string }[]>`
      select start_date, end_date, held_for from app.availability_blocks where property_id = ${s.home} and source = 'service' order by start_date`;
    expect(holds).toEqual([
      { start_date: inDays(40), end_date: inDays(99), held_for: 'booking' },
      { start_date: inDays(100), end_date: inDays(159), held_for: 'booking' },
      { start_date: inDays(160), end_date: inDays(219), held_for: 'booking' },
    ]);
    const refused = await book(s.api, s.c.orgId, overlapping.claim_ref, s.home, inDays(219), inDays(260));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'dates_unavailable', conflicts: [{ start_date: inDays(160), end_date: inDays(219), reason: 'held for another placement' }] });
    // The provider sees three bookings of one home.
    const providerApi = client((await createKey(s.providerOrg, 'sandbox')).key);
    const bookings = (await providerApi.get('/properties/bookings')).body.data;
    expect(bookings.map((b: any) => [b.check_in, b.check_out])).toEqual([[inDays(160), inDays(220)], [inDays(100), inDays(160)], [inDays(40), inDays(100)]]);
  });
});

describe('the sandbox clock', () => {
  it('is made, read, advanced only forward and deleted; live keys are refused; the scope is checked', async () => {
    const s = await scene();
    const at = noon(inDays(1));
    expect((await s.api.get('/sandbox/clock')).status).toBe(404);
    expect((await s.api.post('/sandbox/clock/advance', { frozen_time: at })).body.error?.code).toBe('not_found');
    expect((await s.api.post('/sandbox/clock', { frozen_time: noon(inDays(-2)) })).body.error).toMatchObject({ code: 'invalid_field', field: 'frozen_time' });
    const made = await s.api.post('/sandbox/clock', { frozen_time: at });
    expect(made.status).toBe(201);
    expect(made.body.data).toEqual({ frozen_time: new Date(at).toISOString(), created_at: expect.any(String), advanced_at: null });
    // Setting it again replaces it (200), at the time given.
    const again = await s.api.post('/sandbox/clock', { frozen_time: at });
    expect([again.status, again.body.data.frozen_time]).toEqual([200, new Date(at).toISOString()]);
    expect((await s.api.get('/sandbox/clock')).body.data.frozen_time).toBe(new Date(at).toISOString());
    const back = await s.api.post('/sandbox/clock/advance', { frozen_time: noon(inDays(0)) });
    expect(back.status).toBe(422);
    expect(back.body.error).toMatchObject({ code: 'invalid_field', field: 'frozen_time' });
    expect((await s.api.post('/sandbox/clock/advance', { frozen_time: noon(inDays(900)) })).body.error?.field).toBe('frozen_time');
    expect((await s.api.post('/sandbox/clock/advance', { frozen_time: 'tomorrow' })).body.error?.field).toBe('frozen_time');
    expect((await s.api.post('/sandbox/clock/advance', { frozen_time: at, extra: 1 })).status).toBe(422);
    const advanced = await s.api.post('/sandbox/clock/advance', { frozen_time: noon(inDays(5)) });
    expect(advanced.status).toBe(200);
    expect(advanced.body.data).toMatchObject({ frozen_time: new Date(noon(inDays(5))).toISOString(), advanced_at: expect.any(String), jobs_run: 0 });

    const live = await s.c.liveApi.get('/sandbox/clock');
    expect(live.status).toBe(403);
    expect(live.body.error?.code).toBe('sandbox_only');
    const readOnly = client((await createKey(s.c.orgId, 'sandbox', { scopes: ['claims:read'] })).key);
    expect((await readOnly.get('/sandbox/clock')).status).toBe(200);
    const providerKey = client((await createKey(s.providerOrg, 'sandbox')).key);
    expect((await providerKey.get('/sandbox/clock')).body.error?.code).toBe('forbidden');
    expect((await readOnly.post('/sandbox/clock/advance', { frozen_time: noon(inDays(6)) })).body.error?.code).toBe('forbidden');
    // Another organisation has no clock, and its date rules keep the wall clock.
    const other = await scene();
    expect((await other.api.get('/sandbox/clock')).status).toBe(404);

    expect((await s.api.delete('/sandbox/clock')).body.data).toEqual({ deleted: true });
    expect((await s.api.delete('/sandbox/clock')).body.data).toEqual({ deleted: false });
  });

  it('walks a stay through move-in, a shortening on day 10 with its refund from the signed terms, and the closeout; the home is bookable the next night', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const moveIn = inDays(40);
    const moveOut = dayAfter(moveIn, 90);
    expect((await s.api.post('/sandbox/clock', {})).status).toBe(201);
    await book(s.api, s.c.orgId, s.ref, s.home, moveIn, moveOut);
    // A move-in in the past is refused on the clock's time, not the wall clock's.
    await s.api.post('/sandbox/clock/advance', { frozen_time: noon(moveIn) });
    const other = await openClaim(s.api, { target_move_in: moveOut });
    expect((await s.api.post(`/claims/${other.claim_ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    const late = await s.api.post(`/claims/${other.claim_ref}/dates`, { property_id: s.home, move_in: inDays(39), move_out: inDays(80) });
    expect(late.body.error).toMatchObject({ code: 'invalid_field', field: 'move_in' });

    expect((await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home })).status).toBe(200);
    const inStay = await s.api.post('/sandbox/clock/advance', { frozen_time: noon(dayAfter(moveIn, 10)) });
    expect(inStay.body.data.jobs_run).toBe(1);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('in_stay');

    // Day 10: the family leaves on day 20. The first month was paid whole; the signed terms bill it
    // for 20 of its days (the one-off fees stay due), so the rest of its rent is refundable.
    const newMoveOut = dayAfter(moveIn, 20);
    const shortened = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: moveIn, move_out: newMoveOut });
    expect(shortened.status).toBe(200);
    const [terms] = await ownerSql()<{ rent: number }[]>`
      select coalesce(terms->'home'->>'rent_1_3_months_cents', terms->'home'->>'monthly_rate_cents')::bigint as rent from app.lease_agreements where claim_id = ${s.claim.id}`;
    const refund = Number(terms.rent) - Math.round((Number(terms.rent) * 20) / daysInPeriod(moveIn));
    const changed = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.find((e: any) => e.type === 'dates.changed');
    expect(changed!.detail).toMatchObject({ shortened: true, move_out_date: newMoveOut, refund_due: refund / 100 });
    expect((await events(s.c.orgId, 'booking.dates_changed')).map((e) => e.payload)).toEqual([expect.objectContaining({
      change: 'shortened', move_in_date: moveIn, previous_move_out_date: moveOut, move_out_date: newMoveOut, refund_due: refund / 100, amount: null, extension_id: null,
    })]);
    const refundRequest = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, reason: 'Left early', amount: refund / 100 });
    expect(refundRequest.status).toBe(202);
    // The nights after the new move-out are free again.
    const [hold] = await ownerSql()<{ end_date: string }[]>`select end_date from app.availability_blocks where property_id = ${s.home} and source = 'service'`;
    expect(hold.end_date).toBe(dayAfter(newMoveOut, -1));

    // The closeout on the move-out date: once, however often the clock passes it.
    const closed = await s.api.post('/sandbox/clock/advance', { frozen_time: noon(newMoveOut) });
    expect(closed.body.data.jobs_run).toBeGreaterThanOrEqual(1);
    expect((await s.api.post('/sandbox/clock/advance', { frozen_time: `${newMoveOut}T18:00:00Z` })).body.data.jobs_run).toBe(0);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('move_out_closeout');
    expect((await events(s.c.orgId, 'request.status_changed')).filter((e) => e.payload.status === 'move_out_closeout')).toHaveLength(1);
    const providerApi = client((await createKey(s.providerOrg, 'sandbox')).key);
    expect((await providerApi.get('/properties/bookings')).body.data[0]).toMatchObject({ booking_status: 'completed', check_out: newMoveOut, completed_at: expect.any(String) });
    expect((await events(s.providerOrg, 'booking.updated')).map((e) => e.payload.change)).toEqual(['move_in_confirmed', 'dates_changed', 'completed']);
    const calendar = (await providerApi.get(`/properties/${s.home}/availability`)).body.data;
    expect(calendar).toEqual([expect.objectContaining({ source: 'service', start_date: moveIn, end_date: dayAfter(newMoveOut, -1), held_for: 'completed' })]);
    // After move-out the stay can no longer be shortened.
    const after = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: moveIn, move_out: dayAfter(moveIn, 15) });
    expect(after.status).toBe(400);
    expect(after.body.error).toMatchObject({ code: 'could_not_set_dates', field: 'move_out' });
    // Nor extended.
    const extendedLate = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: dayAfter(newMoveOut, 30) });
    expect([extendedLate.status, extendedLate.body.error?.code, extendedLate.body.error?.field]).toEqual([400, 'could_not_set_dates', 'move_out']);

    // The home is bookable from the move-out night on: the next stay moves in that day.
    const next = await s.api.post(`/claims/${other.claim_ref}/dates`, { property_id: s.home, move_in: newMoveOut, move_out: dayAfter(newMoveOut, 45) });
    expect(next.status).toBe(200);
  });
});

describe('moving in', () => {
  it("is confirmed from the booking's move-in date on, by the tenant's clock: before it 409 move_in_not_yet naming the date, and nothing moves", async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    const moveIn = inDays(40);
    const dayBefore = dayAfter(moveIn, -1);
    await book(s.api, s.c.orgId, s.ref, s.home, moveIn, dayAfter(moveIn, 60));
    const confirm = () => s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home });
    // Forty days early, on the wall clock (no sandbox clock yet).
    const early = await confirm();
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'move_in_not_yet', field: 'property_id', move_in_date: moveIn, message: expect.stringContaining(moveIn) });
    // The day before, while the move-in day has begun nowhere yet (before 10:00 UTC, midnight at UTC+14).
    expect((await s.api.post('/sandbox/clock', { frozen_time: `${dayBefore}T09:59:00Z` })).status).toBe(201);
    expect((await confirm()).body.error).toMatchObject({ code: 'move_in_not_yet', move_in_date: moveIn });
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('booking_confirmed');
    expect(await events(s.providerOrg, 'booking.updated')).toHaveLength(0);
    // Once the move-in day is today somewhere, the move-in is taken; a repeated call answers the same.
    await s.api.post('/sandbox/clock/advance', { frozen_time: `${dayBefore}T10:00:00Z` });
    const moved = await confirm();
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ status: 'move_in_complete', move_in_confirmed_at: expect.any(String) });
    // Even on a clock set back before the day: what was recorded stays recorded.
    expect((await s.api.post('/sandbox/clock', { frozen_time: `${dayBefore}T09:00:00Z` })).status).toBe(200);
    expect((await confirm()).body.data).toEqual(moved.body.data);
    expect((await events(s.providerOrg, 'booking.updated')).map((e) => e.payload.change)).toEqual(['move_in_confirmed']);
  });
});

describe('the pay link on a sandbox clock', () => {
  it('is issued and expires on the clock: valid while the clock stands, expired once it passes the hour', async () => {
    const s = await scene();
    await s.api.post('/sandbox/clock', {});
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(130) });
    await drainJobs(s.c.orgId);
    await sign(s.api, s.ref, s.home);
    const url = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.pay_in_app_url as string;
    const path = new URL(url).pathname.replace(/^\/functions\/v1/, '');
    expect((await call('GET', path)).status).toBe(200);
    await s.api.post('/sandbox/clock/advance', { frozen_time: new Date(Date.now() + 2 * 3_600_000).toISOString() });
    const expired = await call('GET', path);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('expired');
  });
});

/** Days of the full first billing period of a stay moving in on `moveIn` (to the same day a month later). */
function daysInPeriod(moveIn: string): number {
  const [y, m, d] = moveIn.split('-').map(Number);
  const next = new Date(Date.UTC(y, m, 1));
  const last = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(d, last));
  return Math.round((next.getTime() - Date.UTC(y, m - 1, d)) / 86_400_000);
}
