// Every error of the payment, move-in, cancellation and refund routes, and the pay page's refusals
// (the routes' security cases are generated in tests/security).
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTenant, ownerSql, errorOf } from '../helpers.ts';
import { insertHome } from '../claims/fixtures.ts';
import { fetchPage, pagePath, payUrl, postForm, signedLease } from './payment-fixtures.ts';
import { inDays, placeWithDates, scene } from './fixtures.ts';

describe('payment routes: errors', () => {
  it('the sandbox payment helper: lease not signed, nothing due, not on request, invalid outcome, charges disabled', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const early = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    expect(early.status).toBe(409);
    expect(early.body.error?.code).toBe('lease_not_signed');
    const other = await insertHome(s.providerOrg);
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${other}/payment`, { outcome: 'succeeded' })).body.error?.code).toBe('not_on_request');
    for (const body of [{}, { outcome: 'maybe' }, { outcome: 'succeeded', amount: 1 }]) {
      const res = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, body);
      expect(res.status).toBe(422);
      expect(res.body.error?.code).toBe('invalid_field');
    }

    const signed = await signedLease();
    await ownerSql()`update app.payout_accounts set charges_enabled = false, onboarding_status = 'pending' where org_id = ${signed.providerOrg} and environment = 'sandbox'`;
    expect((await signed.api.post(`/sandbox/claims/${signed.ref}/homes/${signed.home}/payment`, { outcome: 'succeeded' })).body.error?.code).toBe('charges_disabled');
    await ownerSql()`update app.payout_accounts set charges_enabled = true, onboarding_status = 'complete' where org_id = ${signed.providerOrg} and environment = 'sandbox'`;
    expect((await signed.api.post(`/sandbox/claims/${signed.ref}/homes/${signed.home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
    const due = await signed.api.post(`/sandbox/claims/${signed.ref}/homes/${signed.home}/payment`, { outcome: 'succeeded' });
    expect(due.status).toBe(409);
    expect(due.body.error?.code).toBe('nothing_due');
  });

  it('confirm-move-in before payment, cancel and refund on a home never added, invalid bodies, no refund request to answer', async () => {
    const s = await signedLease();
    expect((await s.api.post(`/claims/${s.ref}/confirm-move-in`, { property_id: s.home })).body.error?.code).toBe('not_booked');
    const stranger = await insertHome(s.providerOrg);
    const cancel = await s.api.post(`/claims/${s.ref}/cancel-booking`, { property_id: stranger });
    expect(cancel.status).toBe(404);
    expect(cancel.body.error?.code).toBe('not_on_request');
    expect((await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: stranger })).status).toBe(404);
    expect((await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home })).body.error?.code).toBe('nothing_to_refund');
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_refund' })).body.error?.code).toBe('no_refund_request');
    const invalid: [string, object, string][] = [
      [`/claims/${s.ref}/confirm-move-in`, {}, 'property_id'],
      [`/claims/${s.ref}/cancel-booking`, { property_id: s.home, force: 'yes' }, 'force'],
      [`/claims/${s.ref}/cancel-booking`, { property_id: s.home, reason: '' }, 'reason'],
      [`/claims/${s.ref}/refund-request`, { property_id: 'x' }, 'property_id'],
      [`/claims/${s.ref}/refund-request`, { property_id: s.home, extra: 1 }, 'extra'],
    ];
    for (const [path, body, field] of invalid) {
      const res = await s.api.post(path, body);
      expect(res.status, path).toBe(422);
      expect(errorOf(res.body)).toMatchObject({ code: 'invalid_field', field });
    }
  });
});

describe('the pay page: security', () => {
  it('a link names the contract version it was issued for: once new dates replace the lease, it no longer opens or pays', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home);
    const before = pagePath(await payUrl(s.api, s.ref));
    expect((await fetchPage(before)).status).toBe(200);
    const moved = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(45), move_out: inDays(135) });
    expect(moved.status).toBe(200);
    const stale = await fetchPage(before);
    expect(stale.status).toBe(403);
    expect(stale.text).toContain('The lease changed since this link was issued');
    const paid = await postForm(before, new URLSearchParams({ charge_type: 'initial', payer: 'carrier', amount_cents: '1', outcome: 'succeeded' }));
    expect(paid.status).toBe(403);
    expect((await fetchPage(pagePath(await payUrl(s.api, s.ref)))).status).toBe(200);
  });

  it('the pay page refuses expired, tampered and foreign links with a clear page', async () => {
    const s = await signedLease();
    const url = await payUrl(s.api, s.ref);
    const path = pagePath(url);
    const [head, payload, signature] = path.slice('/pay/'.length).split('.');

    const tampered = await fetchPage(`/pay/${head}.${payload}.${signature.slice(0, -2)}xx`);
    expect(tampered.status).toBe(403);
    expect(tampered.text).toContain('This payment link is not valid');

    // The environment claim rewritten: signed for sandbox, read as live, it no longer verifies.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, env: 'live' })).toString('base64url');
    expect((await fetchPage(`/pay/${head}.${forged}.${signature}`)).status).toBe(403);

    // Signed with another key (another service, or an old secret).
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('someone-elses-secret-of-32-bytes!!'));
    expect((await fetchPage(`/pay/${foreign}`)).status).toBe(403);
    expect((await fetchPage('/pay/not-a-token')).status).toBe(403);

    const { signPayLink } = await import('../../shared/placements/pay-link.ts');
    const old = await signPayLink({ placementId: claims.sub, orgId: claims.org, environment: 'sandbox', leaseId: claims.lease, payer: 'carrier' }, new Date(Date.now() - 2 * 3600_000));
    const expired = await fetchPage(`/pay/${old}`);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This payment link has expired');
    expect((await postForm(`/pay/${old}`, new URLSearchParams({ charge_type: 'initial', amount_cents: '1', outcome: 'succeeded' }))).status).toBe(410);

    // A valid link for another organisation's placement id finds nothing.
    const elsewhere = await signPayLink({ placementId: claims.sub, orgId: (await createTenant('carrier')).orgId, environment: 'sandbox', leaseId: claims.lease, payer: 'carrier' });
    expect((await fetchPage(`/pay/${elsewhere}`)).status).toBe(404);
    expect((await fetchPage(`/pay/${elsewhere}/anything`)).status).toBe(404);

    // A stale page: the amount shown is no longer what is due.
    const stale = await postForm(path, new URLSearchParams({ charge_type: 'initial', payer: 'carrier', amount_cents: '1', outcome: 'succeeded' }));
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('What is due changed');
    const unreadable = await postForm(path, new URLSearchParams({ charge_type: 'deposit', amount_cents: 'x' }));
    expect(unreadable.status).toBe(422);
  });
});
