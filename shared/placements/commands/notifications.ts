import { withTenant, type Tenant } from '../../db/tenant.ts';
import type { ProcessorNotification } from '../ports/types.ts';
import { liveAccountOwner, setBankAccountLast4, updatePayoutStatus } from '../../properties/payouts.ts';
import { claimProcessorEvent } from '../processor-event-repository.ts';
import { livePaymentByRef, payeeOf, paymentsOf, recordRefunded } from '../payment-repository.ts';
import { chargesNamed, recordCharge } from './payments.ts';
import type { LedgerCharge } from '../ledger.ts';
import { splitCharge } from '../../properties/earnings.ts';
import { log } from '../../log.ts';
import { chargeParts, chargeTypes, partCents, payerOf, shareOf, type ChargePart, type ChargeType, type Payer } from '../billing.ts';
import { payers } from '../../claims/values.ts';
import { isUuid } from '../../ids.ts';
import { inPlacementById, lockLeaseOf } from '../unit-of-work.ts';

// The payment processor's verified notifications, applied in the transaction of the tenant they
// concern. The processor's event id is claimed in that same transaction (app.claim_processor_event),
// so an event is acted on exactly once: delivered twice, the second answers `duplicate`. An event the
// service ignores (not its checkout, another account, another amount) is not claimed.
//
// - payment_intent.succeeded / payment_failed: the charge the pay page's checkout created; its
//   metadata names the placement, the attempt (its pending payment), the period, the payer and the
//   parts of the charge (a payer's share). Recorded by the same
//   command as sandbox payments (./payments.ts).
// - charge.refunded: the payment is marked refunded (the refund job usually got there first).
// - account.updated: the provider's payout account follows the connected account.

export type NotificationOutcome = 'applied' | 'duplicate' | `ignored: ${string}`;

const live = (orgId: string): Tenant => ({ orgId, environment: 'live' });

export async function applyNotification(n: ProcessorNotification): Promise<NotificationOutcome> {
  switch (n.kind) {
    case 'payment_succeeded':
    case 'payment_failed': {
      const m = n.metadata;
      if (m.environment !== 'live' || !m.org_id || !m.placement_id || !m.lease_id) return 'ignored: not a charge of the pay page';
      const outcome = await inPlacementById(live(m.org_id), m.placement_id, async (unit): Promise<NotificationOutcome> => {
        const { tx, claim: request, placement } = unit;
        const lease = await lockLeaseOf(unit, m.lease_id);
        if (!lease) return 'ignored: unknown lease';
        const chargeType = (chargeTypes as readonly string[]).includes(m.charge_type) ? (m.charge_type as ChargeType) : ('initial' as const);
        const cents = { rent: Number(m.rent_cents ?? 0), deposit: Number(m.deposit_cents ?? 0), fees: Number(m.fees_cents ?? 0) };
        const payee = await payeeOf(tx, placement.property_id);
        // The charge must be the checkout's, on this landlord's own account.
        if (n.connectedAccount !== payee.processor_account_id) return "ignored: not the landlord's account";
        if (n.amountCents !== cents.rent + cents.deposit + cents.fees) return 'ignored: amount differs from the checkout';
        // And the checkout's share must be whole parts of that charge on the stay's ledger (as it stands, or as signed).
        const parts = chargeParts.filter((part) => cents[part] !== 0);
        const named = await chargesNamed(tx, request, placement, lease, chargeType, m.period_start);
        // The pay page's attempt recorded what it opened the checkout for: a change of the stay
        // between the checkout and its outcome (a second shortening, an extension) leaves that charge
        // as it was then, and the money moved is recorded all the same.
        const attempt = isUuid(m.payment_id) ? (await paymentsOf(tx, placement.id)).find((p) => p.id === m.payment_id) : undefined;
        const opened = attempt?.lease_agreement_id === lease.id && attempt.charge_type === chargeType && attempt.period_start === m.period_start &&
          parts.every((part) => cents[part] === Number(attempt[`${part}_cents`]));
        const asOpened = opened && named[0] ? withParts(named[0], parts, cents) : undefined;
        const whole = named.find((charge) => parts.every((part) => cents[part] === partCents(charge, part))) ?? asOpened;
        if (!whole || parts.length === 0) {
          log.error('processor charge differs from the signed terms', { event_id: n.eventId, placement_id: placement.id, amount_cents: n.amountCents, expected_cents: named[0]?.split.grossCents ?? null });
          return 'ignored: amount differs from the signed terms';
        }
        // The share's payer as the checkout named it (a checkout made before shares: the payer of its first part).
        const payer = (payers as readonly string[]).includes(m.payer) ? (m.payer as Payer) : payerOf(request)[parts[0]];
        // Claimed once checked, under the request's lock: a second delivery waits here, then finds it claimed.
        if (!(await claimProcessorEvent(tx, n, 'applied'))) return 'duplicate';
        const recorded = await recordCharge(tx, request, placement, { lease, payee, currency: n.currency }, shareOf(whole, payer, parts), whole, {
          status: n.kind === 'payment_succeeded' ? 'succeeded' : 'failed',
          providerRef: n.paymentRef,
          failureReason: n.failureMessage,
          // The pay page's attempt (its pending payment); a checkout opened before attempts were recorded names none.
          attemptId: isUuid(m.payment_id) ? m.payment_id : undefined,
        });
        return recorded ? 'applied' : 'duplicate';
      });
      return outcome ?? 'ignored: unknown placement';
    }
    case 'refunded': {
      const payment = await livePaymentByRef(n.paymentRef);
      if (!payment) return 'ignored: unknown payment';
      return withTenant(live(payment.carrier_org_id), async (tx) => {
        if (!(await claimProcessorEvent(tx, n, 'applied'))) return 'duplicate';
        await recordRefunded(tx, payment.id, n.amountRefundedCents, 'at_least');
        return 'applied';
      });
    }
    case 'account_updated': {
      const account = await liveAccountOwner(n.connectedAccount);
      if (!account) return 'ignored: unknown account';
      return withTenant(live(account.org_id), async (tx) => {
        if (!(await claimProcessorEvent(tx, n, 'applied'))) return 'duplicate';
        await updatePayoutStatus(tx, live(account.org_id), {
          connected: n.detailsSubmitted || n.chargesEnabled || n.payoutsEnabled,
          charges_enabled: n.chargesEnabled,
          payouts_enabled: n.payoutsEnabled,
        });
        await setBankAccountLast4(tx, n.bankAccountLast4);
        return 'applied';
      });
    }
  }
}

/** A charge with the parts a checkout paid at the amounts it paid them (the others as they stand). */
function withParts(charge: LedgerCharge, parts: readonly ChargePart[], cents: Record<ChargePart, number>): LedgerCharge {
  const amount = (part: ChargePart) => (parts.includes(part) ? cents[part] : partCents(charge, part));
  const amounts = { rentCents: amount('rent'), depositCents: amount('deposit'), feesCents: amount('fees') };
  return { ...charge, ...amounts, split: splitCharge(amounts) };
}
