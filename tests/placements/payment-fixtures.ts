// Shared set-up of the payment tests: a sandbox request with a fully signed lease, and the pay page
// driven as a browser would (fetch the page, read its form, submit it).
import { call, client, createKey, ownerSql } from '../helpers.ts';
import { drainJobs, placeWithDates, scene } from './fixtures.ts';

export { events, inDays } from './fixtures.ts';

/**
 * A live lease signed by both, as the e-signature provider's callbacks would leave it (live tests
 * have no e-signature provider), with what it charges posted to the stay's ledger as its signing
 * posts it (the post_signed_charges job: a signing outside the signing command posts nothing).
 */
export async function signLiveLease(leaseId: string) {
  const [lease] = await ownerSql()<{ org_id: string; environment: string; claim_option_id: string }[]>`
    update app.lease_agreements set status = 'fully_signed', sent_at = coalesce(sent_at, now()), policyholder_signed_at = now(), owner_signed_at = now()
     where id = ${leaseId} returning org_id, environment, claim_option_id`;
  await ownerSql()`insert into app.jobs (kind, org_id, environment, payload)
                   values ('post_signed_charges', ${lease.org_id}, ${lease.environment}, ${ownerSql().json({ placement_id: lease.claim_option_id })})`;
  await drainJobs(lease.org_id);
}

/** A carrier request with a fully signed lease on a provider's home; the provider has an API key too. */
export async function signedLease(environment: 'live' | 'sandbox' = 'sandbox', options: Parameters<typeof scene>[1] = {}) {
  const s = await scene(environment, options);
  const lease = await placeWithDates(s.api, s.ref, s.home);
  await drainJobs(s.c.orgId);
  const helper = environment === 'sandbox' ? s.api : null;
  if (helper) {
    for (const [who, action] of [['household', 'sign'], ['landlord', 'sign']] as const) {
      const res = await helper.post(`/sandbox/claims/${s.ref}/homes/${s.home}/${who}`, { action });
      if (res.status !== 200) throw new Error(`${who} ${action}: ${res.status} ${res.text}`);
    }
  }
  const providerKey = await createKey(s.providerOrg, environment);
  return { ...s, lease, providerApi: client(providerKey.key) };
}

/** The path under /functions/v1 of an absolute pay_in_app_url. */
export const pagePath = (url: string) => new URL(url).pathname.replace(/^\/functions\/v1/, '');

export async function payUrl(api: ReturnType<typeof client>, ref: string): Promise<string> {
  const res = await api.get(`/claims/${ref}/placement`);
  if (res.status !== 200) throw new Error(`placement: ${res.status} ${res.text}`);
  return res.body.data.pay_in_app_url as string;
}

/** Each payer's own pay page (`pay_links` of the placement read), as paths. */
export async function payLinks(api: ReturnType<typeof client>, ref: string): Promise<Record<string, string>> {
  const res = await api.get(`/claims/${ref}/placement`);
  if (res.status !== 200) throw new Error(`placement: ${res.status} ${res.text}`);
  return Object.fromEntries((res.body.data.pay_links as { payer: string; url: string }[]).map((link) => [link.payer, pagePath(link.url)]));
}

export const fetchPage = (path: string) => call('GET', path);

/** Reads the page's form (hidden fields) and submits it with the button `outcome`, as a browser does. */
export async function submitPage(path: string, outcome?: 'succeeded' | 'failed') {
  return postForm(path, formOf((await fetchPage(path)).text), outcome);
}

/** The hidden fields of a page's (first) form. */
export function formOf(html: string): URLSearchParams {
  return formsOf(html)[0] ?? new URLSearchParams();
}

/** The hidden fields of each form of a page, in order (one per payer's share on the pay page). */
export function formsOf(html: string): URLSearchParams[] {
  return html.split('<form').slice(1).map((form) => {
    const fields = new URLSearchParams();
    for (const [, name, value] of form.split('</form>')[0].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name, value);
    return fields;
  });
}

/** Submits a form (a page shown earlier, possibly submitted before). */
export function postForm(path: string, form: URLSearchParams, outcome?: 'succeeded' | 'failed') {
  const fields = new URLSearchParams(form);
  if (outcome) fields.set('outcome', outcome);
  return call('POST', path, { body: fields.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}
