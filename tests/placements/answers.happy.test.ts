// The household's and landlord's answers through the sandbox helpers, re-dating, a proposal, a
// signer change and a decline: the states, events and timeline entries of each.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { drainJobs, events, inDays, jobsOf, placeWithDates, scene } from './fixtures.ts';

const household = (s: Awaited<ReturnType<typeof scene>>, body: Record<string, unknown>) =>
  s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, body);
const landlord = (s: Awaited<ReturnType<typeof scene>>, body: Record<string, unknown>) =>
  s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, body);
const status = async (s: Awaited<ReturnType<typeof scene>>) => (await s.api.get(`/claims/${s.ref}`)).body.data.status_primary;
const timelineTypes = async (s: Awaited<ReturnType<typeof scene>>) => (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.map((e: any) => e.type);

describe('send: the household saves and applies, the landlord approves, then dates and signatures', () => {
  it('moves the offer and the request through each step', async () => {
    const s = await scene();
    const sent = await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    expect(sent.body.data).toMatchObject({ option_status: 'sent', application_status: 'not_applied', budget_approved: true });
    expect(await status(s)).toBe('options_sent');
    // Sending again is the same row rewritten, and emails the household once.
    expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send' })).status).toBe(200);
    await drainJobs(s.c.orgId);
    // The household's email carries the link to its page for the home (signed when it goes out).
    const emails = await jobsOf(s.c.orgId, 'send_household_link');
    expect(emails).toEqual([expect.objectContaining({ status: 'succeeded', result: expect.objectContaining({ to: ['family@example.com'] }) })]);

    const saved = await household(s, { action: 'save' });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ option_status: 'saved', recipient_response: 'saved', placed_without_recipient: false });
    expect((await events(s.c.orgId, 'option.saved')).length).toBe(1);

    const applied = await household(s, { action: 'apply' });
    expect(applied.body.data).toMatchObject({ option_status: 'saved', application_status: 'applied' });
    expect(await status(s)).toBe('landlord_approval');
    const approved = await landlord(s, { action: 'approve_application' });
    expect(approved.body.data).toMatchObject({ option_status: 'approved', application_status: 'approved_to_lease' });

    const dates = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(35), move_out: inDays(95) });
    expect(dates.status).toBe(200);
    await drainJobs(s.c.orgId);
    // The household chose the home, so the lease goes to the household; the adjuster gets a copy.
    const issued = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].lease;
    expect(issued?.signer).toMatchObject({ email: 'family@example.com' });
    const copies = (await jobsOf(s.c.orgId, 'send_email')).filter((j) => j.payload.topic === 'lease.copy');
    expect(copies).toEqual([expect.objectContaining({ payload: expect.objectContaining({ to: ['adjuster@example.com'] }) })]);
    expect((await household(s, { action: 'sign' })).body.data.lease?.status).toBe('policyholder_signed');
    expect((await landlord(s, { action: 'sign' })).body.data.lease?.status).toBe('fully_signed');
    expect(await status(s)).toBe('payment_setup');
    expect(await timelineTypes(s)).toEqual(expect.arrayContaining([
      'home.added', 'home.offered', 'household.responded', 'application.approved', 'dates.set', 'lease.sent', 'lease.signed_by_recipient', 'lease.signed_by_owner',
    ]));
    // Adding comes first: the offer is never shown before the home was added.
    const order = await timelineTypes(s);
    expect(order.indexOf('home.added')).toBeLessThan(order.indexOf('home.offered'));
    expect(await timelineTypes(s)).not.toContain('home.placed');
  });

  it('a decline with its reason stops the placement and sends the request back to its options', async () => {
    const s = await scene();
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    const declined = await household(s, { action: 'decline', reason: 'Too far from school' });
    expect(declined.body.data).toMatchObject({ option_status: 'declined', recipient_response: 'rejected', decline_reason: 'Too far from school' });
    expect((await events(s.c.orgId, 'option.declined')).map((e) => e.payload.reason)).toEqual(['Too far from school']);
    expect(await status(s)).toBe('housing_options_found');
    const entry = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.find((e: any) => e.type === 'household.responded');
    expect(entry).toMatchObject({ property_id: s.home, detail: { action: 'decline', reason: 'Too far from school' }, summary: expect.stringContaining('Too far') });
    // Answers that no longer fit: 409 with a clear code.
    const late = await household(s, { action: 'apply' });
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe('option_not_open');
  });
});

describe('re-dating, proposals and signer changes', () => {
  it('re-dating before the first signature supersedes the contract, moves the hold and withdraws the sent contract', async () => {
    const s = await scene();
    const first = await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(100));
    await drainJobs(s.c.orgId);
    const second = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(45), move_out: inDays(110) });
    expect(second.status).toBe(200);
    expect(second.body.data.id).not.toBe(first.id);
    await drainJobs(s.c.orgId);
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home.lease).toMatchObject({ id: second.body.data.id, version: 2, status: 'sent_for_signature', move_in_date: inDays(45) });
    expect(home.lease_history).toEqual([expect.objectContaining({ id: first.id, version: 1, status: 'superseded', superseded_at: expect.any(String), move_in_date: inDays(40) })]);
    const holds = await ownerSql()`select lease_agreement_id, start_date, end_date from app.availability_blocks where property_id = ${s.home}`;
    // The stay holds its nights: the move-out day is free for the next check-in.
    expect(holds).toEqual([{ lease_agreement_id: second.body.data.id, start_date: inDays(45), end_date: inDays(109) }]);
    expect((await jobsOf(s.c.orgId, 'withdraw_contract')).map((j) => j.status)).toEqual(['succeeded']);
    const changed = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.find((e: any) => e.type === 'dates.changed');
    expect(changed?.detail).toMatchObject({ previous_move_in_date: inDays(40), previous_move_out_date: inDays(100), move_in_date: inDays(45), move_out_date: inDays(110) });
  });

  it('re-dating after the first signature issues a new unsigned contract (the signature is not carried over)', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home);
    await drainJobs(s.c.orgId);
    await household(s, { action: 'sign' });
    const redated = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(41), move_out: inDays(131) });
    expect(redated.body.data.status).toBe('awaiting_lease');
    await drainJobs(s.c.orgId);
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home.lease).toMatchObject({ status: 'sent_for_signature', policyholder_signed_at: null });
    expect(home.lease_history[0]).toMatchObject({ status: 'superseded', policyholder_signed_at: expect.any(String) });
    // The landlord cannot countersign the new contract before the first signature.
    expect((await landlord(s, { action: 'sign' })).body.error?.code).toBe('lease_not_signable');
  });

  it('a household proposal stops the placement until approved; approving moves the hold and issues a new contract', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(100));
    await drainJobs(s.c.orgId);
    const proposed = await household(s, { action: 'propose_dates', move_in: inDays(50), move_out: inDays(120) });
    expect(proposed.body.data.proposed_dates).toEqual({ move_in: inDays(50), move_out: inDays(120), proposed_at: expect.any(String) });
    expect(await status(s)).toBe('awaiting_approval');
    expect((await events(s.c.orgId, 'dates.proposed')).map((e) => [e.payload.move_in, e.payload.move_out])).toEqual([[inDays(50), inDays(120)]]);
    expect((await household(s, { action: 'sign' })).body.error?.code).toBe('proposal_pending');

    const approved = await s.api.post(`/claims/${s.ref}/dates/approve-proposal`, { property_id: s.home });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ move_in_date: inDays(50), move_out_date: inDays(120), status: 'awaiting_lease' });
    await drainJobs(s.c.orgId);
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home).toMatchObject({ proposed_dates: null, lease: { status: 'sent_for_signature', move_in_date: inDays(50) } });
    expect(await status(s)).toBe('lease_execution');
    const holds = await ownerSql()`select start_date from app.availability_blocks where property_id = ${s.home}`;
    expect(holds).toEqual([{ start_date: inDays(50) }]);
  });

  it('a signer change withdraws the contract and sends a new one to the new signer; without email it returns to the team', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(100), { signer_name: 'Ann Lee', signer_email: 'ann@example.com' });
    await drainJobs(s.c.orgId);
    const placed = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(placed).toMatchObject({ placed_without_recipient: true, signer: { name: 'Ann Lee', email: 'ann@example.com' }, lease: { signer: { email: 'ann@example.com' } } });

    const changed = await s.api.post(`/claims/${s.ref}/signer`, { property_id: s.home, signer_name: 'Bo Chen', signer_email: 'bo@example.com' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ signer: { name: 'Bo Chen', email: 'bo@example.com' }, lease: { status: 'awaiting_lease' } });
    await drainJobs(s.c.orgId);
    const after = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(after.lease).toMatchObject({ version: 2, status: 'sent_for_signature', signer: { name: 'Bo Chen', email: 'bo@example.com' }, move_in_date: inDays(40) });
    expect(after.lease_history.map((l: any) => l.status)).toEqual(['superseded']);

    const team = await s.api.post(`/claims/${s.ref}/signer`, { property_id: s.home });
    expect(team.body.data.signer).toBeNull();
    await drainJobs(s.c.orgId);
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0].lease?.signer).toEqual({ name: null, email: 'adjuster@example.com' });
    expect(await timelineTypes(s)).toEqual(expect.arrayContaining(['home.placed', 'dates.set', 'lease.sent']));
  });

  it('the landlord helper answers refund actions with 409 no_refund_request until part 2 opens them', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home);
    for (const action of ['approve_refund', 'decline_refund']) {
      const res = await landlord(s, { action });
      expect(res.status).toBe(409);
      expect(res.body.error?.code).toBe('no_refund_request');
    }
  });
});
