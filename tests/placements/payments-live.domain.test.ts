// Live payments end to end against a stand-in for the processor: the pay page creates a checkout on
// the landlord's connected account (captured, no network), and the processor's notifications, signed
// with the SDK's own test helper, record the outcome exactly once.
import { describe, expect, it } from 'vitest';
import { call, client, createKey, ownerSql } from '../helpers.ts';
import { insertHome } from '../claims/fixtures.ts';
import { inDays, placeWithDates } from './fixtures.ts';
import { amountOf, metadataOf, useProcessorStandIn } from './processor-stand-in.ts';
import { events, fetchPage, pagePath, payUrl, postForm, signedLease, signLiveLease, submitPage } from './payment-fixtures.ts';

const { checkouts, notify } = useProcessorStandIn('whsec_live_test');

/** Stands in for the e-signature provider's callbacks: the lease is fully signed. */
async function signLive(leaseId: string) {
  await ownerSql()`update app.lease_agreements set status = 'sent_for_signature', sent_at = now() where id = ${leaseId} and status = 'awaiting_lease'`;
  await ownerSql()`update app.lease_agreements set status = 'policyholder_signed', policyholder_signed_at = now() where id = ${leaseId}`;
  await signLiveLease(leaseId);
}

const intentEvent = (id: string, type: string, metadata: Record<string, string>, amount: number) => ({
  id,
  object: 'event',
  type,
  account: 'acct_landlord',
  data: { object: { id: 'pi_live_1', object: 'payment_intent', amount, amount_received: amount, currency: 'usd', metadata } },
});

/**
 * A live placement signed and paid through the page: the checkout it created on the landlord's
 * account, its amount and the metadata the processor will send back with the PaymentIntent.
 */
async function liveCheckout() {
  const s = await signedLease('live');
  await ownerSql()`update app.payout_accounts set processor_account_id = 'acct_landlord' where org_id = ${s.providerOrg} and environment = 'live'`;
  await signLive(s.lease.id);
  await submitPage(pagePath(await payUrl(s.api, s.ref)));
  const checkout = checkouts.at(-1)!;
  const amount = amountOf(checkout);
  const metadata = metadataOf(checkout);
  return { s, amount, metadata };
}

describe('live payments through the processor (stand-in transport)', () => {
  it('checkout on the connected account, then the notification books it once; refunds and account updates follow the processor', async () => {
    const s = await signedLease('live');
    await ownerSql()`update app.payout_accounts set processor_account_id = 'acct_landlord' where org_id = ${s.providerOrg} and environment = 'live'`;

    const url = await payUrl(s.api, s.ref);
    const before = await fetchPage(pagePath(url));
    expect(before.text).toContain('Not ready for payment yet');
    const early = await postForm(pagePath(url), new URLSearchParams({ charge_type: 'initial', payer: 'carrier', amount_cents: '1' }));
    expect(early.status).toBe(409);
    expect(early.text).toContain('Payment is unlocked once the lease is fully signed');

    await signLive(s.lease.id);
    const page = await fetchPage(pagePath(url));
    expect(page.text).toContain('Due now: First payment');
    expect(page.text).not.toContain('name="outcome"');
    const redirected = await submitPage(pagePath(url));
    expect(redirected.status).toBe(303);
    expect(redirected.headers.get('location')).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
    const checkout = checkouts.at(-1)!;
    expect(checkout.get('stripe_account')).toBe('acct_landlord');
    const amount = amountOf(checkout);
    const rent = Number(checkout.get('payment_intent_data[metadata][rent_cents]'));
    expect(Number(checkout.get('payment_intent_data[application_fee_amount]'))).toBe(Math.round(rent * 0.08));
    // The processor returns the payer to the pay page at the public address, not the function-relative path it was posted to.
    expect(checkout.get('success_url')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1\/pay\/.+\?result=processing$/);
    const metadata = metadataOf(checkout);

    // Nothing is booked until the processor says so; a forged notification changes nothing.
    expect((await notify(intentEvent('evt_forged', 'payment_intent.succeeded', metadata, amount), 'whsec_wrong')).status).toBe(401);
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].booking).toBeNull();

    // A charge on another account, or of another amount, is not this checkout's.
    const otherAccount = { ...intentEvent('evt_other_account', 'payment_intent.succeeded', metadata, amount), account: 'acct_someone_else' };
    expect((await notify(otherAccount)).body.data.outcome).toBe("ignored: not the landlord's account");
    expect((await notify(intentEvent('evt_other_amount', 'payment_intent.succeeded', metadata, amount - 1))).body.data.outcome).toMatch(/^ignored: amount/);

    const first = await notify(intentEvent('evt_paid', 'payment_intent.succeeded', metadata, amount));
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ event_id: 'evt_paid', outcome: 'applied' });
    const twice = await notify(intentEvent('evt_paid', 'payment_intent.succeeded', metadata, amount));
    expect(twice.body.data.outcome).toBe('duplicate');
    const resent = await notify(intentEvent('evt_paid_again', 'payment_intent.succeeded', metadata, amount));
    expect(resent.body.data.outcome).toBe('duplicate');

    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home.booking).toMatchObject({ booking_status: 'confirmed' });
    expect(home.payments).toEqual([expect.objectContaining({ status: 'succeeded', amount: amount / 100, charge_type: 'initial' })]);
    expect((await events(s.c.orgId, 'payment.succeeded')).length).toBe(1);
    expect((await events(s.providerOrg, 'booking.confirmed')).length).toBe(1);

    const refunded = await notify({ id: 'evt_refund', type: 'charge.refunded', account: 'acct_landlord', data: { object: { id: 'ch_1', payment_intent: 'pi_live_1', amount_refunded: amount, metadata: {} } } });
    expect(refunded.body.data.outcome).toBe('applied');
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments[0]).toMatchObject({ status: 'refunded', refunded_amount: amount / 100 });

    const account = await notify({
      id: 'evt_account',
      type: 'account.updated',
      account: 'acct_landlord',
      data: { object: { id: 'acct_landlord', charges_enabled: false, payouts_enabled: true, details_submitted: true, external_accounts: { data: [{ object: 'bank_account', last4: '4321' }] } } },
    });
    expect(account.body.data.outcome).toBe('applied');
    const [payout] = await ownerSql()`select charges_enabled, payouts_enabled, bank_account_last4 from app.payout_accounts where org_id = ${s.providerOrg} and environment = 'live'`;
    expect(payout).toEqual({ charges_enabled: false, payouts_enabled: true, bank_account_last4: '4321' });

    const ignored = await notify({ id: 'evt_other', type: 'customer.created', data: { object: { id: 'cus_1' } } });
    expect(ignored.body.data.outcome).toMatch(/^ignored/);
    expect((await call('GET', '/payments-webhook')).status).toBe(404);
  });

  it('finish_setup_url opens the processor onboarding, creating the connected account on demand', async () => {
    const s = await signedLease('live');
    const providerLive = client((await createKey(s.providerOrg, 'live')).key);
    await ownerSql()`update app.payout_accounts set connected = false, charges_enabled = false, payouts_enabled = false, onboarding_status = 'not_started'
                      where org_id = ${s.providerOrg} and environment = 'live'`;
    const status = (await providerLive.get('/properties/payouts')).body.data;
    expect(status.finish_setup_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1\/pay\/setup\//);
    const path = pagePath(status.finish_setup_url!);
    // Opening the link creates nothing; Continue (a POST) creates the account and goes on to onboarding.
    const shown = await call('GET', path);
    expect([shown.status, shown.text.includes('Continue to the payment processor')]).toEqual([200, true]);
    expect((await ownerSql()`select processor_account_id from app.payout_accounts where org_id = ${s.providerOrg} and environment = 'live'`)[0].processor_account_id).toBeNull();
    const opened = await call('POST', path);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('https://connect.stripe.com/setup/e/acct_created/x');
    const [row] = await ownerSql()`select processor_account_id from app.payout_accounts where org_id = ${s.providerOrg} and environment = 'live'`;
    expect(row.processor_account_id).toBe('acct_created');
    expect((await call('GET', `${path}?result=returned`)).text).toContain('Thank you');
    expect((await call('GET', '/pay/setup/forged.token.here')).status).toBe(403);
    // A pay link is not a setup link.
    const payLink = pagePath(await payUrl(s.api, s.ref)).slice('/pay/'.length);
    expect((await call('GET', `/pay/setup/${payLink}`)).status).toBe(403);
  });

  it('a failed charge changes nothing but its record; a charge clearing after a cancellation is recorded, refundable, and books nothing', async () => {
    const { s, amount, metadata } = await liveCheckout();
    const failed = intentEvent('evt_failed', 'payment_intent.payment_failed', metadata, amount);
    (failed.data.object as any).id = 'pi_failed';
    (failed.data.object as any).last_payment_error = { message: 'Your card was declined.' };
    expect((await notify(failed)).body.data.outcome).toBe('applied');
    let placement = (await s.api.get(`/claims/${s.ref}/placement`)).body.data;
    expect(placement.homes[0]).toMatchObject({ booking: null, payments_succeeded: 0 });
    expect(placement.homes[0].payments[0]).toMatchObject({ status: 'failed', failure_reason: 'Your card was declined.' });
    expect((await events(s.providerOrg, 'payment.failed')).length).toBe(1);

    expect((await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: s.home })).status).toBe(200);
    const late = intentEvent('evt_late', 'payment_intent.succeeded', metadata, amount);
    (late.data.object as any).id = 'pi_late';
    expect((await notify(late)).body.data.outcome).toBe('applied');
    placement = (await s.api.get(`/claims/${s.ref}/placement`)).body.data;
    expect(placement.homes[0]).toMatchObject({ option_status: 'cancelled', booking: null, payments_succeeded: 1 });
    expect((await events(s.c.orgId, 'booking.confirmed')).length).toBe(0);
    expect((await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home })).status).toBe(202);
  });
  it('a PaymentIntent that fails and is then retried successfully is recorded as succeeded and books the stay (a later success wins)', async () => {
    const { s, amount, metadata } = await liveCheckout();
    const intent = `pi_retried_${crypto.randomUUID().slice(0, 8)}`;
    const failed = intentEvent(`evt_${intent}_1`, 'payment_intent.payment_failed', metadata, amount);
    (failed.data.object as any).id = intent;
    (failed.data.object as any).last_payment_error = { message: 'Your card was declined.' };
    expect((await notify(failed)).body.data.outcome).toBe('applied');
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('payment_setup');

    const succeeded = intentEvent(`evt_${intent}_2`, 'payment_intent.succeeded', metadata, amount);
    (succeeded.data.object as any).id = intent;
    expect((await notify(succeeded)).body.data.outcome).toBe('applied');
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home).toMatchObject({ payments_succeeded: 1, booking: { booking_status: 'confirmed' } });
    expect(home.payments).toEqual([expect.objectContaining({ status: 'succeeded', failure_reason: null, amount: amount / 100 })]);
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('booking_confirmed');
    // Nothing rewritten: the failure was announced and stays announced; the success follows it.
    expect((await events(s.c.orgId, 'payment.failed')).length).toBe(1);
    expect((await events(s.c.orgId, 'payment.succeeded')).length).toBe(1);
    expect((await events(s.c.orgId, 'booking.confirmed')).length).toBe(1);
    // A late copy of the failure changes nothing.
    const again = intentEvent(`evt_${intent}_3`, 'payment_intent.payment_failed', metadata, amount);
    (again.data.object as any).id = intent;
    expect((await notify(again)).body.data.outcome).toBe('duplicate');
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments[0].status).toBe('succeeded');
  });
  it('ignores a notification whose lease is not the placement\'s own: nothing is recorded', async () => {
    const { s, amount, metadata } = await liveCheckout();
    // A lease of the same carrier (row-level security lets it be read), on another home of the request.
    const otherHome = await insertHome(s.providerOrg);
    const other = await placeWithDates(s.api, s.ref, otherHome, inDays(40), inDays(130));
    const forged = intentEvent(`evt_foreign_${crypto.randomUUID().slice(0, 8)}`, 'payment_intent.succeeded', { ...metadata, lease_id: other.id }, amount);
    (forged.data.object as any).id = `pi_foreign_${crypto.randomUUID().slice(0, 8)}`;
    expect((await notify(forged)).body.data.outcome).toBe('ignored: unknown lease');
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    // Only the checkout's own attempt, still open: nothing settled.
    expect(home).toMatchObject({ payments: [{ status: 'pending', paid_at: null }], booking: null, payments_succeeded: 0 });
  });

  it('an extension is paid through the checkout too: its notification puts it in effect', async () => {
    const { s, amount, metadata } = await liveCheckout();
    // Processor ids are unique across the environment: this test's own.
    const first = intentEvent('evt_first', 'payment_intent.succeeded', metadata, amount);
    first.data.object.id = 'pi_live_first_of_extended';
    expect((await notify(first)).body.data.outcome).toBe('applied');
    const asked = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) });
    expect(asked.status).toBe(201);
    await signLive(asked.body.data.id);
    await submitPage(pagePath(await payUrl(s.api, s.ref)));
    const checkout = checkouts.at(-1)!;
    expect(checkout.get('payment_intent_data[metadata][charge_type]')).toBe('extension');
    expect(checkout.get('payment_intent_data[metadata][lease_id]')).toBe(asked.body.data.id);
    const extensionAmount = amountOf(checkout);
    expect(extensionAmount / 100).toBe(asked.body.data.amount);
    const extensionMetadata = metadataOf(checkout);
    const paid = { ...intentEvent('evt_extension', 'payment_intent.succeeded', extensionMetadata, extensionAmount) };
    paid.data.object.id = 'pi_live_extension';
    expect((await notify(paid)).body.data.outcome).toBe('applied');
    const extensions = (await s.api.get(`/claims/${s.ref}/extensions?property_id=${s.home}`)).body.data;
    expect(extensions[0]).toMatchObject({ status: 'in_effect' });
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments.map((p: any) => p.charge_type)).toEqual(['initial', 'extension']);
  });

  it('acts only on events of its own mode, and only on a charge the signed lease makes payable', async () => {
    const { s, amount, metadata } = await liveCheckout();
    const own = (id: string, meta: Record<string, string>, cents: number) => {
      const event = intentEvent(id, 'payment_intent.succeeded', meta, cents);
      event.data.object.id = `pi_${id}`;
      return event;
    };
    // A live-mode event reaching a test-key deployment is not its own.
    const otherMode = await notify({ ...own('evt_livemode', metadata, amount), livemode: true });
    expect(otherMode.body.data.outcome).toBe('ignored: not an event the service acts on');
    // Metadata that adds up but moves money between parts, or a bigger charge described consistently:
    // not what the signed lease makes payable.
    const shifted = { ...metadata, rent_cents: String(Number(metadata.rent_cents) + 100), deposit_cents: String(Number(metadata.deposit_cents) - 100) };
    expect((await notify(own('evt_shifted', shifted, amount))).body.data.outcome).toBe('ignored: amount differs from the signed terms');
    const bigger = { ...metadata, rent_cents: String(Number(metadata.rent_cents) + 50_000) };
    expect((await notify(own('evt_bigger', bigger, amount + 50_000))).body.data.outcome).toBe('ignored: amount differs from the signed terms');
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments.map((p: any) => p.status)).toEqual(['pending']);
    // The charge as the checkout made it is recorded.
    expect((await notify(own('evt_right', metadata, amount))).body.data.outcome).toBe('applied');
  });
  it('a charge changed again between its checkout and the notification is recorded as the checkout charged it', async () => {
    const s = await signedLease('live');
    await ownerSql()`update app.payout_accounts set processor_account_id = 'acct_landlord' where org_id = ${s.providerOrg} and environment = 'live'`;
    await signLive(s.lease.id);
    const url = pagePath(await payUrl(s.api, s.ref));
    expect((await fetchPage(url)).text).toContain('Due now: First payment');
    // Nights of the first charge's rent given back, as a shortening posts them (the page then charges less) ...
    const release = (nights: number, cents: number) => ownerSql()`
      insert into app.ledger_entries (org_id, environment, claim_id, claim_option_id, property_id, currency, lease_agreement_id, charge_type,
                                      period_start, part, line, kind, cause, adjusts, nights_from, nights_to, monthly_cents, billing_start,
                                      billing_days, amount_cents)
      select org_id, environment, claim_id, claim_option_id, property_id, currency, lease_agreement_id, charge_type, period_start, part, line,
             'release', 'shortened', id, nights_to - ${nights}::integer, nights_to, monthly_cents, billing_start, billing_days, ${-cents}
        from app.ledger_entries where lease_agreement_id = ${s.lease.id} and charge_type = 'initial' and line = 'Rent' and kind = 'charge'`;
    await release(10, 50_000);
    await submitPage(url);
    const checkout = checkouts.at(-1)!;
    // ... and more of them after the checkout opened: the charge is now neither what it was signed for nor what was opened.
    await release(5, 20_000);
    const event = intentEvent('evt_changed_twice', 'payment_intent.succeeded', metadataOf(checkout), amountOf(checkout));
    (event.data.object as any).id = 'pi_changed_twice';
    const outcome = await notify(event);
    expect(outcome.status, outcome.text).toBe(200);
    expect(outcome.body.data.outcome).toBe('applied');
    const [payment] = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments;
    expect(payment).toMatchObject({ status: 'succeeded' });
    expect(Math.round(payment.amount * 100)).toBe(amountOf(checkout));
  });
});
