// Signed links need PAY_LINK_SECRET where more than one worker serves: on the Edge Runtime an unset
// or short secret is refused with the setting named, and the pages and the placement read say so
// clearly instead of failing.
import { afterEach, describe, expect, it } from 'vitest';
import { NotConfigured } from '../../shared/placements/ports/provider.ts';
import { linkSecret, minimumLinkSecretLength } from '../../shared/placements/pay-link.ts';
import { call } from '../helpers.ts';
import { signedLease } from './payment-fixtures.ts';

const saved = process.env.PAY_LINK_SECRET;
afterEach(() => {
  if (saved === undefined) delete process.env.PAY_LINK_SECRET;
  else process.env.PAY_LINK_SECRET = saved;
  delete (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime;
});

describe('PAY_LINK_SECRET', () => {
  it('is required on the Edge Runtime, and at least 32 characters anywhere', () => {
    delete process.env.PAY_LINK_SECRET;
    expect(linkSecret()).toHaveLength(72); // the local process's own random secret
    (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime = 'edge-runtime';
    expect(() => linkSecret()).toThrow(NotConfigured);
    expect(() => linkSecret()).toThrow(/set PAY_LINK_SECRET/);
    process.env.PAY_LINK_SECRET = 'x'.repeat(minimumLinkSecretLength - 1);
    expect(() => linkSecret()).toThrow(/at least 32 characters/);
    process.env.PAY_LINK_SECRET = 'x'.repeat(minimumLinkSecretLength);
    expect(linkSecret()).toBe('x'.repeat(minimumLinkSecretLength));
  });

  it('too short: the placement read leaves pay_in_app_url out, the pages answer 503 saying so', async () => {
    const s = await signedLease();
    process.env.PAY_LINK_SECRET = 'x'.repeat(40);
    const url = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.pay_in_app_url as string;
    const path = new URL(url).pathname.replace(/^\/functions\/v1/, '');
    process.env.PAY_LINK_SECRET = 'short';
    const placement = await s.api.get(`/claims/${s.ref}/placement`);
    expect(placement.status).toBe(200);
    expect(placement.body.data.pay_in_app_url).toBeNull();
    const page = await call('GET', path);
    expect(page.status).toBe(503);
    expect(page.text).toContain('not available yet');
  });
});
