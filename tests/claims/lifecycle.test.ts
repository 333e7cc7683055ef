import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { withTenant } from '../../shared/db/tenant.ts';
import { moveStatus } from '../../shared/claims/lifecycle.ts';
import { canMove, statuses, statusesBefore, type RequestStatus } from '../../shared/claims/status.ts';
import { at, carrier, eventsOf, openClaim, spot } from './fixtures.ts';

describe('status_primary transitions (the rule)', () => {
  it.each([
    ['housing_needs_collected', 'housing_options_found'],
    ['housing_options_found', 'options_sent'],
    ['housing_options_found', 'lease_execution'],
    ['options_sent', 'awaiting_approval'],
    ['awaiting_approval', 'landlord_approval'],
    ['landlord_approval', 'lease_execution'],
    ['lease_execution', 'lease_signed'],
    ['lease_signed', 'payment_setup'],
    ['lease_signed', 'booking_confirmed'],
    ['payment_setup', 'booking_confirmed'],
    ['booking_confirmed', 'move_in_complete'],
    ['move_in_complete', 'in_stay'],
    ['in_stay', 'move_out_closeout'],
    ['options_sent', 'housing_options_found'],
    ['booking_confirmed', 'housing_options_found'],
  ] as [RequestStatus, RequestStatus][])('allows %s → %s', (from, to) => {
    expect(canMove(from, to)).toBe(true);
  });

  it.each([
    ['housing_options_found', 'housing_needs_collected'],
    ['housing_options_found', 'housing_options_found'],
    ['lease_signed', 'lease_execution'],
    ['housing_needs_collected', 'in_stay'],
    ['booking_confirmed', 'in_stay'],
    ['move_in_complete', 'housing_options_found'],
    ['move_in_complete', 'move_out_closeout'],
    ['in_stay', 'move_in_complete'],
    ['move_out_closeout', 'in_stay'],
  ] as [RequestStatus, RequestStatus][])('refuses %s → %s', (from, to) => {
    expect(canMove(from, to)).toBe(false);
  });

  it('lets nothing return to housing_needs_collected and nothing leave move_out_closeout', () => {
    expect(statusesBefore('housing_needs_collected')).toEqual([]);
    expect(statuses.filter((to) => canMove('move_out_closeout', to))).toEqual([]);
  });
});

describe('moveStatus (the one way a status changes)', () => {
  it('moves under the SQL guard, announces request.status_changed, and leaves a request in a status the rule forbids', async () => {
    const c = await carrier();
    const caller = { orgId: c.orgId, environment: 'live' as const };
    const a = await openClaim(c.liveApi, { ...at(spot(6, 0)), external_id: 'MOVE-A' });
    const b = await openClaim(c.liveApi, at(spot(6, 0)));
    await ownerSql()`update app.claims set status_primary = 'in_stay' where id = ${b.id}`;

    const moved = await withTenant(caller, (tx) => moveStatus(tx, [a.id, b.id], 'options_sent'));
    expect(moved).toEqual([{ request_id: a.id, reference: a.claim_ref, external_id: 'MOVE-A', status: 'options_sent', previous_status: 'housing_needs_collected' }]);
    const rows = await ownerSql()`select id, status_primary from app.claims where id in (${a.id}, ${b.id}) order by status_primary`;
    expect(rows).toEqual([{ id: b.id, status_primary: 'in_stay' }, { id: a.id, status_primary: 'options_sent' }]);
    expect((await eventsOf(c.orgId)).at(-1)!.payload).toEqual(moved[0]);

    // Another organisation's request is out of reach (row-level security), whatever its id.
    const other = await carrier();
    const theirs = await openClaim(other.liveApi, at(spot(6, 0)));
    expect(await withTenant(caller, (tx) => moveStatus(tx, [theirs.id], 'options_sent'))).toEqual([]);
    expect((await other.liveApi.get(`/claims/${theirs.id}`)).body.data.status_primary).toBe('housing_needs_collected');
  });

  it('moves a request once when two transactions race for the same move', async () => {
    const c = await carrier();
    const caller = { orgId: c.orgId, environment: 'live' as const };
    const made = await openClaim(c.liveApi, at(spot(6, 0)));
    const results = await Promise.all([1, 2, 3].map(() => withTenant(caller, (tx) => moveStatus(tx, [made.id], 'housing_options_found'))));
    expect(results.flat()).toHaveLength(1);
    expect((await eventsOf(c.orgId)).filter((e) => e.payload.status === 'housing_options_found')).toHaveLength(1);
  });

  it('is refused by the database for a status outside the lifecycle', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(spot(6, 0)));
    await expect(ownerSql()`update app.claims set status_primary = 'closed' where id = ${made.id}`).rejects.toThrow(/check constraint/);
  });
});
