import { z } from '@hono/zod-openapi';
import { db, type Tx } from '../db/client.ts';
import type { Tenant } from '../db/tenant.ts';
import { config } from '../config.ts';
import { invalid } from '../domain-errors.ts';

// A provider's payout account on its payment processor, per environment. Setup happens in a browser
// at the processor; the service only reads the outcome. The starting state of each environment
// lives in app.payout_status (live: not connected; sandbox: connected with charges and payouts on).
// Inside the tenant transaction the tenant's own account row is the only one row-level security
// lets a statement see, so reads and updates of it name no organisation or environment.

const onboardingStatuses = ['not_started', 'pending', 'complete'] as const;

export interface PayoutState {
  connected: boolean;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  onboarding_status: (typeof onboardingStatuses)[number];
  bank_account_last4: string | null;
}

export const PayoutStatus = z
  .object({
    environment: z.enum(['live', 'sandbox']),
    connected: z.boolean(),
    onboarding_status: z.enum(onboardingStatuses).describe('not_started, pending (connected, not everything enabled yet) or complete.'),
    charges_enabled: z.boolean().describe("Until true, no family can be placed in the provider's homes."),
    payouts_enabled: z.boolean(),
    bank_account_last4: z.string().nullable(),
    finish_setup_url: z
      .string()
      .nullable()
      .describe(
        'Where someone at the provider finishes setup in a browser (a signed link valid for one hour; its page asks for bank and identity details and starts ' +
          "the processor's onboarding). Given only to a key that also holds `properties:write`; null for a key without it, and null once setup is complete.",
      ),
    updated_at: z.string(),
  })
  .openapi('PayoutStatus');
export type PayoutStatus = z.infer<typeof PayoutStatus>;

/** The bank account a sandbox account reports (the processor's test account number ends 6789). */
const sandboxBankLast4 = '6789';

/** What the processor reports changing: finishing or undoing (part of) the setup. */
export interface ProcessorUpdate {
  connected?: boolean;
  charges_enabled?: boolean;
  payouts_enabled?: boolean;
}

/**
 * The account after the processor's update. Enabling charges or payouts implies a connected
 * account; disconnecting disables both. Onboarding is complete when connected with both enabled.
 * An update that contradicts itself (disconnecting while enabling) is refused.
 */
export function applyProcessorUpdate(current: PayoutState, update: ProcessorUpdate): PayoutState {
  const enabling = update.charges_enabled === true || update.payouts_enabled === true;
  if (update.connected === false && enabling) {
    const field = update.charges_enabled === true ? 'charges_enabled' : 'payouts_enabled';
    throw invalid('invalid_field', `${field} cannot be true on an account that is not connected.`, field);
  }
  const connected = update.connected ?? (current.connected || enabling);
  const charges = connected && (update.charges_enabled ?? current.charges_enabled);
  const payouts = connected && (update.payouts_enabled ?? current.payouts_enabled);
  return {
    connected,
    charges_enabled: charges,
    payouts_enabled: payouts,
    onboarding_status: !connected ? 'not_started' : charges && payouts ? 'complete' : 'pending',
    bank_account_last4: !connected ? null : payouts ? (current.bank_account_last4 ?? sandboxBankLast4) : current.bank_account_last4,
  };
}

interface PayoutRow extends PayoutState {
  environment: 'live' | 'sandbox';
  updated_at: Date;
}

/**
 * How the setup link is given: `false` withholds it (the caller may read the account but not start
 * its setup); otherwise `liveSetupUrl` is the service's own setup link for a live account (opening
 * it creates the processor's onboarding link on demand), and sandbox accounts keep the pay-in-app address.
 */
export type SetupLink = false | { liveSetupUrl?: string };

function render(row: PayoutRow, link: SetupLink = {}): PayoutStatus {
  const liveSetupUrl = link ? link.liveSetupUrl : undefined;
  const setupUrl = new URL(row.environment === 'live' && liveSetupUrl ? liveSetupUrl : new URL('/provider/payouts/setup', config.payInAppBaseUrl()));
  if (row.environment === 'sandbox') setupUrl.searchParams.set('environment', 'sandbox');
  return {
    environment: row.environment,
    connected: row.connected,
    onboarding_status: row.onboarding_status,
    charges_enabled: row.charges_enabled,
    payouts_enabled: row.payouts_enabled,
    bank_account_last4: row.bank_account_last4,
    finish_setup_url: !link || row.onboarding_status === 'complete' ? null : setupUrl.toString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * What the processor's onboarding of the tenant's live account starts from: the connected account
 * created at an earlier visit (null before the first) and the organisation's contact address.
 */
export async function readOnboarding(tx: Tx, tenant: Tenant): Promise<{ processor_account_id: string | null; email: string | null }> {
  const [row] = await tx<{ processor_account_id: string | null; email: string | null }[]>`
    select (app.payout_status(${tenant.orgId}, ${tenant.environment})).processor_account_id,
           (select contact_email from app.organisations) as email`;
  return row;
}

/** Writes the tenant's account row with the environment's starting state unless it exists. */
async function ensureAccountRow(tx: Tx, tenant: Tenant): Promise<void> {
  await tx`
    insert into app.payout_accounts select * from app.payout_status(${tenant.orgId}, ${tenant.environment})
    on conflict (org_id, environment) do nothing`;
}

/**
 * Records the connected account the processor created for the tenant, unless one already is: two
 * visits racing keep the first account.
 */
export async function attachProcessorAccount(tx: Tx, tenant: Tenant, processorAccountId: string): Promise<void> {
  await ensureAccountRow(tx, tenant);
  await tx`
    update app.payout_accounts set processor_account_id = ${processorAccountId}, updated_at = clock_timestamp()
     where processor_account_id is null`;
}

/**
 * The organisation whose live payout account is the processor's connected account, across tenants
 * (the processor's notification carries no key), or null.
 */
export async function liveAccountOwner(processorAccountId: string | null): Promise<{ org_id: string } | null> {
  const [account] = await db()<{ org_id: string }[]>`
    select org_id from app.payout_accounts where environment = 'live' and processor_account_id = ${processorAccountId}`;
  return account ?? null;
}

/** The bank account the processor reports for the tenant's payouts. */
export async function setBankAccountLast4(tx: Tx, last4: string | null): Promise<void> {
  await tx`update app.payout_accounts set bank_account_last4 = ${last4}`;
}

export async function readPayoutStatus(tx: Tx, tenant: Tenant, link: SetupLink): Promise<PayoutStatus> {
  const [row] = await tx<PayoutRow[]>`select * from app.payout_status(${tenant.orgId}, ${tenant.environment})`;
  return render(row, link);
}

/**
 * Applies a processor update to the tenant's account. The account row is written with the
 * environment's starting state first when it does not exist yet, then locked, so concurrent updates
 * queue and each applies to the result of the one before.
 */
export async function updatePayoutStatus(tx: Tx, tenant: Tenant, update: ProcessorUpdate): Promise<PayoutStatus> {
  await ensureAccountRow(tx, tenant);
  const [current] = await tx<PayoutRow[]>`select * from app.payout_accounts for update`;
  const next = applyProcessorUpdate(current, update);
  const [row] = await tx<PayoutRow[]>`
    update app.payout_accounts set
      connected = ${next.connected}, charges_enabled = ${next.charges_enabled}, payouts_enabled = ${next.payouts_enabled},
      onboarding_status = ${next.onboarding_status}, bank_account_last4 = ${next.bank_account_last4}, updated_at = clock_timestamp()
    returning *`;
  return render(row);
}
