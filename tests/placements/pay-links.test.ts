// Each payer has a pay link of its own: it names the payer (a signed claim), shows that payer's share
// and takes that share only; the carrier's link shows every share, paying its own. A live page whose
// payment processor is unset or cannot be reached says so plainly and leaves no payment pending.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { ownerSql } from '../helpers.ts';
import { signPayLink } from '../../shared/placements/pay-link.ts';
import { fetchPage, formsOf, pagePath, postForm, signedLease, signLiveLease } from './payment-fixtures.ts';

const split = { rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: 'tpa' };

async function splitLease(environment: 'live' | 'sandbox' = 'sandbox') {
  const s = await signedLease(environment, { claim: split, home: { cleaning_fee_cents: 10000 } });
  const placement = async () => (await s.api.get(`/claims/${s.ref}/placement`)).body.data;
  const linkOf = async (payer: string) => pagePath(((await placement()).pay_links as { payer: string; url: string }[]).find((l) => l.payer === payer)!.url);
  return { ...s, placement, linkOf };
}

describe('a pay link per payer', () => {
  it('the placement read issues one link per payer of the request; each shows its own share only', async () => {
    const s = await splitLease();
    const placement = await s.placement();
    expect((placement.pay_links as { payer: string }[]).map((l) => l.payer)).toEqual(['carrier', 'policyholder', 'tpa']);
    expect(pagePath(placement.pay_in_app_url!)).toBe(await s.linkOf('carrier'));

    const household = (await fetchPage(await s.linkOf('policyholder'))).text;
    expect(household).toContain('Paid by the policyholder');
    expect(household).not.toContain('Paid by the insurance carrier');
    expect(household).not.toContain('$2,500.00');
    expect(formsOf(household).map((f) => [f.get('payer'), f.get('amount_cents')])).toEqual([['policyholder', '150000']]);

    // The carrier's link shows every share, and offers a button for its own alone.
    const carrier = (await fetchPage(await s.linkOf('carrier'))).text;
    for (const who of ['the insurance carrier', 'the policyholder', 'the claims administrator']) expect(carrier).toContain(`Paid by ${who}`);
    expect(formsOf(carrier).map((f) => f.get('payer'))).toEqual(['carrier']);
    expect(carrier).toContain('pays this share from its own link');
  });

  it("refuses to take another payer's share with a link (403), and records nothing", async () => {
    const s = await splitLease();
    const path = await s.linkOf('policyholder');
    const forged = new URLSearchParams({ charge_type: 'initial', payer: 'carrier', amount_cents: '250000' });
    const refused = await postForm(path, forged, 'succeeded');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused.text).toContain('only the policyholder&#39;s share');
    const carrierLink = await s.linkOf('carrier');
    expect((await postForm(carrierLink, new URLSearchParams({ charge_type: 'initial', payer: 'tpa', amount_cents: '10000' }), 'succeeded')).status).toBe(403);
    expect((await s.placement()).homes[0].payments).toEqual([]);
    // Its own share it pays.
    expect((await postForm(path, formsOf((await fetchPage(path)).text)[0], 'succeeded')).status).toBe(303);
    expect((await s.placement()).homes[0].payments.map((p: any) => p.payer)).toEqual(['policyholder']);
  });

  it("a link issued before links named their payer is the carrier's; one naming no known payer is refused", async () => {
    const s = await splitLease();
    const claims = decodeJwt((await s.linkOf('carrier')).split('/').pop()!) as { sub: string; org: string; lease: string };
    const link = { placementId: claims.sub, orgId: claims.org, environment: 'sandbox' as const, leaseId: claims.lease };
    const before = await signPayLink({ ...link, payer: undefined as never });
    expect(decodeJwt(before)).not.toHaveProperty('payer');
    const page = (await fetchPage(`/pay/${before}`)).text;
    expect(page).toContain('Paid by the policyholder');
    expect(formsOf(page).map((f) => f.get('payer'))).toEqual(['carrier']);
    expect((await fetchPage(`/pay/${await signPayLink({ ...link, payer: 'landlord' as never })}`)).status).toBe(403);
  });
});

describe('a live pay page whose processor is unset or unreachable', () => {
  const saved = { key: process.env.STRIPE_SECRET_KEY, secret: process.env.STRIPE_WEBHOOK_SECRET };
  afterEach(() => {
    vi.unstubAllGlobals();
    process.env.STRIPE_SECRET_KEY = saved.key;
    process.env.STRIPE_WEBHOOK_SECRET = saved.secret;
    if (saved.key === undefined) delete process.env.STRIPE_SECRET_KEY;
    if (saved.secret === undefined) delete process.env.STRIPE_WEBHOOK_SECRET;
  });

  async function livePage() {
    const s = await splitLease('live');
    await ownerSql()`update app.payout_accounts set processor_account_id = 'acct_unreachable' where org_id = ${s.providerOrg} and environment = 'live'`;
    await signLiveLease(s.lease.id);
    const path = pagePath((await s.placement()).pay_in_app_url!);
    return { ...s, path, form: formsOf((await fetchPage(path)).text)[0] };
  }

  it('unset: an honest 503 page, and no payment recorded', async () => {
    delete process.env.STRIPE_SECRET_KEY;
    delete process.env.STRIPE_WEBHOOK_SECRET;
    const s = await livePage();
    const res = await postForm(s.path, s.form);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('Payments are not available yet');
    expect((await s.placement()).homes[0].payments).toEqual([]);
  });

  it('unreachable (a wrong key): an honest 503 page, and no payment left pending', async () => {
    process.env.STRIPE_SECRET_KEY = 'sk_test_wrong';
    process.env.STRIPE_WEBHOOK_SECRET = 'whsec_wrong';
    const real = globalThis.fetch;
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (new URL(request.url).hostname !== 'api.stripe.com') return real(input, init);
      return Response.json({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_*****ong' } }, { status: 401 });
    });
    const s = await livePage();
    const res = await postForm(s.path, s.form);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('could not be reached');
    expect(res.text).toContain('Nothing was charged');
    const payments = (await s.placement()).homes[0].payments as { status: string }[];
    expect(payments.filter((p) => p.status === 'pending')).toEqual([]);
    // The page announces no failed payment for it.
    expect((await fetchPage(s.path)).text).not.toContain('Payment declined');
  });
});
