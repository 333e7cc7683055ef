import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { stripePayments } from '../../shared/placements/ports/stripe.ts';
import { CallbackRejected } from '../../shared/placements/ports/types.ts';
import { paymentsPort } from '../../shared/placements/ports/index.ts';

// The live Stripe adapter against a stand-in transport: every request the SDK would send is
// captured (no network), and answered with what Stripe answers.

interface Captured {
  method: string;
  url: URL;
  headers: Headers;
  form: URLSearchParams;
}

function standIn(answer: (request: Captured) => unknown) {
  const calls: Captured[] = [];
  const fetchStub = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const captured = { method: request.method, url: new URL(request.url), headers: request.headers, form: new URLSearchParams(await request.text()) };
    calls.push(captured);
    return Response.json(answer(captured), { status: 200, headers: { 'request-id': 'req_test' } });
  }) as typeof fetch;
  return { calls, fetch: fetchStub };
}

const secret = 'whsec_test_secret';

describe('live payments adapter (Stripe, stand-in transport)', () => {
  it('creates a checkout session as a direct charge on the connected account with the application fee', async () => {
    const transport = standIn(() => ({ id: 'cs_test_1', object: 'checkout.session', url: 'https://checkout.stripe.com/c/pay/cs_test_1' }));
    const port = stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: transport.fetch });
    const session = await port.createCheckout({
      connectedAccount: 'acct_landlord',
      amountCents: 250_000,
      currency: 'USD',
      applicationFeeCents: 16_000,
      description: 'First payment',
      successUrl: 'https://example.test/ok',
      cancelUrl: 'https://example.test/back',
      expiresAt: new Date('2026-12-01T10:00:00Z'),
      metadata: { payment_id: 'p1', environment: 'live' },
      idempotencyKey: 'checkout-p1',
    });
    expect(session).toEqual({ providerRef: 'cs_test_1', url: 'https://checkout.stripe.com/c/pay/cs_test_1' });
    const [call] = transport.calls;
    expect(call.method).toBe('POST');
    expect(call.url.pathname).toBe('/v1/checkout/sessions');
    expect(call.headers.get('stripe-account')).toBe('acct_landlord');
    expect(call.headers.get('idempotency-key')).toBe('checkout-p1');
    expect(call.headers.get('authorization')).toBe('Bearer sk_test_x');
    expect(call.form.get('payment_intent_data[application_fee_amount]')).toBe('16000');
    expect(call.form.get('line_items[0][price_data][unit_amount]')).toBe('250000');
    expect(call.form.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(call.form.get('payment_intent_data[metadata][payment_id]')).toBe('p1');
    expect(call.form.get('mode')).toBe('payment');
    expect(call.form.get('expires_at')).toBe(String(Date.parse('2026-12-01T10:00:00Z') / 1000));
  });

  it('refunds on the connected account, and returns the service fee on the rent refunded as an application fee refund', async () => {
    const transport = standIn((request) =>
      request.url.pathname === '/v1/refunds' ? { id: 're_1', object: 'refund', status: 'succeeded' }
        : request.url.pathname === '/v1/payment_intents/pi_1' ? { id: 'pi_1', object: 'payment_intent', latest_charge: { id: 'ch_1', object: 'charge', application_fee: 'fee_1' } }
        : { id: 'fr_1', object: 'fee_refund' });
    const port = stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: transport.fetch });
    expect(
      await port.refund({ connectedAccount: 'acct_landlord', paymentRef: 'pi_1', amountCents: 100_000, platformFeeCents: 8000, metadata: { refund_request_id: 'r1' }, idempotencyKey: 'refund-r1' }),
    ).toEqual({ providerRef: 're_1', status: 'succeeded' });
    const [refund, intent, fee] = transport.calls;
    expect(refund.url.pathname).toBe('/v1/refunds');
    expect(refund.headers.get('stripe-account')).toBe('acct_landlord');
    // Not Stripe's proportional fee refund (over the whole charge, deposits included): 8 % of the rent refunded.
    expect(refund.form.get('refund_application_fee')).toBe('false');
    expect(refund.form.get('payment_intent')).toBe('pi_1');
    expect(refund.form.get('amount')).toBe('100000');
    expect(intent.headers.get('stripe-account')).toBe('acct_landlord');
    expect(fee.url.pathname).toBe('/v1/application_fees/fee_1/refunds');
    expect(fee.headers.get('stripe-account')).toBeNull();
    expect(fee.headers.get('idempotency-key')).toBe('refund-r1:fee');
    expect(fee.form.get('amount')).toBe('8000');

    // A refund of deposits or fees only returns no service fee: no fee refund is made.
    const plain = standIn(() => ({ id: 're_2', object: 'refund', status: 'succeeded' }));
    await stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: plain.fetch })
      .refund({ connectedAccount: 'acct_landlord', paymentRef: 'pi_2', amountCents: 150_000, platformFeeCents: 0, metadata: {}, idempotencyKey: 'refund-r2' });
    expect(plain.calls.map((call) => call.url.pathname)).toEqual(['/v1/refunds']);
  });

  it('refuses to report a refund done when the payment has no application fee to return its service fee from', async () => {
    const transport = standIn((request) =>
      request.url.pathname === '/v1/refunds' ? { id: 're_3', object: 'refund', status: 'succeeded' }
        : { id: 'pi_3', object: 'payment_intent', latest_charge: { id: 'ch_3', object: 'charge', application_fee: null } });
    const port = stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: transport.fetch });
    // The job fails and retries (its refund is idempotent by key): staff see why rather than a fee never returned.
    await expect(port.refund({ connectedAccount: 'acct_landlord', paymentRef: 'pi_3', amountCents: 1000, platformFeeCents: 80, metadata: {}, idempotencyKey: 'refund-r3' }))
      .rejects.toThrow(/no application fee/);
    expect(transport.calls.map((call) => call.url.pathname)).toEqual(['/v1/refunds', '/v1/payment_intents/pi_3']);
  });

  it('creates the connected account once, then an onboarding link', async () => {
    const transport = standIn((request) =>
      request.url.pathname === '/v1/accounts'
        ? { id: 'acct_new', object: 'account' }
        : { object: 'account_link', url: 'https://connect.stripe.com/setup/e/acct_new/abc' },
    );
    const port = stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: transport.fetch });
    const link = await port.accountLink({ email: 'owner@example.test', refreshUrl: 'https://example.test/r', returnUrl: 'https://example.test/done' });
    expect(link).toEqual({ connectedAccount: 'acct_new', url: 'https://connect.stripe.com/setup/e/acct_new/abc' });
    expect(transport.calls.map((call) => call.url.pathname)).toEqual(['/v1/accounts', '/v1/account_links']);
    expect(transport.calls[1].form.get('account')).toBe('acct_new');
    expect(transport.calls[1].form.get('type')).toBe('account_onboarding');

    const again = await port.accountLink({ connectedAccount: 'acct_new', refreshUrl: 'https://example.test/r', returnUrl: 'https://example.test/done' });
    expect(again.connectedAccount).toBe('acct_new');
    expect(transport.calls.map((call) => call.url.pathname).slice(2)).toEqual(['/v1/account_links']);
  });

  it('surfaces a processor error as a failure (the caller retries or reports it)', async () => {
    const failing = (async () =>
      Response.json({ error: { type: 'invalid_request_error', message: 'No such account' } }, { status: 400 })) as unknown as typeof fetch;
    const port = stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: failing });
    await expect(port.refund({ connectedAccount: 'acct_x', paymentRef: 'pi_1', amountCents: 1, platformFeeCents: 0, metadata: {}, idempotencyKey: 'k' })).rejects.toThrow(
      /No such account/,
    );
  });

  describe('notifications', () => {
    const port = stripePayments({ secretKey: 'sk_test_x', webhookSecret: secret, fetch: standIn(() => ({})).fetch });
    const signed = (payload: string, key = secret) => new Headers({ 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: key }) });

    const succeeded = JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      account: 'acct_landlord',
      data: { object: { id: 'pi_1', object: 'payment_intent', amount: 250000, amount_received: 250000, currency: 'usd', metadata: { payment_id: 'p1' } } },
    });

    it('reads a payment notification signed by the SDK test helper', async () => {
      expect(await port.readNotification(signed(succeeded), succeeded)).toEqual({
        eventId: 'evt_1',
        connectedAccount: 'acct_landlord',
        kind: 'payment_succeeded',
        paymentRef: 'pi_1',
        amountCents: 250000,
        currency: 'usd',
        metadata: { payment_id: 'p1' },
        failureMessage: undefined,
      });
    });

    it('reads failed payments, refunds and account updates', async () => {
      const failed = JSON.stringify({
        id: 'evt_2',
        type: 'payment_intent.payment_failed',
        account: 'acct_landlord',
        data: { object: { id: 'pi_2', amount: 100, currency: 'usd', metadata: {}, last_payment_error: { message: 'Your card was declined.' } } },
      });
      expect(await port.readNotification(signed(failed), failed)).toMatchObject({ kind: 'payment_failed', paymentRef: 'pi_2', failureMessage: 'Your card was declined.' });
      const refunded = JSON.stringify({
        id: 'evt_3',
        type: 'charge.refunded',
        account: 'acct_landlord',
        data: { object: { id: 'ch_1', payment_intent: 'pi_1', amount_refunded: 5000, metadata: {} } },
      });
      expect(await port.readNotification(signed(refunded), refunded)).toMatchObject({ kind: 'refunded', paymentRef: 'pi_1', amountRefundedCents: 5000 });
      const account = JSON.stringify({
        id: 'evt_4',
        type: 'account.updated',
        account: 'acct_landlord',
        data: {
          object: {
            id: 'acct_landlord',
            charges_enabled: true,
            payouts_enabled: false,
            details_submitted: true,
            external_accounts: { data: [{ object: 'bank_account', last4: '6789' }] },
          },
        },
      });
      expect(await port.readNotification(signed(account), account)).toEqual({
        eventId: 'evt_4',
        connectedAccount: 'acct_landlord',
        kind: 'account_updated',
        chargesEnabled: true,
        payoutsEnabled: false,
        detailsSubmitted: true,
        bankAccountLast4: '6789',
      });
    });

    it('ignores event types the service does not act on', async () => {
      const other = JSON.stringify({ id: 'evt_5', type: 'customer.created', data: { object: { id: 'cus_1' } } });
      expect(await port.readNotification(signed(other), other)).toBeNull();
    });

    it('rejects a missing, foreign or tampered signature', async () => {
      await expect(port.readNotification(new Headers(), succeeded)).rejects.toBeInstanceOf(CallbackRejected);
      await expect(port.readNotification(signed(succeeded, 'whsec_someone_else'), succeeded)).rejects.toBeInstanceOf(CallbackRejected);
      await expect(port.readNotification(signed(succeeded), succeeded.replace('250000', '1'))).rejects.toBeInstanceOf(CallbackRejected);
    });
  });

  it('sandbox never reaches the processor; live refuses to run unconfigured', async () => {
    expect(paymentsPort('sandbox').kind).toBe('sandbox');
    await expect(paymentsPort('sandbox').readNotification(new Headers(), '{}')).rejects.toBeInstanceOf(CallbackRejected);
    expect(() => paymentsPort('live')).toThrow(/STRIPE_SECRET_KEY/);
  });
});
