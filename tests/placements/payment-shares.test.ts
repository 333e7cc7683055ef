// A charge split between payers: rent to the rent payer, deposits to the deposit payer, fees to the
// fees payer. Each share is its own checkout and payment; the booking is confirmed when the whole
// first payment has cleared, and no part of a period is ever paid twice.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { drainJobs } from './fixtures.ts';
import { amountOf, metadataOf, useProcessorStandIn } from './processor-stand-in.ts';
import { events, fetchPage, formsOf, pagePath, payLinks, payUrl, postForm, signedLease, signLiveLease } from './payment-fixtures.ts';

const split = { rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: 'tpa' };

/** A signed lease on a request whose three payers differ; the home charges a cleaning fee, so each part has money. */
async function splitLease(environment: 'live' | 'sandbox' = 'sandbox') {
  return signedLease(environment, { claim: split, home: { cleaning_fee_cents: 10000 } });
}

const placementOf = async (s: Awaited<ReturnType<typeof splitLease>>) => (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];

describe('a charge split between payers (sandbox)', () => {
  it('the pay page shows one share per payer; each pays its own; the last one confirms the booking', async () => {
    const s = await splitLease();
    const links = await payLinks(s.api, s.ref);
    const path = links.carrier;
    const page = (await fetchPage(path)).text;
    expect(page).toContain('split between 3 payers');
    expect(page).toContain('Paid by the insurance carrier');
    expect(page).toContain('Paid by the policyholder');
    expect(page).toContain('Paid by the claims administrator');
    // Each payer's own link offers its own share.
    const forms = await Promise.all(['carrier', 'policyholder', 'tpa'].map(async (payer) => formsOf((await fetchPage(links[payer])).text)[0]));
    expect(forms.map((f) => [f.get('payer'), f.get('amount_cents')])).toEqual([['carrier', '250000'], ['policyholder', '150000'], ['tpa', '10000']]);

    // The household pays its deposits first: recorded, nothing booked yet.
    const deposit = await postForm(links.policyholder, forms[1], 'succeeded');
    expect(deposit.status).toBe(303);
    let home = await placementOf(s);
    expect(home.booking).toBeNull();
    expect(home.payments).toEqual([expect.objectContaining({ payer: 'policyholder', amount: 1500, platform_fee: 0, covers_rent: false, covers_deposit: true })]);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('payment_setup');
    // The carrier's page now shows the two shares left, and the paid one under Paid so far; the notice books nothing yet.
    const back = (await fetchPage(`${path}?result=succeeded`)).text;
    expect(back).toContain('The booking is confirmed once what is still due below is paid.');
    expect(back).not.toContain('The booking is confirmed.');
    expect(back).toMatch(/paid · the policyholder/);
    expect(back).not.toContain('Paid by the policyholder');
    expect(back).toContain('Paid by the claims administrator');
    // A second submission of the deposit share (a page shown before) pays nothing more: the receipt.
    expect((await postForm(links.policyholder, forms[1], 'succeeded')).headers.get('location')).toBe('?result=succeeded');

    await postForm(path, forms[0], 'succeeded');
    expect((await placementOf(s)).booking).toBeNull();
    await postForm(links.tpa, forms[2], 'succeeded');
    home = await placementOf(s);
    expect(home.booking).toMatchObject({ booking_status: 'confirmed' });
    expect(home.payments.map((p: any) => [p.payer, p.amount, p.platform_fee])).toEqual([['policyholder', 1500, 0], ['carrier', 2500, 200], ['tpa', 100, 0]]);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('booking_confirmed');
    // Each share is announced with its payer; the booking once.
    expect((await events(s.c.orgId, 'payment.succeeded')).map((e) => [e.payload.payer, e.payload.amount])).toEqual([['policyholder', 1500], ['carrier', 2500], ['tpa', 100]]);
    expect((await events(s.c.orgId, 'booking.confirmed')).length).toBe(1);
    const done = (await fetchPage(`${path}?result=succeeded`)).text;
    expect(done).toContain('Nothing due right now');
    expect(done).toContain('The booking is confirmed.');
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data;
    expect(timeline.filter((e: any) => e.type === 'payment.succeeded').map((e: any) => e.detail.payer)).toEqual(['policyholder', 'carrier', 'tpa']);
  });

  it('the helper pays every share due now, or the named payer\'s; a payer who owes nothing now is refused', async () => {
    const s = await splitLease();
    const pay = (body: object) => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, body);
    const one = await pay({ outcome: 'succeeded', payer: 'tpa' });
    expect(one.status).toBe(200);
    expect(one.body.data.payments.map((p: any) => p.payer)).toEqual(['tpa']);
    const again = await pay({ outcome: 'succeeded', payer: 'tpa' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'nothing_due' });
    expect(again.body.error?.message).toContain('tpa');
    const unknown = await pay({ outcome: 'succeeded', payer: 'landlord' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_field', field: 'payer' });
    // A failed share is recorded as failed for that payer alone; the others owe as before.
    const declined = await pay({ outcome: 'failed', payer: 'carrier' });
    expect(declined.body.data.payments.map((p: any) => [p.payer, p.status])).toEqual([['tpa', 'succeeded'], ['carrier', 'failed']]);
    const rest = await pay({ outcome: 'succeeded' });
    expect(rest.status).toBe(200);
    expect(rest.body.data.payments.filter((p: any) => p.status === 'succeeded').map((p: any) => p.payer)).toEqual(['tpa', 'carrier', 'policyholder']);
    expect(rest.body.data.booking).toMatchObject({ booking_status: 'confirmed' });
  });

  it('a duplicate outcome clears each share twice: the second is kept, refunded automatically, announced, and counts for nothing', async () => {
    const s = await splitLease();
    const res = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'duplicate', payer: 'policyholder' });
    expect(res.status, res.text).toBe(200);
    const home = res.body.data;
    const [kept, second] = home.payments;
    expect([kept.payer, kept.status, kept.duplicate_of]).toEqual(['policyholder', 'succeeded', null]);
    expect([second.payer, second.duplicate_of, second.amount]).toEqual(['policyholder', kept.id, kept.amount]);
    expect(home.deposit_refunds).toEqual([expect.objectContaining({ payment_id: second.id, automatic: true, amount: second.amount })]);
    expect((await events(s.c.orgId, 'payment.duplicate')).map((e) => [e.payload.payment_id, e.payload.duplicate_of])).toEqual([[second.id, kept.id]]);
    await drainJobs(s.c.orgId);
    // Issued, the duplicate is refunded whole; the household has paid its share once, and owes nothing back.
    const statement = (await s.api.get(`/claims/${s.ref}/statement?property_id=${s.home}`)).body.data;
    const household = statement.by_payer.find((p: { payer: string }) => p.payer === 'policyholder');
    expect(household).toMatchObject({ paid: kept.amount, refunded: 0, refund_due: 0, due_now: 0 });
    expect((await placementOf(s)).payments.find((p: { id: string }) => p.id === second.id)).toMatchObject({ status: 'refunded', refunded_amount: second.amount });
  });

  it('an amended payer pays what is still unpaid, never a part already paid', async () => {
    const s = await splitLease();
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded', payer: 'carrier' })).status).toBe(200);
    expect((await s.api.patch(`/claims/${s.ref}`, { deposit_payer: 'carrier', fees_payer: 'carrier' })).status).toBe(200);
    const page = formsOf((await fetchPage(pagePath(await payUrl(s.api, s.ref)))).text);
    expect(page.map((f) => [f.get('payer'), f.get('amount_cents')])).toEqual([['carrier', '160000']]);
  });

  it('two submissions of the same share at once pay it once; two different shares at once both pay and book once', async () => {
    const s = await splitLease();
    const links = await payLinks(s.api, s.ref);
    const [carrier, household, tpa] = await Promise.all(['carrier', 'policyholder', 'tpa'].map(async (payer) => formsOf((await fetchPage(links[payer])).text)[0]));
    await Promise.all([postForm(links.carrier, carrier, 'succeeded'), postForm(links.carrier, carrier, 'succeeded')]);
    expect((await placementOf(s)).payments.filter((p: any) => p.payer === 'carrier')).toHaveLength(1);
    await Promise.all([postForm(links.policyholder, household, 'succeeded'), postForm(links.tpa, tpa, 'succeeded')]);
    const home = await placementOf(s);
    expect(home.payments).toHaveLength(3);
    expect(home.booking).toMatchObject({ booking_status: 'confirmed' });
    expect((await events(s.c.orgId, 'booking.confirmed')).length).toBe(1);
  });

  it('the database refuses a second settled charge of the same part of a period, whoever pays it', async () => {
    const s = await splitLease();
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded', payer: 'policyholder' });
    const [paid] = await ownerSql()<Record<string, any>[]>`select * from app.payments where claim_id = ${s.claim.id}`;
    await expect(ownerSql()`
      insert into app.payments (org_id, environment, property_id, carrier_org_id, claim_id, claim_option_id, lease_agreement_id, charge_type,
                                payer, status, deposit_cents, currency, paid_at, provider_ref, period_start, period_end)
      values (${paid.org_id}, 'sandbox', ${paid.property_id}, ${paid.carrier_org_id}, ${paid.claim_id}, ${paid.claim_option_id}, ${paid.lease_agreement_id},
              'initial', 'carrier', 'succeeded', 1, 'usd', now(), 'sandbox_pi_twice', ${paid.period_start}, ${paid.period_end})`).rejects.toThrow(/payments_one_per_charge_deposit/);
  });
});

describe('a charge split between payers (live, stand-in processor)', () => {
  const { checkouts, notify: notifyProcessor } = useProcessorStandIn('whsec_shares_test');
  const notify = (id: string, metadata: Record<string, string>, amount: number) =>
    notifyProcessor({
      id: `evt_${id}`, object: 'event', type: 'payment_intent.succeeded', account: 'acct_shares',
      data: { object: { id, object: 'payment_intent', amount, amount_received: amount, currency: 'usd', metadata } },
    });

  it('one checkout per share, each naming its payer and parts; each notification records its share; the last books', async () => {
    const s = await splitLease('live');
    await ownerSql()`update app.payout_accounts set processor_account_id = 'acct_shares' where org_id = ${s.providerOrg} and environment = 'live'`;
    await signLiveLease(s.lease.id);
    const links = await payLinks(s.api, s.ref);
    for (const payer of ['carrier', 'policyholder', 'tpa']) {
      const [form] = formsOf((await fetchPage(links[payer])).text);
      expect(form.get('payer')).toBe(payer);
      expect((await postForm(links[payer], form)).status).toBe(303);
    }
    const shares = checkouts.slice(-3).map((checkout) => ({ metadata: metadataOf(checkout), amount: amountOf(checkout), key: checkout.get('idempotency_key') }));
    expect(shares.map((share) => [share.metadata.payer, share.amount, share.metadata.rent_cents, share.metadata.deposit_cents, share.metadata.fees_cents])).toEqual([
      ['carrier', 250000, '250000', '0', '0'], ['policyholder', 150000, '0', '150000', '0'], ['tpa', 10000, '0', '0', '10000'],
    ]);
    // The platform fee comes from the rent share alone.
    expect(checkouts.slice(-3).map((checkout) => checkout.get('payment_intent_data[application_fee_amount]'))).toEqual(['20000', '0', '0']);
    expect(new Set(shares.map((share) => share.key)).size).toBe(3);

    // A forged share: parts that are not whole parts of the signed charge are not recorded.
    const forged = { ...shares[1].metadata, deposit_cents: '100000' };
    expect((await notify(`pi_forged_${s.ref}`, forged, 100000)).body.data.outcome).toBe('ignored: amount differs from the signed terms');

    const [carrier, household, tpa] = shares;
    // A checkout made before shares carried no payer: the payer of its parts is read from the request.
    const { payer: _named, ...beforeShares } = household.metadata;
    expect((await notify(`pi_h_${s.ref}`, beforeShares, household.amount)).body.data.outcome).toBe('applied');
    expect((await placementOf(s)).payments.find((p: any) => p.status === 'succeeded')).toMatchObject({ payer: 'policyholder', covers_deposit: true });
    expect((await notify(`pi_t_${s.ref}`, tpa.metadata, tpa.amount)).body.data.outcome).toBe('applied');
    expect((await placementOf(s)).booking).toBeNull();
    expect((await notify(`pi_c_${s.ref}`, carrier.metadata, carrier.amount)).body.data.outcome).toBe('applied');
    const home = await placementOf(s);
    expect(home.booking).toMatchObject({ booking_status: 'confirmed' });
    // Listed as the checkouts were opened; each settled by its own notification.
    expect(home.payments.map((p: any) => [p.payer, p.status])).toEqual([['carrier', 'succeeded'], ['policyholder', 'succeeded'], ['tpa', 'succeeded']]);
    // The same notification again records nothing more.
    expect((await notify(`pi_c_${s.ref}`, carrier.metadata, carrier.amount)).body.data.outcome).toBe('duplicate');
    // The same share charged again by another payment is kept as a duplicate of the first, to refund; it books nothing more.
    expect((await notify(`pi_c2_${s.ref}`, carrier.metadata, carrier.amount)).body.data.outcome).toBe('applied');
    const after = await placementOf(s);
    expect(after.payments).toHaveLength(4);
    expect(after.payments[3]).toMatchObject({ payer: 'carrier', duplicate_of: after.payments[0].id });
    expect(after.payments_succeeded).toBe(3);
  });
});
