// What the generated security matrix (tests/security) cannot ask of every route: a home placed by
// one carrier, seen from another carrier's request, shows nothing of the first.
import { beforeAll, describe, expect, it } from 'vitest';
import { carrier, insertHome, openClaim, provider } from '../claims/fixtures.ts';
import { inDays } from './fixtures.ts';

type Owner = Awaited<ReturnType<typeof carrier>>;

let owner: Owner;
let otherOrg: Owner;

beforeAll(async () => {
  owner = await carrier();
  otherOrg = await carrier();
});

describe('the placement of one organisation never shows in another', () => {
  it("a home placed by one carrier is not on another carrier's placement, and its hold reason is not shown", async () => {
    const mine = await openClaim(owner.sandboxApi);
    const h = await insertHome(await provider());
    await owner.sandboxApi.post(`/claims/${mine.claim_ref}/options`, { property_id: h, action: 'place', approve_budget: true });
    await owner.sandboxApi.post(`/claims/${mine.claim_ref}/dates`, { property_id: h, move_in: inDays(40), move_out: inDays(100) });
    const held = [{ start_date: inDays(40), end_date: inDays(99), reason: 'held for another placement' }];
    // Another carrier's request wanting those weeks cannot place the home: the conflict says only that another placement holds them.
    const theirs = await openClaim(otherOrg.sandboxApi);
    expect((await otherOrg.sandboxApi.get(`/claims/${theirs.claim_ref}/placement`)).body.data.homes).toEqual([]);
    const notPlaced = await otherOrg.sandboxApi.post(`/claims/${theirs.claim_ref}/options`, { property_id: h, action: 'place', approve_budget: true });
    expect(notPlaced.body.error?.code).toBe('could_not_place');
    expect(notPlaced.text).not.toContain(mine.claim_ref);
    expect(notPlaced.body.error?.conflicts).toEqual(held);
    // One wanting the weeks after places it, and its dates over the held nights are refused alike.
    const later = await openClaim(otherOrg.sandboxApi, { target_move_in: inDays(100) });
    expect((await otherOrg.sandboxApi.post(`/claims/${later.claim_ref}/options`, { property_id: h, action: 'place', approve_budget: true })).status).toBe(200);
    const refused = await otherOrg.sandboxApi.post(`/claims/${later.claim_ref}/dates`, { property_id: h, move_in: inDays(50), move_out: inDays(110) });
    expect(refused.body.error?.code).toBe('dates_unavailable');
    expect(refused.text).not.toContain(mine.claim_ref);
    expect(refused.body.error?.conflicts).toEqual(held);
  });
});
