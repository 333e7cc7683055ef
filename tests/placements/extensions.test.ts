// Extending a stay: an addendum held, priced by the signed terms, signed, paid, then in effect; a
// declined one leaves the stay as it was; a race with another placement for the added nights.
import { describe, expect, it } from 'vitest';
import { openClaim } from '../claims/fixtures.ts';
import { client, createKey, ownerSql } from '../helpers.ts';
import { clockAt, drainJobs, events, inDays, scene, type Api } from './fixtures.ts';

const tiers = { rent_1_3_months_cents: 250_000, rent_4_6_months_cents: 200_000 };

/** A booked stay on a home whose rent tiers fall with length: by default 2,500 a month for 1-3 months, 2,000 for 4-6. */
async function booked(moveIn = inDays(40), moveOut = inDays(130), home: Record<string, number | boolean> = tiers) {
  const s = await scene();
  await ownerSql()`update app.properties set ${ownerSql()(home)} where id = ${s.home}`;
  expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
  expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: moveIn, move_out: moveOut })).status).toBe(200);
  await drainJobs(s.c.orgId);
  await signBoth(s.api, s.ref, s.home);
  expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
  return s;
}

async function signBoth(api: Api, ref: string, home: string) {
  for (const who of ['household', 'landlord']) {
    const res = await api.post(`/sandbox/claims/${ref}/homes/${home}/${who}`, { action: 'sign' });
    expect(res.status, `${who}: ${res.text}`).toBe(200);
  }
}

describe('POST /claims/{reference}/extensions', () => {
  it('holds the added nights, prices them by the signed terms, goes out for signature, and takes effect when paid', async () => {
    const s = await booked();
    // The provider raises its rate after signing: the extension is priced by the signed terms.
    await ownerSql()`update app.properties set monthly_rate_cents = 990000 where id = ${s.home}`;
    const asked = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) });
    expect(asked.status, asked.text).toBe(201);
    const extension = asked.body.data;
    // 30 added nights make a 120-night stay: the 4-6 month tier of the signed terms (2,000 a month; the
    // signed 90 nights keep 2,500), about a month's rent for the added nights.
    expect(extension).toMatchObject({
      property_id: s.home, status: 'awaiting_signature', previous_move_out_date: inDays(130), move_out_date: inDays(160), added_nights: 30,
      tier: 'rent_4_6_months', monthly_rent: 2000, currency: 'usd', effective_at: null,
    });
    expect(extension.amount).toBeGreaterThan(1900);
    expect(extension.amount).toBeLessThan(2100);
    expect(extension.lines[0]).toEqual({ label: 'Rent, 30 added nights', amount: expect.any(Number) });
    expect(extension.budget).toMatchObject({ currency: 'usd' });
    // The same call again answers the open extension; another move-out is refused while it is open.
    expect((await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) })).body.data.id).toBe(extension.id);
    expect((await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(170) })).body.error?.code).toBe('extension_pending');
    const holds = await ownerSql()`select start_date, end_date, held_for from app.availability_blocks where lease_agreement_id = ${extension.id}`;
    expect(holds).toEqual([{ start_date: inDays(130), end_date: inDays(159), held_for: 'lease' }]);

    // Not payable before both sign: the payment helper pays nothing new (the first month is paid).
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' })).body.error?.code).toBe('nothing_due');
    await drainJobs(s.c.orgId);
    await signBoth(s.api, s.ref, s.home);
    const listed = (await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: extension.id, status: 'awaiting_payment', addendum: expect.objectContaining({ status: 'fully_signed' }) })]);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('booking_confirmed');

    const paid = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    expect(paid.status, paid.text).toBe(200);
    const [payment] = await ownerSql()<{ charge_type: string; gross_cents: string; lease_agreement_id: string }[]>`
      select charge_type, gross_cents, lease_agreement_id from app.payments where claim_id = ${s.claim.id} and charge_type = 'extension'`;
    expect(payment).toMatchObject({ lease_agreement_id: extension.id });
    expect(Number(payment.gross_cents) / 100).toBe(extension.amount);
    expect((await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data[0]).toMatchObject({ status: 'in_effect', effective_at: expect.any(String) });

    // The stay now ends on the new move-out, for both sides; the signed lease is untouched.
    const providerApi = client((await createKey(s.providerOrg, 'sandbox')).key);
    expect((await providerApi.get('/properties/bookings')).body.data[0]).toMatchObject({ check_out: inDays(160), booking_status: 'confirmed' });
    expect((await events(s.providerOrg, 'booking.updated')).map((e) => e.payload.change)).toEqual(['dates_changed']);
    expect((await events(s.c.orgId, 'payment.succeeded')).map((e) => e.payload.charge_type)).toEqual(['initial', 'extension']);
    expect((await events(s.c.orgId, 'booking.dates_changed')).map((e) => e.payload)).toEqual([expect.objectContaining({
      change: 'extended', extension_id: extension.id, previous_move_out_date: inDays(130), move_out_date: inDays(160), amount: extension.amount, refund_due: null,
    })]);
    expect((await events(s.c.orgId, 'lease.signed')).map((e) => e.payload.lease_id)).toContain(extension.id);
    const [lease] = await ownerSql()`select move_out_date, status from app.lease_agreements where claim_id = ${s.claim.id} and kind = 'lease'`;
    expect(lease).toEqual({ move_out_date: inDays(130), status: 'fully_signed' });
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data;
    expect(timeline.find((e: any) => e.type === 'dates.changed')?.detail).toMatchObject({ extended: true, previous_move_out_date: inDays(130), move_out_date: inDays(160) });
    expect(timeline.filter((e: any) => e.type === 'lease.signed_by_owner').map((e: any) => e.summary)).toEqual([
      expect.stringMatching(/^Lease/), expect.stringMatching(/^Extension addendum/),
    ]);
    const holdsAfter = await ownerSql()`select held_for from app.availability_blocks where lease_agreement_id = ${extension.id}`;
    expect(holdsAfter).toEqual([{ held_for: 'booking' }]);
    // The closeout moved to the new move-out.
    const closeouts = await ownerSql()<{ payload: any }[]>`select payload from app.jobs where org_id = ${s.c.orgId} and kind = 'close_stay' order by created_at`;
    expect(closeouts.map((j) => j.payload.move_out)).toEqual([inDays(130), inDays(160)]);
  });

  it('declined by the landlord: withdrawn, its nights released, the stay as it was', async () => {
    const s = await booked();
    const asked = (await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(200) })).body.data;
    await drainJobs(s.c.orgId);
    const declined = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'decline_extension' });
    expect(declined.status, declined.text).toBe(200);
    expect((await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data[0]).toMatchObject({ id: asked.id, status: 'withdrawn' });
    expect(await ownerSql()`select 1 from app.availability_blocks where lease_agreement_id = ${asked.id}`).toHaveLength(0);
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'decline_extension' })).body.error?.code).toBe('lease_not_signable');
    const other = await openClaim(s.api, { target_move_in: inDays(130), est_length_months: 1 });
    expect((await s.api.post(`/claims/${other.claim_ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    expect((await s.api.post(`/claims/${other.claim_ref}/dates`, { property_id: s.home, move_in: inDays(130), move_out: inDays(170) })).status).toBe(200);
    const placement = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(placement.lease).toMatchObject({ move_out_date: inDays(130), status: 'fully_signed' });
  });

  it('refuses what does not fit: not booked, a move-out not later, nights held by another stay', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const early = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) });
    expect([early.status, early.body.error?.code]).toEqual([409, 'not_booked']);
    const b = await booked();
    const notLater = await b.api.post(`/claims/${b.ref}/extensions`, { property_id: b.home, move_out: inDays(130) });
    expect(notLater.body.error).toMatchObject({ code: 'invalid_field', field: 'move_out' });
    expect((await b.api.post(`/claims/${b.ref}/extensions`, { property_id: b.home })).body.error).toMatchObject({ code: 'invalid_field', field: 'move_out' });
    expect((await b.api.post(`/claims/${b.ref}/extensions`, { property_id: b.home, move_out: inDays(150), extra: 1 })).status).toBe(422);
    const other = await openClaim(b.api, { target_move_in: inDays(150), est_length_months: 1 });
    expect((await b.api.post(`/claims/${other.claim_ref}/options`, { property_id: b.home, action: 'place', approve_budget: true })).status).toBe(200);
    expect((await b.api.post(`/claims/${other.claim_ref}/dates`, { property_id: b.home, move_in: inDays(150), move_out: inDays(190) })).status).toBe(200);
    const taken = await b.api.post(`/claims/${b.ref}/extensions`, { property_id: b.home, move_out: inDays(160) });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'dates_unavailable', conflicts: [{ start_date: inDays(150), end_date: inDays(189), reason: 'held for another placement' }] });
    const unknown = await b.api.post(`/claims/${b.ref}/extensions`, { property_id: crypto.randomUUID(), move_out: inDays(160) });
    expect(unknown.status).toBe(409);
    expect(unknown.body.error?.code).toBe('not_on_request');
  });

  it('an extension and a new placement racing for the same nights: exactly one holds them', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await booked();
      const other = await openClaim(s.api, { target_move_in: inDays(150), est_length_months: 1 });
      expect((await s.api.post(`/claims/${other.claim_ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
      const [extension, dates] = await Promise.all([
        s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(170) }),
        s.api.post(`/claims/${other.claim_ref}/dates`, { property_id: s.home, move_in: inDays(150), move_out: inDays(200) }),
      ]);
      expect([extension.status === 201, dates.status === 200].filter(Boolean)).toHaveLength(1);
      expect([extension.body.error?.code, dates.body.error?.code].filter(Boolean)).toEqual(['dates_unavailable']);
      const holds = await ownerSql()<{ start_date: string; end_date: string }[]>`
        select start_date, end_date from app.availability_blocks where property_id = ${s.home} and source = 'service' order by start_date`;
      for (let i = 1; i < holds.length; i++) expect(holds[i].start_date > holds[i - 1].end_date).toBe(true);
    }
  });
});

const day = (from: string, days: number) => new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const noon = (iso: string) => ({ frozen_time: `${iso}T12:00:00Z` });

/**
 * A stay of 90 nights at 3,000 a month (2,400 from 4 months), utilities 200, deposit 1,500, fees
 * 150 + 50: booked and paid, then moved in on the sandbox clock (set at the move-in, after the
 * booking), the clock on day 10.
 */
async function movedIn() {
  const moveIn = inDays(40);
  const s = await booked(moveIn, day(moveIn, 90), {
    monthly_rate_cents: 300_000, rent_1_3_months_cents: 300_000, rent_4_6_months_cents: 240_000,
    utilities_included: false, utilities_monthly_cents: 20_000, cleaning_fee_cents: 15_000, application_fee_cents: 5_000,
  });
  await clockAt(s.api, moveIn);
  expect((await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home })).status).toBe(200);
  expect((await s.api.post('/sandbox/clock/advance', noon(day(moveIn, 10)))).status).toBe(200);
  return { ...s, moveIn };
}

const statement = async (s: { api: Api; ref: string; home: string }) => (await s.api.get(`/claims/${s.ref}/statement?property_id=${s.home}`)).body.data;

describe('extending a stay shortened after move-in', () => {
  it("the shortening answers the lease as the placement read shows it: the signed move-out, and the stay's new end beside it", async () => {
    const s = await movedIn();
    const shortened = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: s.moveIn, move_out: day(s.moveIn, 21) });
    expect(shortened.status, shortened.text).toBe(200);
    const lease = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].lease!;
    expect(lease).toMatchObject({ move_out_date: day(s.moveIn, 90), shortened_move_out_date: day(s.moveIn, 21) });
    // Before: the answer said move_out_date day 21 where the placement read said day 90.
    expect(shortened.body.data).toEqual({
      id: lease.id, move_in_date: s.moveIn, move_out_date: lease.move_out_date, status: 'fully_signed', shortened_move_out_date: lease.shortened_move_out_date,
    });
    // The same shortening again answers the same.
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: s.moveIn, move_out: day(s.moveIn, 21) })).body.data).toEqual(shortened.body.data);
  });

  it('an extension that only takes back the released nights takes effect when signed and closes out on its move-out', async () => {
    const s = await movedIn();
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: s.moveIn, move_out: day(s.moveIn, 21) })).status).toBe(200);
    const asked = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: day(s.moveIn, 90) });
    expect([asked.status, asked.body.data.amount]).toEqual([201, 0]);
    await drainJobs(s.c.orgId);
    await signBoth(s.api, s.ref, s.home);
    expect((await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data[0].status).toBe('in_effect');
    // Past the move-out on the clock. Before: the booking stayed confirmed and the request in_stay.
    expect((await s.api.post('/sandbox/clock/advance', noon(day(s.moveIn, 91)))).status).toBe(200);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('move_out_closeout');
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].booking).toMatchObject({ booking_status: 'completed', check_out: day(s.moveIn, 90) });
  });

  it("the extension's budget is what the ledger charges for the extended stay: the nights signed before at their signed tier", async () => {
    const s = await movedIn();
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: s.moveIn, move_out: day(s.moveIn, 21) })).status).toBe(200);
    const asked = (await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: day(s.moveIn, 120) })).body.data;
    await drainJobs(s.c.orgId);
    await signBoth(s.api, s.ref, s.home);
    const signed = (await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data[0];
    const ledger = await statement(s);
    // The 90 signed nights at 3,000, the extension's own 30 at 2,400. Before: every night at 2,400.
    expect(signed.budget.totals.cost_of_stay).toBe(ledger.ale.ale_consumed);
    expect(signed.budget.against_budget.ale_consumed_by_stay).toBe(ledger.ale.ale_consumed);
    expect(signed.budget.totals.first_payment).toBe(ledger.payments[0].amount);
    // Before both signed it showed what its signing would post: the same figures.
    expect(asked.budget.totals).toEqual(signed.budget.totals);
    expect(signed.budget.monthly).toMatchObject({ rent_tier: 2400, tier_applied: 'rent_4_6_months' });
  });

  it('a shortening inside the nights of a signed, unpaid extension says to pay it first; paid, the shortening releases those nights from its charge', async () => {
    const s = await movedIn();
    expect((await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: day(s.moveIn, 120) })).status).toBe(201);
    await drainJobs(s.c.orgId);
    await signBoth(s.api, s.ref, s.home);
    const inside = { property_id: s.home, move_in: s.moveIn, move_out: day(s.moveIn, 100) };
    // Before: 422 invalid_field "move_in must not be in the past." (409 already_signed on the move-in day).
    const refused = await s.api.post(`/claims/${s.ref}/dates`, inside);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'extension_pending', field: 'move_out', message: expect.stringContaining('Pay the extension') });
    expect((await statement(s)).entries.filter((e: { kind: string }) => e.kind === 'release')).toHaveLength(0);

    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
    const shortened = await s.api.post(`/claims/${s.ref}/dates`, inside);
    expect(shortened.status, shortened.text).toBe(200);
    const released = (await statement(s)).entries.filter((e: { kind: string }) => e.kind === 'release');
    expect(released.map((e: any) => [e.charge_type, e.nights.first_night])).toEqual([['extension', day(s.moveIn, 100)], ['extension', day(s.moveIn, 100)]]);
  });

  // Before: the extension stayed open; signed and paid it ran the stay to its move-out, and the nights
  // from the shortened move-out to its first night were never charged.
  it.each(['unsigned', 'signed and unpaid'])('a shortening before the nights of a %s extension withdraws it: no night of the stay goes uncharged', async (state) => {
    const s = await movedIn();
    const ext = (await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: day(s.moveIn, 120) })).body.data;
    await drainJobs(s.c.orgId);
    if (state !== 'unsigned') await signBoth(s.api, s.ref, s.home);
    const before = await statement(s);

    const shortened = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: s.moveIn, move_out: day(s.moveIn, 45) });
    expect(shortened.status, shortened.text).toBe(200);
    const [withdrawn] = (await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data;
    expect(withdrawn).toMatchObject({ id: ext.id, status: 'withdrawn' });
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data;
    expect(timeline.find((e: { type: string }) => e.type === 'extension.stay_shortened')?.summary)
      .toBe(`The extension to ${day(s.moveIn, 120)} was withdrawn: the stay was shortened before it took effect.`);
    // Nothing of it is left to sign or pay; the stay is charged to the new move-out only.
    const sign = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' });
    expect(sign.status, sign.text).toBe(409);
    const after = await statement(s);
    const charged = (st: typeof after) => st.entries
      .filter((e: { charge_type: string; kind: string }) => e.charge_type === 'extension' && e.kind !== 'payment' && e.kind !== 'refund')
      .reduce((sum: number, e: { amount: number }) => sum + Math.round(e.amount * 100), 0);
    expect(charged(after), 'what the extension charged is released whole').toBe(0);
    if (state !== 'unsigned') expect(charged(before)).toBeGreaterThan(0);
    const again = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: day(s.moveIn, 120) });
    expect(again.status, again.text).toBe(201);
    expect(again.body.data).toMatchObject({ previous_move_out_date: day(s.moveIn, 45), move_out_date: day(s.moveIn, 120), added_nights: 75 });
  });
});
