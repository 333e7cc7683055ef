// Every address the service hands out starts from its configured public address: a request's Host
// is the sender's to choose, so a link built from it would send a household, a payer or a channel
// to the sender's host.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createKey } from '../helpers.ts';
import { drainJobs, inDays, jobsOf, placeWithDates, scene } from './fixtures.ts';

const forged = 'evil.example';
/** The documented default without PUBLIC_BASE_URL: the local server's loopback port. */
const localBase = () => `http://127.0.0.1:${process.env.PORT ?? 54321}/functions/v1`;

/** Matches text that starts with `prefix`. */
const under = (prefix: string) => new RegExp(`^${prefix.replace(/[.]/g, '\\.')}`);

/** The text of the household-link emails a carrier's jobs sent (sandbox keeps the message with the job). */
async function householdEmails(orgId: string): Promise<string[]> {
  await drainJobs(orgId);
  return (await jobsOf(orgId, 'send_household_link')).map((job) => JSON.stringify(job.result?.message ?? null));
}

async function addresses(base: () => string) {
  const s = await scene('sandbox', { home: { environment: 'sandbox' } });
  const sent = await call('POST', `/claims/${s.ref}/options`, {
    key: s.c.sandbox, host: forged, body: { property_id: s.home, action: 'send', approve_budget: true },
  });
  expect(sent.status, sent.text).toBe(200);
  const resent = await call('POST', `/claims/${s.ref}/options/${s.home}/household-link`, { key: s.c.sandbox, host: forged, body: {} });
  expect(resent.status, resent.text).toBe(202);
  const emails = await householdEmails(s.c.orgId);
  expect(emails).toHaveLength(2);
  for (const email of emails) {
    expect(email).toContain(`${base()}/household/`);
    expect(email).not.toContain(forged);
  }
  const helper = await call('GET', `/sandbox/claims/${s.ref}/homes/${s.home}/household-link`, { key: s.c.sandbox, host: forged });
  expect(helper.body.data.url).toMatch(under(`${base()}/household/`));

  await placeWithDates(s.api, s.ref, s.home, inDays(40), inDays(130));
  const placement = await call('GET', `/claims/${s.ref}/placement`, { key: s.c.sandbox, host: forged });
  expect(placement.body.data.pay_in_app_url).toMatch(under(`${base()}/pay/`));

  const providerKey = (await createKey(s.providerOrg, 'sandbox')).key;
  const issued = await call('POST', `/properties/${s.home}/calendar-export`, { key: providerKey, host: forged, body: {} });
  expect(issued.status, issued.text).toBe(201);
  expect(issued.body.data.url).toMatch(under(`${base()}/calendar/cal_test_`));
  // A stay's UID is the service's, whoever polls and whatever Host they name.
  const feed = new URL(issued.body.data.url!).pathname.replace(/^\/functions\/v1/, '');
  const [asForged, asLocal] = [(await call('GET', feed, { host: forged })).text, (await call('GET', feed)).text];
  expect(asForged).toBe(asLocal);
  expect(asForged).toContain(`UID:stay-`);
  expect(asForged).toContain(`@${new URL(base()).hostname}\r\n`);
  expect(asForged).not.toContain(forged);
}

describe('the addresses the service hands out', () => {
  it('without PUBLIC_BASE_URL, come from the local server\'s own address, never the request\'s Host', async () => {
    delete process.env.PUBLIC_BASE_URL;
    await addresses(localBase);
  });

  describe('with PUBLIC_BASE_URL', () => {
    beforeEach(() => void (process.env.PUBLIC_BASE_URL = 'https://homes.example.org/functions/v1/'));
    afterEach(() => void delete process.env.PUBLIC_BASE_URL);

    it('come from it, whatever Host the request names', async () => {
      await addresses(() => 'https://homes.example.org/functions/v1');
    });
  });
});
