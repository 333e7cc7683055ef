// The stay's ledger through the HTTP surface: every night paid once however the stay changes, and
// the statement an adjuster files (GET /claims/{reference}/statement).
import { describe, expect, it } from 'vitest';
import { openClaim, insertHome } from '../claims/fixtures.ts';
import { call, createKey, client, ownerSql } from '../helpers.ts';
import { clockAt, drainJobs, inDays, scene, type Api } from './fixtures.ts';

const day = (from: string, days: number) => new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function signBoth(api: Api, ref: string, home: string) {
  for (const who of ['household', 'landlord']) {
    const res = await api.post(`/sandbox/claims/${ref}/homes/${home}/${who}`, { action: 'sign' });
    if (res.status !== 200) throw new Error(`${who} sign: ${res.status} ${res.text}`);
  }
}

/** Pays everything due now on the home, charge after charge; answers how many payments that took. */
async function payDue(api: Api, ref: string, home: string): Promise<number> {
  for (let paid = 0; ; paid++) {
    const res = await api.post(`/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded' });
    if (res.status === 409 && res.body.error?.code === 'nothing_due') return paid;
    expect(res.status, res.text).toBe(200);
  }
}

const statement = async (api: Api, ref: string, home: string) => {
  const res = await api.get(`/claims/${ref}/statement?property_id=${home}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

/** Places a flat-rate home on a new request of the scene's carrier, dated and signed by both. */
async function signedStay(s: Awaited<ReturnType<typeof scene>>, moveIn: string, moveOut: string) {
  const home = await insertHome(s.providerOrg, { environment: 'sandbox', monthly_rate_cents: 300_000 });
  const claim = await openClaim(s.api, { target_move_in: moveIn, est_length_months: 3 });
  expect((await s.api.post(`/claims/${claim.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
  expect((await s.api.post(`/claims/${claim.claim_ref}/dates`, { property_id: home, move_in: moveIn, move_out: moveOut })).status).toBe(200);
  await drainJobs(s.c.orgId);
  await signBoth(s.api, claim.claim_ref, home);
  return { ref: claim.claim_ref, home };
}

/** A 100-night stay of a new scene, its first month paid, moved in, the clock on day 32 (the second month begun, unpaid). */
async function movedInStay() {
  const s = await scene();
  const moveIn = inDays(40);
  const stay = await signedStay(s, moveIn, day(moveIn, 100));
  await payDue(s.api, stay.ref, stay.home);
  await clockAt(s.api, moveIn);
  expect((await s.api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: stay.home })).status).toBe(200);
  await clockAt(s.api, day(moveIn, 32));
  return { s, moveIn, stay };
}

/**
 * A stay moved in, shortened inside its second month (then paid at its shortened amount), and
 * extended over the released nights, signed and unpaid: what the paid month had not paid for moved
 * to the extension's charge (a transfer pair).
 */
async function extendedOverPaidMonth() {
  const { s, moveIn, stay } = await movedInStay();
  expect((await s.api.post(`/claims/${stay.ref}/dates`, { property_id: stay.home, move_in: moveIn, move_out: day(moveIn, 45) })).status).toBe(200);
  await payDue(s.api, stay.ref, stay.home);
  const shortened = await statement(s.api, stay.ref, stay.home);
  expect(shortened.totals).toMatchObject({ due_now: 0, refund_due: 0 });
  expect((await s.api.post(`/claims/${stay.ref}/extensions`, { property_id: stay.home, move_out: day(moveIn, 50) })).status).toBe(201);
  await drainJobs(s.c.orgId);
  await signBoth(s.api, stay.ref, stay.home);
  const extended = await statement(s.api, stay.ref, stay.home);
  expect(extended.entries.filter((e: { kind: string }) => e.kind === 'transfer')).toHaveLength(2);
  expect(extended.totals.due_now).toBe(extended.totals.charged - extended.totals.paid);
  return { s, moveIn, stay, shortened };
}

describe('the ledger of a stay', () => {
  it('a stay booked for 100 nights, shortened to 45 after move-in and extended to 80 pays what a stay booked for 80 pays', async () => {
    const s = await scene();
    const moveIn = inDays(40);
    const direct = await signedStay(s, moveIn, day(moveIn, 80));
    const changed = await signedStay(s, moveIn, day(moveIn, 100));
    await payDue(s.api, direct.ref, direct.home);
    await payDue(s.api, changed.ref, changed.home);

    await clockAt(s.api, moveIn);
    for (const stay of [direct, changed]) expect((await s.api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: stay.home })).status).toBe(200);
    // The second month is paid on its first day, then the stay is shortened and extended again.
    await clockAt(s.api, day(moveIn, 32));
    await payDue(s.api, direct.ref, direct.home);
    await payDue(s.api, changed.ref, changed.home);
    const shortened = await s.api.post(`/claims/${changed.ref}/dates`, { property_id: changed.home, move_in: moveIn, move_out: day(moveIn, 45) });
    expect(shortened.status, shortened.text).toBe(200);
    const afterShortening = await statement(s.api, changed.ref, changed.home);
    // The second month's nights from day 45 on were paid: they are owed back while nobody takes them again.
    expect(afterShortening.totals.refund_due).toBeGreaterThan(0);
    const extended = await s.api.post(`/claims/${changed.ref}/extensions`, { property_id: changed.home, move_out: day(moveIn, 80) });
    expect(extended.status, extended.text).toBe(201);
    await drainJobs(s.c.orgId);
    await signBoth(s.api, changed.ref, changed.home);
    await payDue(s.api, changed.ref, changed.home);

    // The rest of the stay, period by period, on each month's first day.
    for (const at of [62, 63, 70, 79]) {
      await clockAt(s.api, day(moveIn, at));
      await payDue(s.api, direct.ref, direct.home);
      await payDue(s.api, changed.ref, changed.home);
    }
    const [a, b] = [await statement(s.api, direct.ref, direct.home), await statement(s.api, changed.ref, changed.home)];
    // Every night of the 80 is charged once at the signed price, however the stay got there.
    expect(b.totals.charged).toBe(a.totals.charged);
    // And paid once: the payer of the changed stay paid exactly what the direct one did.
    expect(b.totals.paid).toBe(a.totals.paid);
    expect(b.totals.paid).toBe(b.totals.charged);
    expect(b.totals).toMatchObject({ due_now: 0, refund_due: 0 });
    expect(b.entries.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['charge', 'release', 'restore']));
    // Entries posted before are never changed: the statement only grows (what settled them, who pays
    // them with that payer's running balance, and whether a period is still scheduled are read beside them).
    const posted = ({ settled_by: _settled, payer: _payer, balance_after: _balance, scheduled: _scheduled, ...entry }: Record<string, unknown>) => entry;
    for (const entry of afterShortening.entries) expect(b.entries.map(posted)).toContainEqual(posted(entry));
  });

  it('a stay cancelled once moved in, a month begun unpaid: the nights used before the cancellation are still paid, through the payment helper and the pay page', async () => {
    // The second month has begun (two nights used) and is not paid when the stay is cancelled.
    const { s, stay } = await movedInStay();
    const cancelled = await s.api.post(`/claims/${stay.ref}/cancel-booking`, { property_id: stay.home, force: true });
    expect(cancelled.status, cancelled.text).toBe(200);
    const owing = await statement(s.api, stay.ref, stay.home);
    expect(owing.totals.due_now).toBeGreaterThan(0);
    // Owing, but the landlord's account cannot take charges: said as such, not as a home gone.
    await ownerSql()`update app.payout_accounts set charges_enabled = false where org_id = ${s.providerOrg} and environment = 'sandbox'`;
    const disabled = await s.api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/payment`, { outcome: 'succeeded' });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error?.code).toBe('charges_disabled');
    await ownerSql()`update app.payout_accounts set charges_enabled = true where org_id = ${s.providerOrg} and environment = 'sandbox'`;
    // The pay page offers it. Before: "Payment is not possible", and the helper answered 409 not_on_request.
    const link = new URL((await s.api.get(`/claims/${stay.ref}/placement`)).body.data.pay_in_app_url as string);
    const page = await call('GET', link.pathname.replace(/^\/functions\/v1/, '') + link.search);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('not possible');
    expect(page.text).toContain('Pay');
    const paid = await s.api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/payment`, { outcome: 'succeeded' });
    expect(paid.status, paid.text).toBe(200);
    const settled = await statement(s.api, stay.ref, stay.home);
    expect(settled.totals).toMatchObject({ due_now: 0, refund_due: 0 });
    expect(settled.totals.paid).toBe(settled.totals.charged);
    // Paid, nothing is left: the placement is refused again as cancelled, and nothing was booked again.
    const again = await s.api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/payment`, { outcome: 'succeeded' });
    expect(again.body.error?.code).toBe('not_on_request');
    const placement = (await s.api.get(`/claims/${stay.ref}/placement`)).body.data.homes[0];
    expect(placement.option_status).toBe('cancelled');
  });

  it('the statement: entries, payments and totals by payer, the ALE consumed, and a cancellation that reverses what is unpaid', async () => {
    const s = await scene();
    const moveIn = inDays(40);
    const stay = await signedStay(s, moveIn, day(moveIn, 90));
    const before = await statement(s.api, stay.ref, stay.home);
    expect(before.currency).toBe('usd');
    expect(before.entries.every((e: { kind: string; cause: string }) => e.kind === 'charge' && e.cause === 'signed')).toBe(true);
    expect(before.entries[0]).toMatchObject({ charge_type: 'initial', label: 'Rent', part: 'rent', payer: 'carrier', amount: 3000, settled_by: null });
    const dueFirst = before.totals.due_now;
    expect(dueFirst).toBeGreaterThan(3000);

    expect(await payDue(s.api, stay.ref, stay.home)).toBe(1);
    const after = await statement(s.api, stay.ref, stay.home);
    expect(after.totals).toMatchObject({ due_now: 0, refund_due: 0 });
    expect(after.totals.paid).toBe(dueFirst);
    expect(after.by_payer).toEqual([expect.objectContaining({ payer: 'carrier', paid: after.totals.paid })]);
    expect(after.entries[0].settled_by).toBe(after.payments[0].id);
    // Deposits come back, so they consume no ALE.
    expect(after.ale.ale_consumed).toBe(after.totals.charged - 1500);

    const cancelled = await s.api.post(`/claims/${stay.ref}/cancel-booking`, { property_id: stay.home, force: true });
    expect(cancelled.status, cancelled.text).toBe(200);
    const closed = await statement(s.api, stay.ref, stay.home);
    expect(closed.totals.charged).toBe(0);
    // What was paid is owed back until the landlord refunds it.
    expect(closed.totals.refund_due).toBe(closed.totals.paid);
    expect(closed.entries.filter((e: { kind: string }) => e.kind === 'reversal').length).toBe(before.entries.length);
  });

  it('is refused to another organisation, to the other environment and without the scope', async () => {
    const s = await scene();
    const stay = await signedStay(s, inDays(40), inDays(100));
    const other = await scene();
    expect((await other.api.get(`/claims/${stay.ref}/statement?property_id=${stay.home}`)).status).toBe(404);
    expect((await s.c.liveApi.get(`/claims/${stay.ref}/statement?property_id=${stay.home}`)).status).toBe(404);
    const narrow = client((await createKey(s.c.orgId, 'sandbox', { scopes: ['claims:read'] })).key);
    const refused = await narrow.get(`/claims/${stay.ref}/statement?property_id=${stay.home}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain('placements:read');
    expect((await s.api.get(`/claims/${stay.ref}/statement`)).status).toBe(422);
    expect((await s.api.get(`/claims/${stay.ref}/statement?property_id=${await insertHome(s.providerOrg, { environment: 'sandbox' })}`)).status).toBe(409);
  });
  it('a stay cancelled once moved in with a signed extension unpaid: what the extension moved goes back, nothing of it is left to pay', async () => {
    const { s, stay } = await extendedOverPaidMonth();
    expect((await s.api.post(`/claims/${stay.ref}/cancel-booking`, { property_id: stay.home, force: true })).status).toBe(200);
    const cancelled = await statement(s.api, stay.ref, stay.home);
    // Before: the transfer stayed on the withdrawn extension's charge, due, and paying it paid released nights.
    expect(cancelled.totals.due_now).toBe(0);
    expect(cancelled.entries.filter((e: { kind: string; cause: string }) => e.kind === 'transfer' && e.cause === 'cancelled')).toHaveLength(2);
    expect(Math.round((cancelled.totals.paid - cancelled.totals.refund_due) * 100)).toBe(Math.round(cancelled.totals.charged * 100));
    expect((await s.api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/payment`, { outcome: 'succeeded' })).body.error?.code).toBe('not_on_request');
  });

  it('an extension moving restored nights onto a paid charge, left unpaid, lapses whole; a closed-out stay cancelled keeps its nights', async () => {
    const { s, moveIn, stay, shortened } = await extendedOverPaidMonth();
    // Left unpaid, it lapses at the closeout: nothing of it is asked for any more, and the stay is charged as shortened.
    expect((await s.api.post('/sandbox/clock/advance', { frozen_time: `${day(moveIn, 46)}T12:00:00Z` })).status).toBe(200);
    const lapsed = await statement(s.api, stay.ref, stay.home);
    expect(lapsed.totals).toMatchObject({ charged: shortened.totals.charged, due_now: 0, refund_due: 0 });
    // A stay closed out and then cancelled keeps every night it had: nothing is owed back for nights stayed.
    expect((await s.api.post(`/claims/${stay.ref}/cancel-booking`, { property_id: stay.home, force: true })).status).toBe(200);
    expect((await statement(s.api, stay.ref, stay.home)).totals).toMatchObject({ charged: shortened.totals.charged, refund_due: 0 });
  });
});
