// The landlord's answer through the provider API: the applications households made for its homes,
// approved or declined with a reason, once; the same command as the sandbox landlord helper.
import { describe, expect, it } from 'vitest';
import { openClaim, provider } from '../claims/fixtures.ts';
import { client, createKey, ownerSql } from '../helpers.ts';
import { events, inDays, jobsOf, scene } from './fixtures.ts';

/** A request whose household applied for the provider's home; the provider's keys. */
async function applied(options: Parameters<typeof scene>[1] = {}) {
  const s = await scene('sandbox', options);
  expect((await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true })).status).toBe(200);
  expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'apply' })).status).toBe(200);
  const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
  return { ...s, provider };
}

describe('the landlord answers applications through the provider API', () => {
  it('is told of the application, lists it without the household\'s contact details, approves it once', async () => {
    const s = await applied();
    const [received] = await events(s.providerOrg, 'application.received');
    expect(received.payload).toMatchObject({ reference: s.ref, property_id: s.home, household: { adults: expect.any(Number) } });
    // The landlord's email says the one thing to do, with the application's id.
    const [email] = await jobsOf(s.c.orgId, 'send_email').then((jobs) => jobs.filter((j) => j.payload.topic === 'application.received'));
    expect(email.payload.text).toContain(`POST /properties/applications/${received.payload.application_id}`);
    expect(email.payload.text).not.toContain('family@example.com');
    const listed = await s.provider.get('/properties/applications?status=pending');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: received.payload.application_id, reference: s.ref, property_id: s.home, status: 'pending', decided_at: null })]);
    expect(listed.text).not.toContain('family@example.com');
    expect(listed.text).not.toContain('adjuster@example.com');

    const approved = await s.provider.post(`/properties/applications/${received.payload.application_id}`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', decided_at: expect.any(String) });
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0]).toMatchObject({ application_status: 'approved_to_lease' });
    // The carrier sets the dates next.
    expect((await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) })).status).toBe(200);
    const again = await s.provider.post(`/properties/applications/${received.payload.application_id}`, { decision: 'decline', reason: 'Changed my mind' });
    expect([again.status, again.body.error?.code]).toEqual([409, 'already_answered']);
    expect((await s.provider.get('/properties/applications?status=pending')).body.data).toEqual([]);
  });

  it('declines with a reason: the carrier sees it, its timeline says so, and the request moves back', async () => {
    const s = await applied();
    const [received] = await events(s.providerOrg, 'application.received');
    const id = received.payload.application_id;
    const noReason = await s.provider.post(`/properties/applications/${id}`, { decision: 'decline' });
    expect(noReason.body.error).toMatchObject({ code: 'invalid_field', field: 'reason' });
    const declined = await s.provider.post(`/properties/applications/${id}`, { decision: 'decline', reason: 'No pets allowed after all' });
    expect(declined.body.data).toMatchObject({ status: 'declined', decline_reason: 'No pets allowed after all' });
    const home = (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
    expect(home).toMatchObject({ application_status: 'declined', application_decline_reason: 'No pets allowed after all' });
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data;
    expect(timeline.find((e: any) => e.type === 'application.declined')).toMatchObject({ detail: { reason: 'No pets allowed after all' }, summary: expect.stringContaining('No pets') });
    expect((await s.api.get(`/claims/${s.ref}`)).body.data.status_primary).toBe('housing_options_found');
    expect((await events(s.c.orgId, 'request.status_changed')).at(-1)!.payload).toMatchObject({ status: 'housing_options_found', previous_status: 'landlord_approval' });
    const dates = await s.api.post(`/claims/${s.ref}/dates`, { property_id: s.home, move_in: inDays(40), move_out: inDays(100) });
    expect(dates.body.error).toMatchObject({ code: 'could_not_set_dates', message: expect.stringContaining('declined') });
    // The sandbox helper answers the same way, once.
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'approve_application' })).body.error?.code).toBe('already_answered');
  });

  it('the sandbox helper declines with a reason too, and needs one', async () => {
    const s = await applied();
    const landlord = (body: Record<string, unknown>) => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, body);
    expect((await landlord({ action: 'decline_application' })).body.error).toMatchObject({ code: 'invalid_field', field: 'reason' });
    expect((await landlord({ action: 'sign', reason: 'x' })).body.error).toMatchObject({ code: 'invalid_field', field: 'reason' });
    const declined = await landlord({ action: 'decline_application', reason: 'Booked privately' });
    expect(declined.status).toBe(200);
    expect(declined.body.data).toMatchObject({ application_status: 'declined', application_decline_reason: 'Booked privately' });
  });

  it('pages newest first; refuses another provider, the other environment, a carrier key and a read-only key', async () => {
    const s = await applied();
    const second = await openClaim(s.api, { household_email: 'other@example.com' });
    await s.api.post(`/claims/${second.claim_ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    await s.api.post(`/sandbox/claims/${second.claim_ref}/homes/${s.home}/household`, { action: 'apply' });
    const first = await s.provider.get('/properties/applications?limit=1');
    expect(first.body.data.map((a: any) => a.reference)).toEqual([second.claim_ref]);
    const next = await s.provider.get(`/properties/applications?limit=1&cursor=${first.body.next_cursor}`);
    expect(next.body.data.map((a: any) => a.reference)).toEqual([s.ref]);
    expect(next.body.next_cursor).toBeNull();
    expect((await s.provider.get('/properties/applications?cursor=nonsense')).body.error?.field).toBe('cursor');
    expect((await s.provider.get('/properties/applications?status=maybe')).body.error?.field).toBe('status');

    const id = first.body.data[0].id;
    const stranger = client((await createKey(await provider(), 'sandbox')).key);
    expect((await stranger.get('/properties/applications')).body.data).toEqual([]);
    expect((await stranger.post(`/properties/applications/${id}`, { decision: 'approve' })).status).toBe(404);
    const live = client((await createKey(s.providerOrg, 'live')).key);
    expect((await live.post(`/properties/applications/${id}`, { decision: 'approve' })).status).toBe(404);
    expect((await s.api.get('/properties/applications')).body.error?.code).toBe('forbidden');
    const readOnly = client((await createKey(s.providerOrg, 'sandbox', { scopes: ['bookings:read'] })).key);
    expect((await readOnly.get('/properties/applications')).status).toBe(200);
    expect((await readOnly.post(`/properties/applications/${id}`, { decision: 'approve' })).body.error?.code).toBe('forbidden');
    expect((await s.provider.post('/properties/applications/not-a-uuid', { decision: 'approve' })).status).toBe(404);
    const [row] = await ownerSql()`select application_status from app.claim_options where id = ${id}`;
    expect(row.application_status).toBe('applied');
  });
});
