// The third parties' callbacks are held to what the API holds its callers to: guesses at the
// e-signature provider's static secret are limited per address as guesses at API keys are, its body
// is read as the API reads JSON (a key named twice is refused), and a processor notification dated
// outside the tolerance is refused whichever side of now it falls.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf } from '../helpers.ts';

const esignSecret = 'documenso-secret-for-the-limit-tests';
const webhookSecret = 'whsec_limit_tests';
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  const settings = { ESIGN_CALLBACK_SECRET: esignSecret, STRIPE_SECRET_KEY: 'sk_test_limits', STRIPE_WEBHOOK_SECRET: webhookSecret };
  for (const [name, value] of Object.entries(settings)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const address = () => `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
/** A Documenso callback the service acknowledges without acting on it. */
const opened = JSON.stringify({ event: 'DOCUMENT_OPENED', payload: { id: 1 }, createdAt: new Date().toISOString() });
const callback = (from: string, secret: string, body = opened) =>
  call('POST', '/esign-callback', { address: from, body, headers: { 'content-type': 'application/json', 'x-documenso-secret': secret } });

describe('the e-signature callback', () => {
  it('answers 429 to an address past the failed-authentication limit of API keys, the right secret included, until its window passes', async () => {
    // The window is the clock's minute: start the guesses where they all fall in one.
    const leftOfMinute = 60_000 - (Date.now() % 60_000);
    if (leftOfMinute < 10_000) await new Promise((resolve) => setTimeout(resolve, leftOfMinute + 100));
    const guesser = address();
    const statuses: number[] = [];
    for (let guess = 0; guess < 150; guess++) statuses.push((await callback(guesser, `guess-${guess}`)).status);
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(401));
    expect(statuses.slice(60)).toEqual(Array(90).fill(429));
    // A right guess is refused like a wrong one: the answer tells the guesser nothing.
    const right = await callback(guesser, esignSecret);
    expect([right.status, right.headers.get('retry-after')]).toEqual([429, expect.stringMatching(/^\d+$/)]);
    expect(right.headers.get('x-ratelimit-limit')).toBe('60');
    // The provider's own address is not held back by someone else's guesses.
    expect((await callback(address(), esignSecret)).status).toBe(200);
  });

  it('refuses a body that names a key twice (400 invalid_json), as the API does', async () => {
    const twice = '{"event":"DOCUMENT_OPENED","payload":{"id":1,"id":2}}';
    const refused = await callback(address(), esignSecret, twice);
    expect([refused.status, errorOf(refused.body).code]).toEqual([400, 'invalid_json']);
    expect((await callback(address(), esignSecret)).status).toBe(200);
  });
});

describe('a payment processor notification', () => {
  const notify = (secondsFromNow: number) => {
    const payload = JSON.stringify({ id: `evt_${crypto.randomUUID()}`, object: 'event', type: 'customer.created', livemode: false, data: { object: {} } });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret, timestamp: Math.floor(Date.now() / 1000) + secondsFromNow });
    return call('POST', '/payments-webhook', { body: payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
  };

  it('is refused when signed more than the tolerance (300 s) before or after now, and taken within it', async () => {
    for (const offset of [-600, 600, 3600]) {
      const refused = await notify(offset);
      expect([offset, refused.status, errorOf(refused.body).code]).toEqual([offset, 401, 'invalid_signature']);
    }
    for (const offset of [-200, 0, 200]) expect([offset, (await notify(offset)).status]).toEqual([offset, 200]);
  });
});
