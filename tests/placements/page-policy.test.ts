// What the pages may load and where their forms may go, directive by directive: nothing from
// anywhere but their own inline style; images only on the household's page (the home's photos, which
// the provider hosts, over https); forms to the page itself and on to the processor's own pages.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { drainJobs, inDays, placeWithDates, scene } from './fixtures.ts';

const pathOf = (url: string) => new URL(url).pathname.replace(/^\/functions\/v1/, '');

/** The directives of a Content-Security-Policy header, each with its sources. */
function directives(header: string | null): Record<string, string> {
  return Object.fromEntries((header ?? '').split(';').map((part) => part.trim()).filter(Boolean).map((part) => {
    const [name, ...sources] = part.split(/\s+/);
    return [name, sources.join(' ')];
  }));
}

const forms = "'self' https://checkout.stripe.com https://connect.stripe.com";
const everyPage = { 'default-src': "'none'", 'style-src': "'unsafe-inline'", 'form-action': forms, 'base-uri': "'none'", 'frame-ancestors': "'none'" };

describe("the pages' Content-Security-Policy", () => {
  it('lets the household page load https images only, the pay and problem pages none, and every form go only to the page or the processor', async () => {
    const s = await scene('sandbox', { home: { environment: 'sandbox' } });
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true })).status).toBe(200);
    await drainJobs(s.c.orgId);
    const household = await call('GET', pathOf((await s.api.get(`/sandbox/claims/${s.ref}/homes/${s.home}/household-link`)).body.data.url));
    expect(household.status).toBe(200);
    expect(directives(household.headers.get('content-security-policy'))).toEqual({ ...everyPage, 'img-src': 'https:' });

    await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(130));
    const pay = await call('GET', pathOf((await s.api.get(`/claims/${s.ref}/placement`)).body.data.pay_in_app_url!));
    expect(pay.status).toBe(200);
    expect(pay.text).not.toMatch(/<img/i);
    expect(directives(pay.headers.get('content-security-policy'))).toEqual(everyPage);

    for (const path of ['/pay/forged.token.here', '/household/forged.token.here', '/pay/setup/forged.token.here']) {
      const refused = await call('GET', path);
      expect(refused.status, path).toBe(403);
      expect(directives(refused.headers.get('content-security-policy')), path).toEqual(everyPage);
    }
  });
});
