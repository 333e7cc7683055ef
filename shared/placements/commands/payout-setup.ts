import { withTenant } from '../../db/tenant.ts';
import { publicBaseUrl } from '../../public-url.ts';
import { readSetupLink, signSetupLink } from '../pay-link.ts';
import { paymentsPort } from '../ports/index.ts';
import { attachProcessorAccount, readOnboarding } from '../../properties/payouts.ts';

// finish_setup_url of a live payout account: a signed link to the service (GET /pay/setup/<token>)
// that, when someone at the provider opens it, creates the Connect account if there is none yet and
// a one-time onboarding link, and redirects there. Account links expire within minutes, so one is
// created on demand at each visit rather than stored; account.updated notifications report the
// outcome (./notifications.ts).

/** The setup page of a link: <public base>/pay/setup/<token>. */
const setupPage = (token: string) => `${publicBaseUrl()}/pay/setup/${token}`;

export async function setupPageUrl(orgId: string): Promise<string> {
  return setupPage(await signSetupLink(orgId, 'live'));
}

/** Opens the processor's onboarding for the link's provider; returns where to send the browser. */
export async function startSetup(token: string): Promise<string> {
  const { orgId, environment } = await readSetupLink(token);
  // The processor sends the browser back to this page, at the service's public address.
  const here = setupPage(token);
  const tenant = { orgId, environment };
  const account = await withTenant(tenant, (tx) => readOnboarding(tx, tenant));
  const link = await paymentsPort(environment).accountLink({
    connectedAccount: account.processor_account_id ?? undefined,
    email: account.email ?? undefined,
    refreshUrl: here,
    returnUrl: `${here}?result=returned`,
  });
  if (!account.processor_account_id) {
    await withTenant(tenant, (tx) => attachProcessorAccount(tx, tenant, link.connectedAccount));
  }
  return link.url;
}
