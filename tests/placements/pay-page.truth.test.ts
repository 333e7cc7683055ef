// The pay page tells the truth: its banner comes from the payment the server recorded, not from the
// address; the payer reads plain words, never a state's name; a second submit shows the receipt;
// a live deployment without its payment processor says so instead of failing.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers.ts';
import { signSetupLink } from '../../shared/placements/pay-link.ts';
import { drainJobs, placeWithDates, scene } from './fixtures.ts';
import { fetchPage, formOf, pagePath, payUrl, postForm, signedLease } from './payment-fixtures.ts';

describe('the pay page tells the truth', () => {
  it('shows no "Payment received" for an address that claims it on an unpaid placement', async () => {
    const s = await signedLease();
    const path = pagePath(await payUrl(s.api, s.ref));
    for (const result of ['succeeded', 'failed', 'processing']) {
      const page = await fetchPage(`${path}?result=${result}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Payment received');
      expect(page.text).not.toContain('Payment declined');
    }
    expect((await fetchPage(`${path}?result=processing`)).text).toContain('Payment submitted');
  });

  it('says in plain words why nothing can be paid yet, never a state name', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home);
    await drainJobs(s.c.orgId);
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' });
    const page = await fetchPage(pagePath(await payUrl(s.api, s.ref)));
    expect(page.text).toContain('not signed by everyone yet');
    expect(page.text).not.toMatch(/policyholder_signed|sent_for_signature|fully_signed/);
  });

  it('a second submit of the same page shows the receipt, and charges once', async () => {
    const s = await signedLease();
    const path = pagePath(await payUrl(s.api, s.ref));
    const form = formOf((await fetchPage(path)).text);
    const first = await postForm(path, form, 'succeeded');
    const second = await postForm(path, form, 'succeeded');
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.get('location')).toBe('?result=succeeded');
    const receipt = await fetchPage(`${path}?result=succeeded`);
    expect(receipt.text).toContain('Payment received');
    expect(receipt.text).toContain('Paid so far');
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].payments_succeeded).toBe(1);
  });

  it('a failed payment shows "declined" from the record, whatever the address says', async () => {
    const s = await signedLease();
    const path = pagePath(await payUrl(s.api, s.ref));
    await postForm(path, formOf((await fetchPage(path)).text), 'failed');
    const page = await fetchPage(`${path}?result=succeeded`);
    expect(page.text).toContain('Payment declined');
    expect(page.text).not.toContain('Payment received');
  });

  it('a live finish_setup_url on a deployment without its payment processor says what is missing (503), not a 500', async () => {
    const s = await scene('live');
    const res = await call('POST', `/pay/setup/${await signSetupLink(s.providerOrg, 'live')}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('not available yet');
  });
});
