import { withTenant, type Tenant } from '../db/tenant.ts';
import { emit } from '../events/outbox.ts';
import { moveStatus } from '../claims/lifecycle.ts';
import { enqueue } from '../jobs/queue.ts';
import type { ServiceJob } from '../jobs/runner.ts';
import { paymentsPort, placementPorts } from './ports/index.ts';
import { fromCents } from '../money.ts';
import { refundedBy } from './stay-money.ts';
import { postSignedVersions } from './stay-ledger.ts';
import { confirmedBooking } from './booking-repository.ts';
import { homeLabel } from './listing-repository.ts';
import { moveRefundRequest, refundContext } from './refund-repository.ts';
import { recordRefunded } from './payment-repository.ts';
import { onHome } from './render.ts';
import { contractContext, moveLease } from './lease.ts';
import { inPlacement, inPlacementById, lockLeaseOf } from './unit-of-work.ts';
import { closeStay } from './commands/booking.ts';
import { rereadContract } from './commands/callback.ts';
import { currentHouseholdLink, householdLinkEmail } from './commands/household-link.ts';
import { homeListing } from './listing-repository.ts';
import { chooseLanguage } from '../i18n/index.ts';
import { recordUndeliveredLink } from './undelivered.ts';

// The placement's durable jobs, all of them (their kinds and payloads: shared/jobs/kinds.ts). Each
// acts for the tenant that queued it (row-level security as for its API calls), talks to the third
// party outside any transaction, and is safe to run twice.

const tenantOf = (job: { org_id: string; environment: 'live' | 'sandbox' }): Tenant => ({ orgId: job.org_id, environment: job.environment });

/** send_contract: creates the contract at the e-signature provider and moves the lease to sent_for_signature. */
export const sendContract: ServiceJob<'send_contract'> = {
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
    // The lease and its addendums alike: the provider's signing emails in the household's language.
    const { language } = chooseLanguage({ stated: context.household_language });
    const sent = await esign.send({
      leaseId: context.lease_id,
      title: `${context.kind === 'addendum' ? 'Extension addendum' : 'Lease'}: ${home?.name ?? home?.address ?? 'home'} (${context.reference})`,
      language,
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
    // The lease is locked after its request and placement, the order every writer keeps (unit-of-work.ts).
    const outcome = await inPlacement(tenant, { reference: context.request_id, propertyId: context.property_id }, async (unit) => {
      const { tx } = unit;
      await lockLeaseOf(unit, lease_id);
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
      // The adjuster is copied when the lease went to someone else (the household, a named signer).
      if (context.adjuster_email && context.adjuster_email !== context.signer_email) {
        await enqueue(tx, 'send_email', {
          to: [context.adjuster_email],
          subject: `Copy: lease for ${home?.name ?? home?.address ?? 'the home'} sent for signature (${context.reference})`,
          text: `The lease for ${home?.name ?? 'the home'} (${context.move_in_date} to ${context.move_out_date}) went to ` +
            `${context.signer_name ?? context.signer_email} for signature, then to the landlord. Request ${context.reference}.`,
          topic: 'lease.copy',
        }, { dedupeKey: `lease.copy:${lease_id}` });
      }
      return 'sent';
    }, { cancelled: 'include' });
    // The language is kept with the call, so an operator reads which one the signing emails went out in (calls list).
    return { provider_ref: sent.providerRef, outcome, language };
  },
};

/** withdraw_contract: stops the signature links of a superseded or withdrawn contract. */
export const withdrawContract: ServiceJob<'withdraw_contract'> = {
  kind: 'withdraw_contract',
  async run({ provider_ref, reason }, { job }) {
    await placementPorts(job.environment).esign.withdraw(provider_ref, reason);
    return { withdrawn: provider_ref };
  },
};

/** reread_contract: after an e-signature callback, applies what the provider's record of the contract shows (commands/callback.ts). */
export const rereadContractJob: ServiceJob<'reread_contract'> = {
  kind: 'reread_contract',
  run: ({ provider_ref }, { job }) => rereadContract(provider_ref, placementPorts(job.environment).esign),
};

/** send_email: one message through the email port of the job's environment. */
export const sendEmail: ServiceJob<'send_email'> = {
  kind: 'send_email',
  async run(message, { job }) {
    if (message.to.length === 0) return { skipped: 'no recipient address' };
    const sent = await placementPorts(job.environment).email.send(message);
    return { provider_ref: sent.providerRef };
  },
};

/**
 * send_household_link: emails the household its link to a home sent to it, signed now, so that it
 * is stored nowhere. A link of an older issue (re-sent meanwhile), or for a home no longer offered,
 * is not sent.
 */
export const sendHouseholdLink: ServiceJob<'send_household_link'> = {
  kind: 'send_household_link',
  async run({ placement_id }, { job }) {
    const tenant = tenantOf(job);
    const message = await inPlacementById(tenant, placement_id, async ({ tx, claim, placement }) => {
      if (placement.option_status === 'declined' || placement.option_status === 'cancelled') return null;
      const [link, home] = await Promise.all([
        currentHouseholdLink(tx, tenant.orgId, claim, placement),
        homeListing(tx, claim.id, placement.property_id),
      ]);
      return householdLinkEmail(link, home?.name ?? home?.address ?? 'a home', claim);
    }, { lock: false });
    if (!message) return { skipped: 'the home is no longer offered to the household' };
    const sent = await placementPorts(job.environment).email.send(message);
    // Sandbox: the message is kept with the job, for the sandbox emails helper (its link grants
    // sandbox data only). Live: only whom it went to; the link is stored nowhere.
    return job.environment === 'sandbox' ? { provider_ref: sent.providerRef, to: message.to, message } : { provider_ref: sent.providerRef, to: message.to };
  },
  // Out of attempts: the link is filed on the placement as undelivered (timeline and event,
  // ./undelivered.ts), so the carrier learns that the household has no link; the send's error stays
  // with staff. A home no longer offered meanwhile needs no link, so nothing is said.
  async abandoned({ placement_id }, { job }) {
    await inPlacementById(tenantOf(job), placement_id, async ({ tx, claim, placement }) => {
      if (placement.option_status === 'declined' || placement.option_status === 'cancelled') return;
      await recordUndeliveredLink(tx, claim, placement, { reason: 'failed', attempts: job.attempts });
    });
  },
};

/**
 * issue_refund: refunds on the landlord's account what the approval posted to the stay's ledger
 * (idempotent at the processor by the refund request's id), with the service fee on the rent it
 * returns, then records it: the request refunded, the processor's record of the payment, payment.refunded.
 */
/** What issue_refund issues: an approved request, or a failed one again (the console's retry). */
const issuable = ['approved', 'failed'] as const;

export const issueRefund: ServiceJob<'issue_refund'> = {
  kind: 'issue_refund',
  async run({ refund_request_id }, { job }) {
    const tenant = tenantOf(job);
    const context = await withTenant(tenant, (tx) => refundContext(tx, refund_request_id));
    // Approved, or failed when the console's retry of the abandoned job runs it again.
    if (!context || !(issuable as readonly string[]).includes(context.request.status)) return { skipped: `refund request is ${context?.request.status ?? 'gone'}` };
    const port = paymentsPort(job.environment);
    if (port.kind === 'live' && (!context.connected_account || !context.payment_ref)) throw new Error('the payment has no processor reference or account');
    const returned = await withTenant(tenant, (tx) => refundedBy(tx, refund_request_id));
    const refund = await port.refund({
      connectedAccount: context.connected_account ?? '',
      paymentRef: context.payment_ref ?? '',
      amountCents: returned.cents,
      platformFeeCents: returned.feeCents,
      metadata: { refund_request_id, environment: job.environment },
      idempotencyKey: `refund:${refund_request_id}`,
    });
    await inPlacementById(tenant, context.request.claim_option_id, async ({ tx, claim }) => {
      const done = await moveRefundRequest(tx, refund_request_id, issuable, 'refunded', 'processor', { provider_ref: refund.providerRef });
      if (!done) return;
      await recordRefunded(tx, done.payment_id, returned.cents, 'add');
      await emit(tx, 'payment.refunded', {
        ...onHome(claim, done),
        refund_request_id,
        outcome: 'approved',
        amount: fromCents(returned.cents),
        currency: done.currency,
      });
    });
    return { provider_ref: refund.providerRef };
  },
  // Out of attempts: the money is still on the landlord's account. The carrier and the landlord are
  // told (the processor's words stay with staff: staff.abandoned_jobs, and the failed step's
  // failure_reason); the request's life gains its failed step, and the console's `job retry` still
  // issues it once its cause is fixed (failed, then refunded), and payment.refunded follows.
  async abandoned({ refund_request_id }, { job, error }) {
    const tenant = tenantOf(job);
    const placementId = (await withTenant(tenant, (tx) => refundContext(tx, refund_request_id)))?.request.claim_option_id;
    if (!placementId) return;
    await inPlacementById(tenant, placementId, async ({ tx, claim }) => {
      // Read again under the placement's locks: a refund issued meanwhile is not announced as failed.
      const request = (await refundContext(tx, refund_request_id))?.request;
      if (request?.status !== 'approved') return;
      await moveRefundRequest(tx, refund_request_id, 'approved', 'failed', 'processor', {
        failure_reason: (error ?? `refused ${job.attempts} times`).slice(0, 2000),
      });
      const failed = {
        refund_request_id,
        payment_id: request.payment_id,
        amount: fromCents(Number(request.amount_cents)),
        currency: request.currency,
        attempts: job.attempts,
        failed_at: new Date().toISOString(),
      };
      await emit(tx, 'payment.refund_failed', { ...onHome(claim, request), ...failed });
      const home = await homeLabel(tx, request.property_id);
      await emit(tx, 'payment.refund_failed', {
        ...failed, reference: claim.claim_ref, property_id: request.property_id, external_id: home.external_id,
      }, { orgId: request.provider_org_id, environment: job.environment });
    });
  },
};

/** advance_stay: moves the request to in_stay when the booking is still confirmed and moved in. */
export const advanceStay: ServiceJob<'advance_stay'> = {
  kind: 'advance_stay',
  async run({ placement_id, to }, { job }) {
    if (to !== 'in_stay') return { skipped: 'the closeout runs on the move-out date (close_stay)' };
    const outcome = await inPlacementById(tenantOf(job), placement_id, async ({ tx, claim }) => {
      const booking = await confirmedBooking(tx, placement_id);
      if (!booking?.move_in_confirmed_at) return { skipped: 'the booking is no longer confirmed and moved in' };
      const moved = await moveStatus(tx, [claim.id], to);
      return { moved: moved.length > 0 };
    });
    return outcome ?? { skipped: 'the placement is gone' };
  },
};

/** close_stay: closes out the stay on its move-out date (commands/booking.ts closeStay), once. */
export const closeStayJob: ServiceJob<'close_stay'> = {
  kind: 'close_stay',
  async run({ placement_id, move_out }, { job }) {
    const outcome = await inPlacementById(tenantOf(job), placement_id, async ({ tx, claim, placement }) => {
      const closed = await closeStay(tx, claim, placement, move_out);
      return closed ? { completed: closed.id } : { skipped: 'the stay was cancelled, already closed, or ends on another date' };
    });
    return outcome ?? { skipped: 'the placement is gone' };
  },
};

/**
 * post_signed_charges: posts what a stay's signed versions charge where it is not posted yet (a stay
 * signed before the ledger existed), in a command of its own under the placement's lock, so no
 * read has to post. Queued once per such stay by the migration that made reading never post.
 */
export const postSignedCharges: ServiceJob<'post_signed_charges'> = {
  kind: 'post_signed_charges',
  async run({ placement_id }, { job }) {
    const outcome = await inPlacementById(tenantOf(job), placement_id, async ({ tx, claim, placement }) => {
      await postSignedVersions(tx, claim, placement);
      return { posted: true };
    });
    return outcome ?? { skipped: 'the placement is gone' };
  },
};
