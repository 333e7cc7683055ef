// The pages and the third parties' callbacks read a bounded body: a form is a few fields and a
// provider's event a few kilobytes, so a far larger body is refused without being read whole.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { pagePath, payUrl, signedLease } from './payment-fixtures.ts';

const big = (bytes: number) => 'x'.repeat(bytes);

describe('bounded bodies', () => {
  it('the pay page and the household page refuse a form past 16 KB with a page (413)', async () => {
    const s = await signedLease();
    const path = pagePath(await payUrl(s.api, s.ref));
    const form = `charge_type=initial&amount_cents=1&padding=${big(20 * 1024)}`;
    const refused = await call('POST', path, { body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(refused.status).toBe(413);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    const household = await call('POST', '/household/abc.def.ghi', { body: `action=save&padding=${big(20 * 1024)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(household.status).toBe(413);
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments).toEqual([]);
  });

  it('the callbacks refuse a body past 1 MB with the API envelope (413 file_too_large)', async () => {
    for (const path of ['/payments-webhook', '/esign-callback']) {
      const res = await call('POST', path, { body: JSON.stringify({ padding: big(1024 * 1024 + 10) }), headers: { 'content-type': 'application/json' } });
      expect(res.status, path).toBe(413);
      expect((res.body as { error?: { code?: string } }).error?.code).toBe('file_too_large');
    }
  });
});
