// The sandbox helpers' answers that do not fit the state: 409 with a clear code, nothing moved.
import { describe, expect, it } from 'vitest';
import { openClaim } from '../claims/fixtures.ts';
import { inDays, placeWithDates, scene } from './fixtures.ts';

describe('sandbox helpers out of turn', () => {
  it('household: not on the request, answers to a placed home, a signature before the contract is out, bad bodies', async () => {
    const s = await scene();
    const household = (body: Record<string, unknown>) => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, body);
    expect((await household({ action: 'save' })).body.error?.code).toBe('not_on_request');
    await placeWithDates(s.api, s.ref, s.home);
    for (const action of ['save', 'apply']) {
      const res = await household({ action });
      expect(res.status).toBe(409);
      expect(res.body.error?.code).toBe('option_not_open');
    }
    expect((await household({ action: 'decline', reason: 'x' })).body.error?.code).toBe('option_not_open');
    // The send-contract job has not run yet: the helper sends the contract itself (as the runner would within seconds), then signs.
    const early = await household({ action: 'sign' });
    expect(early.status, early.text).toBe(200);
    expect((await household({ action: 'sign' })).body.error?.code).toBe('lease_not_signable');

    const invalid: [Record<string, unknown>, string, string][] = [
      [{ action: 'wave' }, 'invalid_field', 'action'],
      [{ action: 'decline' }, 'invalid_field', 'reason'],
      [{ action: 'propose_dates', move_in: inDays(40) }, 'invalid_field', 'move_out'],
      [{ action: 'save', move_in: inDays(40) }, 'invalid_field', 'move_in'],
      [{ action: 'propose_dates', move_in: inDays(40), move_out: inDays(50) }, 'stay_too_short', 'move_out'],
      [{ action: 'propose_dates', move_in: inDays(-3), move_out: inDays(50) }, 'invalid_field', 'move_in'],
    ];
    for (const [body, code, field] of invalid) {
      const res = await household(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    }
  });

  it('landlord: nothing to approve, a countersignature before the first; a home placed on another request meanwhile does not stop the approval', async () => {
    const s = await scene();
    const landlord = (body: Record<string, unknown>) => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, body);
    await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    expect((await landlord({ action: 'approve_application' })).body.error?.code).toBe('option_not_open');
    expect((await landlord({ action: 'sign' })).body.error?.code).toBe('lease_not_signable');
    await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'apply' });
    const other = await openClaim(s.api);
    expect((await s.api.post(`/claims/${other.claim_ref}/options`, { property_id: s.home, action: 'place', approve_budget: true })).status).toBe(200);
    // The home is committed by the nights of a stay, not per request: both go on, and dates decide.
    expect((await landlord({ action: 'approve_application' })).status).toBe(200);
    expect((await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0]).toMatchObject({ application_status: 'approved_to_lease' });
    expect((await landlord({ action: 'pay' })).body.error).toMatchObject({ code: 'invalid_field', field: 'action' });
  });
});
