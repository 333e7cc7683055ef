// The journey to a fully signed lease in sandbox, through the API and the counterpart helpers only.
import { describe, expect, it } from 'vitest';
import { drainJobs, events, inDays, jobsOf, scene } from './fixtures.ts';

describe('placing a home to a fully signed lease (sandbox)', () => {
  it('budget, place, dates, contract sent by the job, both signatures; every state and event on the way', async () => {
    const { c, api, home, ref, claim } = await scene();

    const review = await api.get(`/claims/${ref}/options/${home}/budget`);
    expect(review.status).toBe(200);
    expect(review.body.data.approval).toEqual({ budget_approved: false, approved_at: null, on_request: false });
    const approved = await api.post(`/claims/${ref}/options/${home}/budget`, { approved: true });
    expect(approved.status).toBe(200);
    expect(approved.body.data.approval).toMatchObject({ budget_approved: true, approved_at: expect.any(String) });

    const placed = await api.post(`/claims/${ref}/options`, { property_id: home, action: 'place' });
    expect(placed.status).toBe(200);
    expect(placed.body.data).toEqual({
      request_id: claim.id, property_id: home, option_status: 'approved', application_status: 'approved_to_lease',
      budget_approved: true, adjuster_placed_at: expect.any(String), household_link_delivery: null,
    });
    expect((await api.get(`/claims/${ref}`)).body.data.status_primary).toBe('landlord_approval');

    const dates = await api.post(`/claims/${ref}/dates`, { property_id: home, move_in: inDays(40), move_out: inDays(130) });
    expect(dates.status).toBe(200);
    expect(dates.body.data).toEqual({ id: expect.any(String), shortened_move_out_date: null, move_in_date: inDays(40), move_out_date: inDays(130), status: 'awaiting_lease' });

    expect(await drainJobs(c.orgId)).toMatchObject({ failed: 0 });
    const sent = (await api.get(`/claims/${ref}/placement`)).body.data;
    expect(sent.status).toBe('lease_execution');
    expect(sent.homes[0].lease).toMatchObject({ id: dates.body.data.id, status: 'sent_for_signature', sent_for_signature_at: expect.any(String), policyholder_signed_at: null });
    expect((await events(c.orgId, 'lease.sent')).map((e) => e.payload)).toEqual([expect.objectContaining({ lease_id: dates.body.data.id, reference: ref })]);

    const first = await api.post(`/sandbox/claims/${ref}/homes/${home}/household`, { action: 'sign' });
    expect(first.status).toBe(200);
    expect(first.body.data.lease).toMatchObject({ status: 'policyholder_signed', policyholder_signed_at: expect.any(String), owner_signed_at: null });
    const second = await api.post(`/sandbox/claims/${ref}/homes/${home}/landlord`, { action: 'sign' });
    expect(second.status).toBe(200);
    expect(second.body.data.lease).toMatchObject({ status: 'fully_signed', owner_signed_at: expect.any(String) });
    // Both signed: lease_signed, then at once payment_setup (awaiting the payer), in the specification's order.
    expect((await api.get(`/claims/${ref}`)).body.data.status_primary).toBe('payment_setup');
    expect((await events(c.orgId, 'lease.first_signed')).length).toBe(1);
    expect((await events(c.orgId, 'lease.signed')).length).toBe(1);
    const statuses = (await events(c.orgId, 'request.status_changed')).map((e) => e.payload.status);
    expect(statuses).toEqual(['housing_needs_collected', 'housing_options_found', 'landlord_approval', 'lease_execution', 'lease_signed', 'payment_setup']);
    expect((await jobsOf(c.orgId)).map((j) => [j.kind, j.status])).toEqual([['source_new_requests', 'succeeded'], ['send_email', 'succeeded'], ['send_contract', 'succeeded']]);
  });
});
