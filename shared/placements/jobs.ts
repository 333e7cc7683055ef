import { withTenant, type Tenant } from '../db/tenant.ts';
import { emit } from '../events/outbox.ts';
import { moveStatus } from '../claims/lifecycle.ts';
import { enqueue } from '../jobs/queue.ts';
import type { JobDefinition } from '../jobs/runner.ts';
import { placementPorts } from './ports/index.ts';
import type { EmailMessage } from './ports/types.ts';
import { contractContext, lockLease, moveLease } from './lease.ts';

// The placement's durable jobs. Each acts for the tenant that queued it (row-level security as for
// its API calls) and talks to the third party outside any transaction.

const tenantOf = (job: { org_id: string; environment: 'live' | 'sandbox' }): Tenant => ({ orgId: job.org_id, environment: job.environment });

/** send_contract: creates the contract at the e-signature provider and moves the lease to sent_for_signature. */
export const sendContract: JobDefinition<{ lease_id: string }> = {
  kind: 'send_contract',
  async run({ lease_id }, { job }) {
    const tenant = tenantOf(job);
    const context = await withTenant(tenant, (tx) => contractContext(tx, lease_id));
    if (!context || context.status !== 'awaiting_lease') return { skipped: `lease is ${context?.status ?? 'gone'}` };
    if (!context.signer_email) throw new Error('no address for the first signer: name a signer (POST signer) or set adjuster_email');
    const home = context.home;
    const landlordEmail = home?.owner_contact_email ?? (tenant.environment === 'sandbox' ? 'landlord@sandbox.invalid' : null);
    if (!landlordEmail) throw new Error("the home's provider has no contact address (operator console: org contact)");
    const { esign } = placementPorts(tenant.environment);
    const sent = await esign.send({
      leaseId: context.lease_id,
      title: `Lease: ${home?.name ?? home?.address ?? 'home'} (${context.reference})`,
      fields: {
        reference: context.reference,
        property: home?.name ?? '',
        address: home ? `${home.address}, ${home.city}, ${home.state}` : '',
        move_in: context.move_in_date,
        move_out: context.move_out_date,
        tenant: context.signer_name ?? context.policyholder_name ?? '',
      },
      signers: [
        { role: 'tenant', name: context.signer_name ?? 'Placement team', email: context.signer_email },
        { role: 'landlord', name: home?.name ?? 'Landlord', email: landlordEmail },
      ],
    });
    const outcome = await withTenant(tenant, async (tx) => {
      await lockLease(tx, lease_id);
      const moved = await moveLease(tx, lease_id, 'contract_sent', { provider_ref: sent.providerRef, sent_at: 'now' });
      if (!moved) {
        // Superseded while it was being sent: the contract that just went out is withdrawn.
        await enqueue(tx, 'withdraw_contract', { provider_ref: sent.providerRef, reason: 'superseded before it was recorded' }, { dedupeKey: sent.providerRef });
        return 'withdrawn';
      }
      await emit(tx, 'lease.sent', {
        request_id: context.request_id,
        reference: context.reference,
        external_id: context.external_id,
        property_id: context.property_id,
        lease_id,
        move_in_date: moved.move_in_date,
        move_out_date: moved.move_out_date,
        sent_at: moved.sent_at!.toISOString(),
      });
      await moveStatus(tx, [context.request_id], 'lease_execution');
      return 'sent';
    });
    return { provider_ref: sent.providerRef, outcome };
  },
};

/** withdraw_contract: stops the signature links of a superseded or withdrawn contract. */
export const withdrawContract: JobDefinition<{ provider_ref: string; reason: string }> = {
  kind: 'withdraw_contract',
  async run({ provider_ref, reason }, { job }) {
    await placementPorts(job.environment).esign.withdraw(provider_ref, reason);
    return { withdrawn: provider_ref };
  },
};

/** send_email: one message through the email port of the job's environment. */
export const sendEmail: JobDefinition<EmailMessage> = {
  kind: 'send_email',
  async run(message, { job }) {
    if (message.to.length === 0) return { skipped: 'no recipient address' };
    const sent = await placementPorts(job.environment).email.send(message);
    return { provider_ref: sent.providerRef };
  },
};

export const placementJobs = [sendContract, withdrawContract, sendEmail];
