import type { Context } from 'hono';
import { withTenant } from '../../db/tenant.ts';
import type { AppEnv } from '../../http/context.ts';
import { publicBaseUrl, readSetupLink, signSetupLink } from '../pay-link.ts';
import { paymentsPort } from '../ports/index.ts';
import { attachProcessorAccount, readOnboarding } from '../../properties/payouts.ts';

// finish_setup_url of a live payout account: a signed link to the service (GET /pay/setup/<token>)
// that, when someone at the provider opens it, creates the Connect account if there is none yet and
// a one-time onboarding link, and redirects there. Account links expire within minutes, so one is
// created on demand at each visit rather than stored; account.updated notifications report the
// outcome (./notifications.ts).

export async function setupPageUrl(requestUrl: string, orgId: string): Promise<string> {
  return `${publicBaseUrl(requestUrl)}/pay/setup/${await signSetupLink(orgId, 'live')}`;
}

/** Opens the processor's onboarding for the link's provider; returns where to send the browser. */
export async function startSetup(c: Context<AppEnv>, token: string): Promise<string> {
  const { orgId, environment } = await readSetupLink(token);
  const here = new URL(c.req.url);
  here.search = '';
  const tenant = { orgId, environment };
  const account = await withTenant(tenant, (tx) => readOnboarding(tx, tenant));
  const link = await paymentsPort(environment).accountLink({
    connectedAccount: account.processor_account_id ?? undefined,
    email: account.email ?? undefined,
    refreshUrl: here.toString(),
    returnUrl: `${here.toString()}?result=returned`,
  });
  if (!account.processor_account_id) {
    await withTenant(tenant, (tx) => attachProcessorAccount(tx, tenant, link.connectedAccount));
  }
  return link.url;
}
