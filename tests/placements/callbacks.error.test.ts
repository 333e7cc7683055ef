// The two callbacks on a deployment that has not set up their party: a clear 503 not_configured
// (the party retries later), never a 500; and each answers with or without a trailing slash.
import { beforeAll, expect, it } from 'vitest';
import { call } from '../helpers.ts';

beforeAll(() => {
  for (const name of ['ESIGN_CALLBACK_SECRET', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']) delete process.env[name];
});

it.each(['/esign-callback', '/esign-callback/', '/payments-webhook', '/payments-webhook/'] as const)(
  'POST %s without its settings answers 503 not_configured, naming what to set',
  async (path) => {
    const res = await call('POST', path, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(503);
    expect((res.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'not_configured',
      message: expect.stringMatching(path.startsWith('/esign') ? /ESIGN_CALLBACK_SECRET/ : /STRIPE_SECRET_KEY/),
    });
  },
);
