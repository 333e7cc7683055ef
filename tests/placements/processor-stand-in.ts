// A stand-in for the payment processor in the live payment tests: the real SDK talks to it through a
// stubbed fetch (nothing leaves the machine), every call it answers is kept for the test to read
// (with the connected account and the idempotency key the SDK sent), and its notifications are signed
// with the SDK's own test helper.
import Stripe from 'stripe';
import { afterAll, beforeAll, vi } from 'vitest';
import { call } from '../helpers.ts';

/** The processor's calls of this test file, and a way to send it the processor's notifications. */
export function useProcessorStandIn(secret: string) {
  const checkouts: URLSearchParams[] = [];
  const refunds: URLSearchParams[] = [];
  /** The service fee returned with refunds: application fee refunds on the platform's account. */
  const feeRefunds: URLSearchParams[] = [];
  beforeAll(() => {
    process.env.STRIPE_SECRET_KEY = 'sk_test_standin';
    process.env.STRIPE_WEBHOOK_SECRET = secret;
    const real = globalThis.fetch;
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (url.hostname !== 'api.stripe.com') return real(input, init);
      const form = new URLSearchParams(await request.text());
      form.set('stripe_account', request.headers.get('stripe-account') ?? '');
      form.set('idempotency_key', request.headers.get('idempotency-key') ?? '');
      if (url.pathname === '/v1/accounts') return Response.json({ id: 'acct_created', object: 'account' });
      if (url.pathname === '/v1/account_links') return Response.json({ object: 'account_link', url: `https://connect.stripe.com/setup/e/${form.get('account')}/x` });
      if (url.pathname === '/v1/refunds') {
        refunds.push(form);
        return Response.json({ id: `re_${refunds.length}`, object: 'refund', status: 'succeeded' });
      }
      const intent = url.pathname.match(/^\/v1\/payment_intents\/([^/]+)$/);
      if (intent) return Response.json({ id: intent[1], object: 'payment_intent', latest_charge: { id: `ch_${intent[1]}`, object: 'charge', application_fee: `fee_${intent[1]}` } });
      if (/^\/v1\/application_fees\/[^/]+\/refunds$/.test(url.pathname)) {
        feeRefunds.push(form);
        return Response.json({ id: `fr_${feeRefunds.length}`, object: 'fee_refund' });
      }
      checkouts.push(form);
      return Response.json({ id: `cs_test_${checkouts.length}`, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/cs_test_${checkouts.length}` });
    });
  });
  afterAll(() => vi.unstubAllGlobals());

  /** Sends a processor notification signed with `key` (the configured secret by default). */
  const notify = (body: object, key = secret) => {
    const payload = JSON.stringify(body);
    return call('POST', '/payments-webhook', {
      body: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: key }) },
    });
  };
  return { checkouts, refunds, feeRefunds, notify };
}

/** The metadata a checkout gives its PaymentIntent: what the processor sends back with it. */
export const metadataOf = (checkout: URLSearchParams) =>
  Object.fromEntries(
    [...checkout.entries()].filter(([k]) => k.startsWith('payment_intent_data[metadata]')).map(([k, v]) => [k.slice('payment_intent_data[metadata]['.length, -1), v]),
  );

/** The amount a checkout charges, in cents. */
export const amountOf = (checkout: URLSearchParams) => Number(checkout.get('line_items[0][price_data][unit_amount]'));
