// The household's page: the link its email carries opens its own page for the home, where it saves,
// declines, proposes dates or applies, with exactly what the sandbox helper does; links expire, are
// replaced by a re-send or a changed contact, cannot be forged, and forms from another site are refused.
import { describe, expect, it } from 'vitest';
import { call, ownerSql } from '../helpers.ts';
import { signHouseholdLink, contactDigest } from '../../shared/placements/pay-link.ts';
import { drainJobs, events, inDays, jobsOf, scene } from './fixtures.ts';

/** A request whose household was sent the home; the path of its page. */
async function sent(claim: Record<string, unknown> = {}) {
  const s = await scene('sandbox', { claim });
  expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true })).status).toBe(200);
  await drainJobs(s.c.orgId);
  const link = await s.api.get(`/sandbox/claims/${s.ref}/homes/${s.home}/household-link`);
  expect(link.status).toBe(200);
  return { ...s, page: pathOf(link.body.data.url), expiresAt: link.body.data.expires_at as string };
}

const pathOf = (url: string) => new URL(url).pathname.replace(/^\/functions\/v1/, '');
const answer = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call('POST', path, { body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

describe("the household's page", () => {
  it('is emailed on send (link signed when the email goes out), shows the home as listed and what the household can answer', async () => {
    const s = await sent();
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    expect(job).toMatchObject({ status: 'succeeded', result: { to: ['family@example.com'] } });
    expect(JSON.stringify(job.payload)).not.toMatch(/household\/ey/);
    expect(Date.parse(s.expiresAt) - Date.now()).toBeGreaterThan(13 * 86_400_000);
    const page = await call('GET', s.page);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('A home for you');
    expect(page.text).toContain('You pay nothing');
    expect(page.text).toContain('Test St, Austin, TX');
    for (const control of ['value="apply"', 'value="save"', 'name="move_in"', 'name="reason"']) expect(page.text).toContain(control);
    expect(page.text).not.toMatch(/<script/i);
  });

  it('says what the household pays itself when the request names the policyholder as a payer, on the page and in the email', async () => {
    const s = await sent({ deposit_payer: 'policyholder' });
    const page = (await call('GET', s.page)).text;
    expect(page).not.toContain('You pay nothing');
    expect(page).toContain('What you pay:</strong> the refundable deposits, $1,500.00, directly to the landlord');
    expect(page).toContain('Your insurer pays:</strong> the rent and the fees');
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    expect(JSON.stringify(job.result)).toContain('except what the page shows you pay yourself');
  });

  it('save, propose dates, apply: the same state, events and timeline as the helper', async () => {
    const s = await sent();
    const saved = await answer(s.page, { action: 'save' });
    // Back to the page itself, relative to its address (whatever prefix the gateway serves it under).
    expect([saved.status, saved.headers.get('location')]).toEqual([303, `./${s.page.split('/').pop()}`]);
    expect((await call('GET', s.page)).text).toContain('You saved this home');
    expect(await events(s.c.orgId, 'option.saved')).toHaveLength(1);

    const applied = await answer(s.page, { action: 'apply' });
    expect(applied.status).toBe(303);
    expect((await call('GET', s.page)).text).toContain('You applied');
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('landlord_approval');
    expect(await events(s.providerOrg, 'application.received')).toHaveLength(1);

    const proposed = await answer(s.page, { action: 'propose_dates', move_in: inDays(45), move_out: inDays(120) });
    expect(proposed.status).toBe(303);
    expect((await events(s.c.orgId, 'dates.proposed')).map((e) => e.payload)).toEqual([expect.objectContaining({ move_in: inDays(45), move_out: inDays(120) })]);
    expect((await call('GET', s.page)).text).toContain('You proposed other dates');
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.filter((e: any) => e.type === 'household.responded');
    expect(timeline.map((e: any) => e.detail.action)).toEqual(['save', 'apply', 'propose_dates']);
    // Nothing the state no longer allows: saving again is refused with the reason.
    const again = await answer(s.page, { action: 'save' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('not possible now');
  });

  it('proposing other dates first still offers apply and decline; once applied, the carrier can approve the proposal', async () => {
    const s = await sent();
    expect((await answer(s.page, { action: 'propose_dates', move_in: inDays(45), move_out: inDays(120) })).status).toBe(303);
    const page = (await call('GET', s.page)).text;
    expect(page).toContain('You proposed other dates');
    expect(page).toContain('You have not applied for the home yet');
    expect(page).toContain('value="apply"');
    expect(page).toContain('name="reason"');
    expect((await answer(s.page, { action: 'apply' })).status).toBe(303);
    expect((await call('GET', s.page)).text).not.toContain('value="apply"');
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_application' });
    const approved = await s.api.post(`/claims/${s.ref}/dates/approve-proposal`, { property_id: s.home });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ move_in_date: inDays(45), move_out_date: inDays(120) });
  });

  it('shows the money: the rent, what the insurer pays and what the household pays, with amounts; amenities in words', async () => {
    const s = await sent({ deposit_payer: 'policyholder' });
    await ownerSql()`update app.properties set amenities = ${['washer_dryer', 'wifi']} where id = ${s.home}`;
    const page = (await call('GET', s.page)).text;
    expect(page).toMatch(/Rent, each month<\/td><td class="amount">\$2,500\.00</);
    expect(page).toMatch(/Refundable deposits<\/td><td class="amount">\$1,500\.00/);
    expect(page).toContain('What you pay:</strong> the refundable deposits, $1,500.00');
    expect(page).toContain('Your insurer pays:</strong> the rent');
    expect(page).toContain('Washer and dryer');
    expect(page).not.toContain('washer_dryer');
  });

  it('signed but unpaid: says the lease is signed, and the household that owes the deposit pays it from its own page, its share only', async () => {
    const s = await sent({ deposit_payer: 'policyholder' });
    await answer(s.page, { action: 'apply' });
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_application' });
    await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(130) });
    await drainJobs(s.c.orgId);
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' });
    // Signed by the household alone: the header and the lease card agree.
    const half = (await call('GET', s.page)).text;
    expect(half).toContain('You signed the lease; the landlord countersigns it next.');
    expect(half).not.toContain('look for the e-signature email');
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'sign' });
    const page = (await call('GET', s.page)).text;
    expect(page).not.toContain('out for signature');
    expect(page).toContain('Your lease is signed');
    expect(page).toContain('signed by you and the landlord');
    expect(page).toContain(`href="${s.page.split('/').pop()}/pay"`);
    expect(page).toContain('Pay the refundable deposits, $1,500.00');
    // The button opens the household's own pay link: its share alone, nothing of the insurer's.
    const opened = await call('GET', `${s.page}/pay`);
    expect(opened.status).toBe(303);
    const payPath = new URL(opened.headers.get('location')!, `http://x${s.page}/pay`).pathname;
    expect(payPath).toMatch(/^\/pay\/ey/);
    const pay = (await call('GET', payPath)).text;
    expect(pay).toContain('Paid by the policyholder');
    expect(pay).not.toContain('Paid by the insurance carrier');
    expect(pay.match(/<form/g)).toHaveLength(1);
    const fields = new URLSearchParams({ charge_type: 'initial', payer: 'policyholder', amount_cents: '150000', outcome: 'succeeded' });
    const paid = await call('POST', payPath, { body: fields.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(paid.status).toBe(303);
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home.payments.map((p: any) => [p.payer, p.amount])).toEqual([['policyholder', 1500]]);
    // Paid, the household page offers no button any more; the insurer's share is still due.
    expect((await call('GET', s.page)).text).not.toContain('/pay"');
    expect((await call('GET', `${s.page}/pay`)).status).toBe(404);
  });

  it('declines with a reason (required); the page then says so', async () => {
    const s = await sent();
    expect((await answer(s.page, { action: 'decline' })).status).toBe(422);
    expect((await answer(s.page, { action: 'sign' })).status).toBe(422);
    expect((await answer(s.page, { action: 'propose_dates', move_in: inDays(1) })).status).toBe(422);
    const declined = await answer(s.page, { action: 'decline', reason: 'Too far from school' });
    expect(declined.status).toBe(303);
    expect((await events(s.c.orgId, 'option.declined')).map((e) => e.payload.reason)).toEqual(['Too far from school']);
    const page = (await call('GET', s.page)).text;
    expect(page).toContain('You declined this home');
    expect(page).toContain('Too far from school');
    expect(page).not.toContain('value="apply"');
  });

  it('refuses an expired, forged, replaced or re-addressed link, and a form from another site', async () => {
    const s = await sent();
    const [placement] = await ownerSql()<{ id: string; household_link_at: Date }[]>`
      select id, household_link_at from app.claim_options where claim_id = ${s.claim.id}`;
    const old = await signHouseholdLink({
      placementId: placement.id, orgId: s.c.orgId, environment: 'sandbox', issue: placement.household_link_at.getTime(),
      sentTo: await contactDigest('family@example.com'),
    }, new Date(Date.now() - 15 * 86_400_000));
    const expired = await call('GET', `/household/${old}`);
    expect([expired.status, expired.text.includes('expired')]).toEqual([410, true]);

    const token = s.page.split('/').pop()!;
    const forged = `${token.slice(0, -4)}${token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect((await call('GET', `/household/${forged}`)).status).toBe(403);
    // A pay link of the same placement is not a household link.
    const payLink = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.pay_in_app_url as string;
    expect((await call('GET', `/household/${pathOf(payLink).split('/').pop()}`)).status).toBe(403);

    const crossSite = await answer(s.page, { action: 'save' }, { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await events(s.c.orgId, 'option.saved')).toHaveLength(0);

    // A re-send: a new link works, the old one is replaced.
    const resent = await s.api.post(`/claims/${s.ref}/options/${s.home}/household-link`);
    expect(resent.status).toBe(202);
    expect(resent.body.data).toMatchObject({ property_id: s.home, sent_to: 'family@example.com', link_issued_at: expect.any(String) });
    await drainJobs(s.c.orgId);
    const replaced = await call('GET', s.page);
    expect([replaced.status, replaced.text.includes('replaced')]).toEqual([410, true]);
    expect((await answer(s.page, { action: 'save' })).status).toBe(410);
    const fresh = pathOf((await s.api.get(`/sandbox/claims/${s.ref}/homes/${s.home}/household-link`)).body.data.url);
    expect((await call('GET', fresh)).status).toBe(200);
    expect((await jobsOf(s.c.orgId, 'send_household_link')).map((j) => j.status)).toEqual(['succeeded', 'succeeded']);

    // The household contact changed on the request: the link sent to the old address stops working.
    expect((await s.api.patch(`/claims/${s.ref}`, { household_email: 'new@example.com' })).status).toBe(200);
    expect((await call('GET', fresh)).status).toBe(410);
  });

  it('another household\'s link opens only its own home; placed homes have no link; live keys get no helper', async () => {
    const a = await sent();
    const b = await sent();
    expect((await call('GET', a.page)).text).not.toContain(b.ref);
    const placed = await scene();
    await placed.api.post(`/claims/${placed.ref}/options`, { property_id: placed.home, action: 'place', approve_budget: true });
    expect((await placed.api.get(`/sandbox/claims/${placed.ref}/homes/${placed.home}/household-link`)).body.error?.code).toBe('option_not_open');
    expect((await placed.api.post(`/claims/${placed.ref}/options/${placed.home}/household-link`)).body.error?.code).toBe('option_not_open');
    expect((await a.c.liveApi.get(`/sandbox/claims/${a.ref}/homes/${a.home}/household-link`)).body.error?.code).toBe('sandbox_only');
    expect((await call('GET', '/household/not-a-token')).status).toBe(403);
    expect((await call('GET', '/household')).status).toBe(404);
  });

  it('after signing and payment shows the stay and offers the signed lease as a PDF', async () => {
    const s = await sent();
    expect((await call('GET', `${s.page}/lease`)).status).toBe(404);
    await answer(s.page, { action: 'apply' });
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_application' });
    await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(130) });
    await drainJobs(s.c.orgId);
    for (const who of ['household', 'landlord']) await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/${who}`, { action: 'sign' });
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' });
    const page = (await call('GET', s.page)).text;
    expect(page).toContain('Your stay is booked');
    const long = (date: string) => new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
    expect(page).toContain(`${long(inDays(40))} to ${long(inDays(130))}`);
    expect(page).toContain('Download your signed lease');
    const lease = await call('GET', `${s.page}/lease`);
    expect(lease.status).toBe(200);
    expect(lease.headers.get('content-type')).toBe('application/pdf');
    expect(lease.headers.get('content-disposition')).toBe(`attachment; filename="lease-${s.ref}.pdf"`);
    expect(lease.text.startsWith('%PDF-')).toBe(true);
  });

  it('the sandbox keeps the emails it sent, readable through GET /sandbox/emails with their text and HTML', async () => {
    const s = await sent();
    await answer(s.page, { action: 'apply' });
    await drainJobs(s.c.orgId);
    const emails = await s.api.get('/sandbox/emails');
    expect(emails.status).toBe(200);
    const offered = emails.body.data.find((e: any) => e.topic === 'home.offered');
    expect(offered).toMatchObject({ to: ['family@example.com'], status: 'sent', subject: expect.stringContaining('A home for you') });
    expect(offered!.text).toContain('/household/');
    expect(offered!.html).toContain('<a href=');
    expect(emails.body.data.map((e: any) => e.topic)).toContain('application.received');
    const first = await s.api.get('/sandbox/emails?limit=1');
    expect(first.body.data).toHaveLength(1);
    expect((await s.api.get(`/sandbox/emails?limit=1&cursor=${first.body.next_cursor}`)).body.data[0].id).not.toBe(first.body.data[0].id);
    expect((await s.c.liveApi.get('/sandbox/emails')).body.error?.code).toBe('sandbox_only');
    // Another organisation's sandbox sees none of them.
    const other = await scene();
    expect((await other.api.get('/sandbox/emails')).body.data).toEqual([]);
  });
});
