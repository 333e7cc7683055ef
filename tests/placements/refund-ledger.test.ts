// Money that goes back, through the HTTP surface: every refund is an entry of the stay's ledger that
// says what it returns, so a stay shortened, refunded and extended again pays what the same final
// dates booked directly pay, to the cent, for each payer.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { insertHome, openClaim } from '../claims/fixtures.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import { findOption } from '../../shared/placements/option-repository.ts';
import { postPayment, type SettledPayment } from '../../shared/placements/stay-ledger.ts';
import { ownerSql } from '../helpers.ts';
import { clockAt, drainJobs, events, inDays, scene, type Api } from './fixtures.ts';
import { cents, day, ok, payDue, refund, signBoth, statement, type Scene, type Stay } from './stay-fixtures.ts';

interface Totals { charged: number; paid: number; refunded: number; due_now: number; refund_due: number }

/** What each payer paid net of refunds, in cents. */
async function netPaid(api: Api, stay: Stay): Promise<Record<string, number>> {
  const s = await statement(api, stay);
  return Object.fromEntries(s.by_payer.map((t: Totals & { payer: string }) => [t.payer, cents(t.paid) - cents(t.refunded)]));
}

/** A home at 3,000 a month with utilities 200, a deposit of 1,500 and fees of 150 + 50, placed on a new request, dated and signed by both. */
async function signedStay(s: Scene, moveIn: string, nights: number, claim: Record<string, unknown> = {}): Promise<Stay> {
  const home = await insertHome(s.providerOrg, { environment: 'sandbox', monthly_rate_cents: 300_000, cleaning_fee_cents: 15_000 });
  await ownerSql()`update app.properties set utilities_included = false, utilities_monthly_cents = 20000, application_fee_cents = 5000 where id = ${home}`;
  const request = await openClaim(s.api, { target_move_in: moveIn, est_length_months: 3, ...claim });
  await ok(s.api.post(`/claims/${request.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true }));
  await ok(s.api.post(`/claims/${request.claim_ref}/dates`, { property_id: home, move_in: moveIn, move_out: day(moveIn, nights) }));
  await drainJobs(s.c.orgId);
  const stay = { ref: request.claim_ref, home };
  await signBoth(s.api, stay);
  return stay;
}

/** Two stays of one scene from the same day: the one changed along the way, and the final dates booked directly. */
async function twoStays(nights: number, finalNights: number, claim: Record<string, unknown> = {}) {
  const s = await scene();
  const moveIn = inDays(40);
  const changed = await signedStay(s, moveIn, nights, claim);
  const direct = await signedStay(s, moveIn, finalNights, claim);
  for (const stay of [changed, direct]) await payDue(s.api, stay);
  await clockAt(s.api, moveIn);
  for (const stay of [changed, direct]) await ok(s.api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: stay.home }));
  // The second month begins and is paid on its first day.
  await clockAt(s.api, day(moveIn, 32));
  for (const stay of [changed, direct]) await payDue(s.api, stay);
  return { s, moveIn, changed, direct };
}

const shorten = (s: Scene, stay: Stay, moveIn: string, nights: number) =>
  ok(s.api.post(`/claims/${stay.ref}/dates`, { property_id: stay.home, move_in: moveIn, move_out: day(moveIn, nights) }));

async function extend(s: Scene, stay: Stay, moveIn: string, nights: number) {
  const res = await ok(s.api.post(`/claims/${stay.ref}/extensions`, { property_id: stay.home, move_out: day(moveIn, nights) }), 201);
  await drainJobs(s.c.orgId);
  await signBoth(s.api, stay);
  return res.data;
}

/** Both stays paid through their last night: then each has paid for every night it has. */
async function payToTheEnd(s: Scene, moveIn: string, finalNights: number, ...stays: Stay[]) {
  await clockAt(s.api, day(moveIn, finalNights - 1));
  for (const stay of stays) await payDue(s.api, stay);
  for (const stay of stays) expect((await statement(s.api, stay)).totals).toMatchObject({ due_now: 0, refund_due: 0 });
}

describe('refunds are entries of the stay\'s ledger', () => {
  it('100 nights, month 2 paid, shortened to 45, that refunded, extended to 80: pays what 80 nights booked directly pay', async () => {
    const { s, moveIn, changed, direct } = await twoStays(100, 80);
    await shorten(s, changed, moveIn, 45);
    const owed = (await statement(s.api, changed)).totals.refund_due;
    expect(owed).toBeGreaterThan(0);
    const asked = await refund(s, changed);
    // Amounts in major units beside the specification's cents; the default is what is owed back.
    expect(asked).toMatchObject({ amount: owed, amount_cents: cents(owed), purpose: 'owed_back', goodwill: false, payer: 'carrier' });
    expect((await statement(s.api, changed)).totals).toMatchObject({ refund_due: 0, refunded: owed });
    // The extension takes the refunded nights back: they are due again, with it.
    const extension = await extend(s, changed, moveIn, 80);
    expect(extension.amount).toBeGreaterThanOrEqual(owed);
    await payDue(s.api, changed);
    await payToTheEnd(s, moveIn, 80, changed, direct);
    expect(await netPaid(s.api, changed)).toEqual(await netPaid(s.api, direct));
    const st = await statement(s.api, changed);
    expect(cents(st.totals.paid) - cents(st.totals.refunded)).toBe(cents(st.totals.charged));
  });

  it('shortened twice, refunded, extended past the first move-out', async () => {
    const { s, moveIn, changed, direct } = await twoStays(100, 110);
    await shorten(s, changed, moveIn, 60);
    await shorten(s, changed, moveIn, 45);
    await refund(s, changed);
    await extend(s, changed, moveIn, 110);
    await payDue(s.api, changed);
    await payToTheEnd(s, moveIn, 110, changed, direct);
    expect(await netPaid(s.api, changed)).toEqual(await netPaid(s.api, direct));
  });

  it('extended and paid, shortened into the extension, its payment partly refunded, extended again', async () => {
    const { s, moveIn, changed, direct } = await twoStays(62, 130);
    await extend(s, changed, moveIn, 100);
    await payDue(s.api, changed);
    await shorten(s, changed, moveIn, 80);
    const owed = (await statement(s.api, changed)).totals.refund_due;
    expect(owed).toBeGreaterThan(0);
    // Part of what is owed back, on the extension's own payment.
    const payments = (await statement(s.api, changed)).payments;
    await refund(s, changed, { payment_id: payments.at(-1).id, amount: Math.floor(owed / 2) });
    expect((await statement(s.api, changed)).totals.refund_due).toBeCloseTo(owed - Math.floor(owed / 2), 2);
    await refund(s, changed);
    await extend(s, changed, moveIn, 130);
    await payDue(s.api, changed);
    // The direct stay signed 130 nights at one tier; the changed one's extensions priced their nights
    // at the extended stay's tier: the same tier here, so the same money.
    await payToTheEnd(s, moveIn, 130, changed, direct);
    expect(await netPaid(s.api, changed)).toEqual(await netPaid(s.api, direct));
  });

  it('split payers: each payer\'s refund_due refunded, extended back; each pays what it pays booked directly', async () => {
    const split = { rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: 'policyholder', has_pets: true, number_of_pets: 1, pet_details: 'A calm dog', pet_breeds: ['Labrador'] };
    const { s, moveIn, changed, direct } = await twoStays(100, 80, split);
    await shorten(s, changed, moveIn, 45);
    const owing = (await statement(s.api, changed)).by_payer.filter((t: Totals) => t.refund_due > 0);
    expect(owing.map((t: { payer: string }) => t.payer).sort()).toEqual(['carrier', 'policyholder']);
    // One request at a time: the defaults refund one payer what it is owed back, then the other.
    const first = await refund(s, changed);
    const second = await refund(s, changed);
    expect([first.payer, second.payer].sort()).toEqual(['carrier', 'policyholder']);
    for (const asked of [first, second]) expect(asked.amount).toBe(owing.find((t: { payer: string }) => t.payer === asked.payer).refund_due);
    expect((await statement(s.api, changed)).totals.refund_due).toBe(0);
    await extend(s, changed, moveIn, 80);
    await payDue(s.api, changed);
    await payToTheEnd(s, moveIn, 80, changed, direct);
    expect(await netPaid(s.api, changed)).toEqual(await netPaid(s.api, direct));
  });

  it('a refund asked, left unanswered while the stay is extended back, then approved: returns only what is owed then (nothing)', async () => {
    const { s, moveIn, changed, direct } = await twoStays(100, 80);
    await shorten(s, changed, moveIn, 45);
    await ok(s.api.post(`/claims/${changed.ref}/refund-request`, { property_id: changed.home }), 202);
    await extend(s, changed, moveIn, 80);
    expect((await statement(s.api, changed)).totals.refund_due).toBe(0);
    // Before: the approval still paid out 1,754.84.
    const approved = await s.api.post(`/sandbox/claims/${changed.ref}/homes/${changed.home}/landlord`, { action: 'approve_refund' });
    expect(approved.status).toBe(409);
    expect(approved.body.error).toMatchObject({ code: 'nothing_to_refund', message: expect.stringContaining('Decline') });
    await ok(s.api.post(`/sandbox/claims/${changed.ref}/homes/${changed.home}/landlord`, { action: 'decline_refund' }));
    await payDue(s.api, changed);
    await payToTheEnd(s, moveIn, 80, changed, direct);
    expect(await netPaid(s.api, changed)).toEqual(await netPaid(s.api, direct));
  });

  it('shortened, then a refund with the defaults: returns what is owed back, never the nights kept', async () => {
    const { s, moveIn, changed, direct } = await twoStays(100, 45);
    await shorten(s, changed, moveIn, 45);
    const owed = (await statement(s.api, changed)).totals.refund_due;
    const asked = await refund(s, changed);
    // Before: the whole month-2 payment (3,200) came back, and the 14 nights kept were never due again.
    expect(asked.amount).toBe(owed);
    await payToTheEnd(s, moveIn, 45, changed, direct);
    expect(await netPaid(s.api, changed)).toEqual(await netPaid(s.api, direct));
    // Asking more than is owed back is refused, naming what is owed; nothing is left to ask for.
    const [latest] = (await statement(s.api, changed)).payments.slice(-1);
    const more = await s.api.post(`/claims/${changed.ref}/refund-request`, { property_id: changed.home, payment_id: latest.id, amount: 10 });
    expect(more.status).toBe(422);
    expect(more.body.error).toMatchObject({ code: 'invalid_field', field: 'amount', message: expect.stringContaining('0 USD is owed back') });
    expect((await s.api.post(`/claims/${changed.ref}/refund-request`, { property_id: changed.home })).body.error?.code).toBe('nothing_to_refund');
    expect((await s.api.post(`/claims/${changed.ref}/refund-request`, { property_id: changed.home, amount: 10 })).body.error?.code).toBe('nothing_to_refund');
  });

  it('goodwill beyond what is owed back, on the same part of the same charge: returns all it was approved for, and nothing stays owed', async () => {
    const { s, moveIn, changed } = await twoStays(100, 45);
    await shorten(s, changed, moveIn, 45);
    const owed = (await statement(s.api, changed)).totals.refund_due;
    const [latest] = (await statement(s.api, changed)).payments.slice(-1);
    // What is owed back is the month-2 payment's rent; 100 more of that rent as goodwill.
    const asked = await refund(s, changed, { payment_id: latest.id, amount: owed + 100, goodwill: true });
    expect(asked.amount).toBeCloseTo(owed + 100, 2);
    const after = await statement(s.api, changed);
    // Before: the goodwill's own refund entry was dropped (one entry per request, charge and part), so
    // only what was owed back came back and the goodwill showed as owed back instead.
    expect(after.totals).toMatchObject({ refund_due: 0 });
    expect(cents(after.totals.refunded)).toBe(cents(owed + 100));
    const entries = after.entries.filter((e: { refund_request_id: string; kind: string }) => e.refund_request_id === asked.refund_request_id && e.kind === 'refund');
    expect(entries.reduce((sum: number, e: { amount: number }) => sum + cents(e.amount), 0)).toBe(cents(owed + 100));
  });

  it('a deposit returned is its own refund: rent owed back stays owed back; the service fee returned is 8 % of the rent returned', async () => {
    const { s, moveIn, changed } = await twoStays(100, 100);
    await shorten(s, changed, moveIn, 45);
    const owed = (await statement(s.api, changed)).totals.refund_due;
    const deposit = await refund(s, changed, { purpose: 'deposit' });
    expect(deposit).toMatchObject({ purpose: 'deposit', amount: 1500 });
    const after = await statement(s.api, changed);
    // Before: a refund of 1,500 meant as the deposit lowered refund_due for the released rent by 1,500.
    expect(after.totals.refund_due).toBe(owed);
    expect(after.entries.filter((e: { cause: string }) => e.cause === 'deposit_returned').map((e: { amount: number }) => e.amount)).toEqual([-1500]);
    expect((await s.api.post(`/claims/${changed.ref}/refund-request`, { property_id: changed.home, purpose: 'deposit' })).body.error?.code).toBe('nothing_to_refund');
    // Rent only: 1,000 of the rent owed back returns 80 of service fee (8 %), not a share of a payment with the deposit in it.
    const rent = await refund(s, changed, { amount: 1000 });
    const refundedEntries = (await statement(s.api, changed)).entries.filter((e: { refund_request_id: string; kind: string }) => e.refund_request_id === rent.refund_request_id && e.kind === 'refund');
    expect(refundedEntries.map((e: { part: string; amount: number }) => [e.part, e.amount])).toEqual([['rent', 1000]]);
    const timeline = (await ok(s.api.get(`/claims/${changed.ref}/timeline`))).data;
    expect(timeline.find((e: { type: string; detail: { refund_request_id?: string } }) => e.type === 'payment.refunded' && e.detail.refund_request_id === rent.refund_request_id))
      .toMatchObject({ detail: { amount: 1000, platform_fee_refunded: 80 } });
    const deposits = timeline.filter((e: { type: string }) => e.type === 'deposit.refund_requested');
    expect(deposits.find((e: { detail: { refund_request_id: string } }) => e.detail.refund_request_id === deposit.refund_request_id).summary).toContain('Return of the deposit');
    // The landlord is told of each request as it is asked.
    expect((await events(s.providerOrg, 'refund.requested')).map((e) => e.payload.purpose)).toEqual(['deposit', 'owed_back']);
  });
});

describe('a stay closed out', () => {
  it('a period paid after the closeout books nothing again; a cancellation then gives back nothing of the stay lived', async () => {
    const s = await scene();
    // The organisation's clock from the start, so the stay's closeout is queued on it: at noon
    // tomorrow, as today's noon is in the past (and refused) for a run in the afternoon.
    await clockAt(s.api, inDays(1));
    const moveIn = inDays(40);
    const stay = await signedStay(s, moveIn, 45);
    await payDue(s.api, stay);
    await ok(s.api.post('/sandbox/clock/advance', { frozen_time: `${moveIn}T12:00:00Z` }));
    await ok(s.api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: stay.home }));
    // Past the move-out with the second period unpaid: the stay closes out, then the period is paid late.
    await ok(s.api.post('/sandbox/clock/advance', { frozen_time: `${day(moveIn, 46)}T12:00:00Z` }));
    await drainJobs(s.c.orgId);
    await payDue(s.api, stay);
    const paid = await statement(s.api, stay);
    expect(paid.totals).toMatchObject({ due_now: 0, refund_due: 0 });
    // Before: the late payment found no confirmed booking and confirmed a second one, never moved into.
    const bookings = await ownerSql()<{ booking_status: string }[]>`select booking_status from app.bookings where property_id = ${stay.home}`;
    expect(bookings.map((b) => b.booking_status)).toEqual(['completed']);
    // So a cancellation after it gave back the whole stay lived (4,267.80 of rent owed back, in the property test's case).
    await ok(s.api.post(`/claims/${stay.ref}/cancel-booking`, { property_id: stay.home, force: true }));
    expect((await statement(s.api, stay)).totals).toMatchObject({ charged: paid.totals.charged, refund_due: 0 });
  });
});

describe('a cancellation after a goodwill refund', () => {
  it('before move-in: the stay charges nothing, and all that is left of what was paid is owed back', async () => {
    const s = await scene();
    const stay = await signedStay(s, inDays(40), 60);
    await payDue(s.api, stay);
    await refund(s, stay, { amount: 840, goodwill: true });
    await ok(s.api.post(`/claims/${stay.ref}/cancel-booking`, { property_id: stay.home, force: true }));
    const after = await statement(s.api, stay);
    // Before: the goodwill's release stayed when the nights were reversed, so the stay charged -840.00.
    expect(after.totals.charged).toBe(0);
    expect(cents(after.totals.refund_due)).toBe(cents(after.totals.paid) - cents(after.totals.refunded));
    expect(after.ale.ale_consumed).toBe(0);
  });
});

describe('existing stays keep their figures', () => {
  it('a stay whose payments and refunds were recorded before the ledger held them reads the same statement once the migration posts them', async () => {
    const { s, moveIn, changed } = await twoStays(100, 45);
    await shorten(s, changed, moveIn, 45);
    await refund(s, changed);
    const before = await statement(s.api, changed);
    // As before the migration: the stay's charges are in the ledger, its payments and refunds only in their own rows.
    const [{ id: placementId }] = await ownerSql()<{ id: string }[]>`select id from app.claim_options where property_id = ${changed.home}`;
    await ownerSql()`delete from app.ledger_entries where claim_option_id = ${placementId} and kind in ('payment', 'refund')`;
    expect((await statement(s.api, changed)).totals.paid).toBe(0);
    // The migration's backfill, for this stay only (other suites' stays are posted already and share the database),
    // on today's columns: it was written when the columns pointing at an option were named claim_home_id.
    const file = await readFile(new URL('../../migrations/20261128044939_settlements_backfill_owed_back_first.sql', import.meta.url), 'utf8');
    const backfill = file.slice(file.indexOf('-- Existing stays keep their figures'))
      .replaceAll('claim_home_id', 'claim_option_id')
      .replaceAll('from app.payments p', `from (select * from app.payments where claim_option_id = '${placementId}') p`)
      .replaceAll('from app.refund_requests r', `from (select * from app.refund_requests where claim_option_id = '${placementId}') r`);
    await ownerSql().unsafe(backfill);
    const after = await statement(s.api, changed);
    expect(after.totals).toEqual(before.totals);
    expect(after.by_payer).toEqual(before.by_payer);
    expect(after.payments).toEqual(before.payments);
  });
});

describe('reading never posts', () => {
  it('a stay signed before the ledger existed is posted by its job (or its next change), never by a read', async () => {
    const s = await scene();
    const stay = await signedStay(s, inDays(40), 60);
    const direct = await statement(s.api, stay);
    const [{ id: placementId }] = await ownerSql()<{ id: string }[]>`select id from app.claim_options where property_id = ${stay.home}`;
    const entries = () => ownerSql()<{ n: number }[]>`select count(*)::int as n from app.ledger_entries where claim_option_id = ${placementId}`;
    // As signed before the ledger existed: nothing posted.
    await ownerSql()`delete from app.ledger_entries where claim_option_id = ${placementId}`;
    for (let read = 0; read < 2; read++) expect((await statement(s.api, stay)).entries).toEqual([]);
    await ok(s.api.get(`/claims/${stay.ref}/placement`));
    expect((await entries())[0].n).toBe(0);
    // The migration queues a job per such stay; it posts what the signing would have.
    await ownerSql()`insert into app.jobs (kind, org_id, environment, payload) values ('post_signed_charges', ${s.c.orgId}, 'sandbox', ${ownerSql().json({ placement_id: placementId })})`;
    await drainJobs(s.c.orgId);
    const posted = await statement(s.api, stay);
    expect(posted.totals).toEqual(direct.totals);
    expect(posted.entries.map((e: { label: string; amount: number }) => [e.label, e.amount])).toEqual(direct.entries.map((e: { label: string; amount: number }) => [e.label, e.amount]));
  });
});

describe('an entry posted twice', () => {
  it('a payment posted again collides with the entry already posted and fails its command: nothing dropped in silence, nothing counted twice', async () => {
    const s = await scene();
    const stay = await signedStay(s, inDays(40), 60);
    await payDue(s.api, stay);
    const before = await statement(s.api, stay);
    const [payment] = await ownerSql()<(SettledPayment & { claim_id: string })[]>`
      select p.* from app.payments p join app.claim_options h on h.id = p.claim_option_id
       where h.property_id = ${stay.home} and p.status = 'succeeded'`;
    // As a second path settling the same processor payment would post it, under the placement's lock.
    const again = withTenant({ orgId: s.c.orgId, environment: 'sandbox' }, async (tx) => {
      const placement = await findOption(tx, payment.claim_id, stay.home);
      await postPayment(tx, placement!, payment);
    });
    await expect(again).rejects.toMatchObject({ code: '23505', constraint_name: 'ledger_entries_paid_once' });
    expect(await statement(s.api, stay)).toEqual(before);
  });
});
