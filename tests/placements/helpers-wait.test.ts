// The sandbox helpers wait for what the service sends on its own: a contract version goes out for
// signature by a job within seconds, and a helper called right after it (the README's extension, then
// both signatures and the payment, back to back) signs it instead of refusing. What cannot be waited
// for is a documented 409 saying what is on its way, with Retry-After, in words the API documents.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { drainJobs, events, inDays, placeWithDates, scene } from './fixtures.ts';

/** Words of the lease state machine that the API's messages never use. */
const internalStates = /awaiting_lease|sent_for_signature|policyholder_signed|fully_signed/;

async function booked() {
  const s = await scene();
  await placeWithDates(s.api, s.ref, s.home);
  await drainJobs(s.c.orgId);
  for (const who of ['household', 'landlord']) expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/${who}`, { action: 'sign' })).status).toBe(200);
  expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
  return s;
}

describe('sandbox helpers wait for what the service sends', () => {
  it("the README's extension then both signatures and the payment, back to back with no job run in between, all succeed", async () => {
    const s = await booked();
    const helper = (who: string, body: Record<string, unknown>) => s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/${who}`, body);
    const extension = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) });
    expect(extension.status, extension.text).toBe(201);
    const household = await helper('household', { action: 'sign' });
    expect(household.status, household.text).toBe(200);
    const landlord = await helper('landlord', { action: 'sign' });
    expect(landlord.status, landlord.text).toBe(200);
    const paid = await helper('payment', { outcome: 'succeeded' });
    expect(paid.status, paid.text).toBe(200);
    // The addendum went out as it would have on the runner's tick: sent, then signed by both.
    const sent = (await events(s.c.orgId, 'lease.sent')).map((e: any) => e.payload.lease_id);
    expect(sent).toContain(extension.body.data.id);
    const [addendum] = await ownerSql()`select status, effective_at from app.lease_agreements where id = ${extension.body.data.id}`;
    expect(addendum.status).toBe('fully_signed');
    expect(addendum.effective_at).not.toBeNull();
  });

  it('an addendum a runner is still sending: the helper waits, then answers 409 with Retry-After, saying "addendum" and no internal state', async () => {
    const s = await booked();
    const extension = await s.api.post(`/claims/${s.ref}/extensions`, { property_id: s.home, move_out: inDays(160) });
    expect(extension.status, extension.text).toBe(201);
    // A runner has the send in hand (claimed, its lease running) and does not finish within the wait.
    await ownerSql()`
      update app.jobs set attempts = 1, lease_token = gen_random_uuid(), run_at = now() + interval '1 minute', locked_until = now() + interval '1 minute'
       where kind = 'send_contract' and payload ->> 'lease_id' = ${extension.body.data.id}`;
    const started = Date.now();
    const res = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.error).toMatchObject({ code: 'lease_not_signable', message: expect.stringContaining("extension's addendum is still on its way") });
    expect(res.body.error?.message).not.toMatch(internalStates);
    expect(res.body.error?.message).not.toMatch(/\blease is\b/);
  }, 40_000);

  it('signatures out of turn are refused in plain words: the landlord before the household, the household twice', async () => {
    const s = await scene();
    await placeWithDates(s.api, s.ref, s.home);
    const landlord = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/landlord`, { action: 'sign' });
    expect(landlord.body.error).toMatchObject({ code: 'lease_not_signable', message: "The lease waits for the household's signature first; the landlord countersigns after it." });
    expect((await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' })).status).toBe(200);
    const twice = await s.api.post(`/sandbox/claims/${s.ref}/homes/${s.home}/household`, { action: 'sign' });
    expect(twice.body.error).toMatchObject({ code: 'lease_not_signable', message: 'The lease is already signed by the household; the landlord countersigns it next.' });
    for (const res of [landlord, twice]) expect(res.body.error?.message).not.toMatch(internalStates);
  });
});
