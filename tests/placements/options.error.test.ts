// Every error of the budget and options routes.
import { describe, expect, it } from 'vitest';
import { blockHome, insertHome, openClaim, provider } from '../claims/fixtures.ts';
import { client, createTenant, ownerSql } from '../helpers.ts';
import { drainJobs, inDays, scene } from './fixtures.ts';

describe('GET/POST budget errors', () => {
  it('404 for an unknown request, an unknown or malformed home, a test home on a live request, an unverified or unavailable home', async () => {
    const { api, home, ref, providerOrg, c } = await scene('live');
    expect((await api.get(`/claims/REQ-ZZZZZZ/options/${home}/budget`)).body.error?.code).toBe('not_found');
    expect((await api.get(`/claims/${ref}/options/${crypto.randomUUID()}/budget`)).status).toBe(404);
    expect((await api.get(`/claims/${ref}/options/not-a-uuid/budget`)).status).toBe(404);
    const testHome = await insertHome(providerOrg, { environment: 'sandbox' });
    expect((await api.get(`/claims/${ref}/options/${testHome}/budget`)).status).toBe(404);
    expect((await c.sandboxApi.post('/claims', { loss_address: 'x' })).status).toBe(422);
    await ownerSql()`update app.properties set description = null where id = ${home}`;
    expect((await api.get(`/claims/${ref}/options/${home}/budget`)).status).toBe(404);
    const unavailable = await insertHome(providerOrg, { status: 'unavailable' });
    expect((await api.post(`/claims/${ref}/options/${unavailable}/budget`, { approved: true })).status).toBe(404);
  });

  it('422 invalid_field for a missing or non-boolean approved and unknown fields', async () => {
    const { api, home, ref } = await scene();
    for (const [body, field] of [[{}, 'approved'], [{ approved: 'yes' }, 'approved'], [{ approved: true, extra: 1 }, 'extra']] as const) {
      const res = await api.post(`/claims/${ref}/options/${home}/budget`, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
    }
  });
});

describe('POST options errors', () => {
  it('409 budget_not_approved without an approval or approve_budget; a withdrawn approval counts as none', async () => {
    const { api, home, ref } = await scene();
    const res = await api.post(`/claims/${ref}/options`, { property_id: home, action: 'place' });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('budget_not_approved');
    await api.post(`/claims/${ref}/options/${home}/budget`, { approved: true });
    await api.post(`/claims/${ref}/options/${home}/budget`, { approved: false });
    expect((await api.post(`/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: false })).body.error?.code).toBe('budget_not_approved');
    expect(await ownerSql()`select 1 from app.claim_options where property_id = ${home}`).toHaveLength(0);
  });

  it('422 invalid_field: property_id missing or malformed, action not send or place, signer with send, email without name, unknown field', async () => {
    const { api, home, ref } = await scene();
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'place' }, 'property_id'],
      [{ property_id: 'nope', action: 'place' }, 'property_id'],
      [{ property_id: home }, 'action'],
      [{ property_id: home, action: 'book' }, 'action'],
      [{ property_id: home, action: 'send', signer_name: 'A' }, 'signer_name'],
      [{ property_id: home, action: 'place', signer_email: 'a@example.com' }, 'signer_name'],
      [{ property_id: home, action: 'place', signer_name: 'A', signer_email: 'not-an-email' }, 'signer_email'],
      [{ property_id: home, action: 'place', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post(`/claims/${ref}/options`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
    }
  });

  it('404 not_found for an unknown request or a home the request cannot see', async () => {
    const { api, home, ref, providerOrg } = await scene('live');
    expect((await api.post(`/claims/REQ-ZZZZZZ/options`, { property_id: home, action: 'place', approve_budget: true })).body.error?.code).toBe('not_found');
    const testHome = await insertHome(providerOrg, { environment: 'sandbox' });
    const res = await api.post(`/claims/${ref}/options`, { property_id: testHome, action: 'place', approve_budget: true });
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });

  it('400 could_not_place: provider without charges, send without household_email, declined home (a home on another request is not one)', async () => {
    const first = await scene();
    const other = await openClaim(first.api);
    expect((await first.api.post(`/claims/${first.ref}/options`, { property_id: first.home, action: 'place', approve_budget: true })).status).toBe(200);
    // A home is committed by the nights of a stay (POST dates), not per request.
    expect((await first.api.post(`/claims/${other.claim_ref}/options`, { property_id: first.home, action: 'place', approve_budget: true })).status).toBe(200);

    const noCharges = await scene();
    await ownerSql()`update app.payout_accounts set charges_enabled = false where org_id = ${noCharges.providerOrg}`;
    const refused = await noCharges.api.post(`/claims/${noCharges.ref}/options`, { property_id: noCharges.home, action: 'place', approve_budget: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('could_not_place');
    expect(refused.body.error?.message).toMatch(/charges/);

    const noEmail = await scene('sandbox', { claim: { household_email: undefined } });
    await ownerSql()`update app.claims set household_email = null where id = ${noEmail.claim.id}`;
    const send = await noEmail.api.post(`/claims/${noEmail.ref}/options`, { property_id: noEmail.home, action: 'send', approve_budget: true });
    expect(send.status).toBe(400);
    expect(send.body.error?.message).toMatch(/household_email/);

    const declined = await scene();
    await declined.api.post(`/claims/${declined.ref}/options`, { property_id: declined.home, action: 'send', approve_budget: true });
    await declined.api.post(`/sandbox/claims/${declined.ref}/homes/${declined.home}/household`, { action: 'decline', reason: 'Too far' });
    const again = await declined.api.post(`/claims/${declined.ref}/options`, { property_id: declined.home, action: 'place' });
    expect(again.status).toBe(400);
    expect(again.body.error?.message).toMatch(/declined/);
  });

  it("400 could_not_place with the conflicts when another stay holds nights of the stay the request wants; a stay ending the night before does not", async () => {
    const s = await scene();
    const place = (ref: string, action = 'place') => s.api.post(`/claims/${ref}/options`, { property_id: s.home, action, approve_budget: true });
    // Placed before any nights are held: it stays placed, and a retry answers as before.
    const early = await openClaim(s.api);
    expect((await place(early.claim_ref)).status).toBe(200);
    expect((await place(s.ref)).status).toBe(200);
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) })).status).toBe(200);

    // Wants two months from day 60: the nights up to day 99 are held by the stay above.
    const wanting = await openClaim(s.api, { target_move_in: inDays(60), est_length_months: 2, household_email: 'family@example.com' });
    for (const action of ['place', 'send']) {
      const refused = await place(wanting.claim_ref, action);
      expect(refused.status, action).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'could_not_place',
        field: 'property_id',
        message: expect.stringContaining(inDays(60)),
        conflicts: [{ start_date: inDays(40), end_date: inDays(99), reason: 'held for another placement' }],
      });
      expect(refused.text).not.toContain(s.ref);
    }
    expect(await ownerSql()`select 1 from app.claim_options where claim_id = ${wanting.id}`).toHaveLength(0);

    // The stay's own request, and one placed before the nights were held, place again as before.
    expect((await place(s.ref)).status).toBe(200);
    expect((await place(early.claim_ref)).status).toBe(200);
    // Moving in on the held stay's move-out day is back to back: no night is shared.
    const next = await openClaim(s.api, { target_move_in: inDays(100), est_length_months: 2 });
    expect((await place(next.claim_ref)).status).toBe(200);
    // A provider's own block is not a stay: POST dates judges it (409 dates_unavailable).
    await blockHome(s.home, 'sandbox', inDays(200), inDays(210));
    const blocked = await openClaim(s.api, { target_move_in: inDays(195), est_length_months: 1, household_email: 'family@example.com' });
    expect((await place(blocked.claim_ref, 'send')).status).toBe(200);
  });

  it('409 no_billing_account for a live organisation without a billing account; sandbox never needs one', async () => {
    const tenant = await createTenant('carrier');
    const live = client(tenant.live);
    const providerOrg = await provider();
    const home = await insertHome(providerOrg);
    const made = await openClaim(live);
    const res = await live.post(`/claims/${made.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('no_billing_account');
    const sandbox = client(tenant.sandbox);
    const test = await openClaim(sandbox);
    expect((await sandbox.post(`/claims/${test.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true })).status).toBe(200);
  });
});

describe('POST dates errors', () => {
  async function placed() {
    const s = await scene();
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    return s;
  }

  it('409 not_on_request for a home never put on the request', async () => {
    const { api, home, ref } = await scene();
    const res = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(100) });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('not_on_request');
  });

  it('409 dates_unavailable with the conflicts when something holds part of the range (not only its ends)', async () => {
    const { api, home, ref } = await placed();
    await blockHome(home, 'sandbox', inDays(60), inDays(62));
    // The provider's own reason for its block is its words, not the carrier's to read.
    await ownerSql()`update app.availability_blocks set reason = 'Owner''s family visiting' where property_id = ${home}`;
    const res = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(100) });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'dates_unavailable', conflicts: [{ start_date: inDays(60), end_date: inDays(62), reason: 'blocked by the provider' }] });
    expect(res.text).not.toContain('family');
    expect(await ownerSql()`select 1 from app.lease_agreements l join app.claim_options h on h.id = l.claim_option_id where h.property_id = ${home}`).toHaveLength(0);
  });

  it('409 already_signed once both parties signed', async () => {
    const { api, home, ref, c } = await placed();
    await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(100) });

    await drainJobs(c.orgId);
    await api.post(`/sandbox/claims/${ref}/homes/${home}/household`, { action: 'sign' });
    await api.post(`/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'sign' });
    const res = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(41), move_out: inDays(101) });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('already_signed');
  });

  it('422 stay_too_short on move_out; 422 invalid_field for format, order and a past move_in', async () => {
    const { api, home, ref } = await placed();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ move_in: inDays(40), move_out: inDays(69) }, 'stay_too_short', 'move_out'],
      [{ move_in: inDays(40), move_out: inDays(40) }, 'invalid_field', 'move_out'],
      [{ move_in: inDays(40), move_out: inDays(10) }, 'invalid_field', 'move_out'],
      [{ move_in: inDays(-2), move_out: inDays(60) }, 'invalid_field', 'move_in'],
      [{ move_in: '2026/12/01', move_out: inDays(60) }, 'invalid_field', 'move_in'],
      [{ move_in: inDays(40), move_out: '2027-02-30' }, 'invalid_field', 'move_out'],
      [{ move_in: inDays(40) }, 'invalid_field', 'move_out'],
    ];
    for (const [dates, code, field] of cases) {
      const res = await api.post(`/claims/${ref}/dates`, { property_id: home, ...dates });
      expect(res.status, JSON.stringify(dates)).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    }
    expect((await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(70) })).status).toBe(200);
  });

  it('400 could_not_set_dates while the application is not approved, after a decline, or when the home stopped being offered', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    const early = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) });
    expect(early.status).toBe(400);
    expect(early.body.error?.code).toBe('could_not_set_dates');
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'decline', reason: 'No yard' });
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) })).body.error?.code).toBe('could_not_set_dates');

    const gone = await placed();
    await ownerSql()`update app.properties set status = 'unavailable' where id = ${gone.home}`;
    const res = await gone.api.post(`/claims/${gone.ref}/dates`, { property_id: gone.home, move_in: inDays(40), move_out: inDays(100) });
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('could_not_set_dates');
  });
});

describe('dates and the home\'s availability', () => {
  it('422 invalid_field on move_in before the home\'s available_from; from that day on the dates are set', async () => {
    const s = await scene('sandbox', { home: { available_from: inDays(50) } });
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const early = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) });
    expect(early.status).toBe(422);
    expect(early.body.error).toMatchObject({ code: 'invalid_field', field: 'move_in', message: expect.stringContaining(inDays(50)) });
    expect(await ownerSql()`select 1 from app.lease_agreements where claim_id = ${s.claim.id}`).toHaveLength(0);
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(50), move_out: inDays(100) })).status).toBe(200);
    // A proposal the household makes for earlier dates is refused the same way when the caller approves it.
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'propose_dates', move_in: inDays(45), move_out: inDays(100) });
    expect((await s.api.post(`/claims/${s.ref}/dates/approve-proposal`, { property_id: s.home })).body.error).toMatchObject({ code: 'invalid_field', field: 'move_in' });
  });
});

describe('approve-proposal and signer errors', () => {
  it('approve-proposal: 409 not_on_request, 409 no_proposal, 422 invalid_field', async () => {
    const s = await scene();
    expect((await s.api.post(`/claims/${s.ref}/dates/approve-proposal`, { property_id: s.home })).body.error?.code).toBe('not_on_request');
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    const none = await s.api.post(`/claims/${s.ref}/dates/approve-proposal`, { property_id: s.home });
    expect(none.status).toBe(409);
    expect(none.body.error?.code).toBe('no_proposal');
    expect((await s.api.post(`/claims/${s.ref}/dates/approve-proposal`, {})).body.error).toMatchObject({ code: 'invalid_field', field: 'property_id' });
  });

  it('signer: 409 not_on_request, 422 invalid_field, 409 already_signed', async () => {
    const s = await scene();
    expect((await s.api.post(`/claims/${s.ref}/signer`, { property_id: s.home, signer_name: 'A', signer_email: 'a@example.com' })).body.error?.code).toBe('not_on_request');
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'place', approve_budget: true });
    expect((await s.api.post(`/claims/${s.ref}/signer`, { property_id: s.home, signer_email: 'a@example.com' })).body.error).toMatchObject({ code: 'invalid_field', field: 'signer_name' });
    expect((await s.api.post(`/claims/${s.ref}/signer`, { property_id: s.home, signer_name: 'A', signer_email: 'nope' })).body.error).toMatchObject({ code: 'invalid_field', field: 'signer_email' });
    await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) });

    await drainJobs(s.c.orgId);
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' });
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'sign' });
    const res = await s.api.post(`/claims/${s.ref}/signer`, { property_id: s.home, signer_name: 'B', signer_email: 'b@example.com' });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('already_signed');
  });
});
