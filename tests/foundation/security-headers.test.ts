// Every answer of the service's functions, whatever the outcome, says nosniff and
// keeps a browser that came over HTTPS on HTTPS.
import { expect, it } from 'vitest';
import { call } from '../helpers.ts';

it.each([
  ['GET', '/health'],
  ['GET', '/claims'],
  ['GET', '/claims/REQ-ZZZZZZ/nothing-here'],
  ['GET', '/docs'],
  ['GET', '/openapi.json'],
  ['GET', '/pay/not-a-link'],
  ['POST', '/payments-webhook'],
  ['POST', '/esign-callback'],
  ['POST', '/webhook-dispatcher'],
] as const)('%s %s carries X-Content-Type-Options and Strict-Transport-Security', async (method, path) => {
  const res = await call(method, path);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=\d+; includeSubDomains$/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
});
