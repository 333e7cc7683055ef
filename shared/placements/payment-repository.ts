import { db, type Tx } from '../db/client.ts';
import type { ChargeShare, ChargeType, Payer } from './billing.ts';

// The SQL of payments (app.payments): a charge's outcome recorded, money returned on it, the landlord
// it is paid to. Payments are rows owned by the landlord, written by the carrier whose request they
// are for (the counterpart policies of the payments migration). Everything but livePaymentByRef
// (which finds the tenant of a processor notification) runs inside the request's tenant transaction.

export interface Payee {
  org_id: string;
  name: string;
  processor_account_id: string | null;
  charges_enabled: boolean;
  contact_email: string | null;
}

export async function payeeOf(tx: Tx, propertyId: string): Promise<Payee> {
  const [row] = await tx<Payee[]>`select * from app.payee_of(${propertyId}, app.current_env())`;
  return row;
}

export interface PaymentRow {
  id: string;
  org_id: string;
  booking_id: string | null;
  claim_option_id: string;
  lease_agreement_id: string | null;
  charge_type: ChargeType;
  /** pending: a live checkout opened and not settled yet. */
  status: 'pending' | 'succeeded' | 'failed' | 'refunded';
  rent_cents: number;
  deposit_cents: number;
  fees_cents: number;
  gross_cents: number;
  platform_fee_cents: number;
  processing_fee_cents: number;
  net_cents: number;
  currency: string;
  covers_rent: boolean;
  covers_deposit: boolean;
  /** Who paid the share; null on payments recorded before charges were split by payer. */
  payer: Payer | null;
  period_start: string | null;
  period_end: string | null;
  paid_at: Date | null;
  refunded_cents: number;
  refunded_at: Date | null;
  provider_ref: string | null;
  failure_reason: string | null;
  checkout_ref: string | null;
  checkout_url: string | null;
  checkout_expires_at: Date | null;
  /** A charge that cleared for what this other payment had already paid: refunded automatically. */
  duplicate_of: string | null;
  created_at: Date;
}

export interface PaymentWrite {
  payee: Payee;
  placement: { id: string; claim_id: string; property_id: string };
  leaseId: string;
  charge: Pick<ChargeShare, 'chargeType' | 'payer' | 'periodStart' | 'periodEnd' | 'rentCents' | 'depositCents' | 'feesCents' | 'split'>;
  currency: string;
  providerRef: string;
  bookingId: string | null;
  /** The pay page's checkout attempt the outcome settles (its pending payment); absent for a charge settled at once. */
  attemptId?: string;
}

/**
 * Records a settled charge: the checkout attempt it settles, the failed record of the same processor
 * payment (the payer retried the same PaymentIntent: a later success always wins over an earlier
 * failure, whose events stay), or a new payment. Null when this processor payment is already
 * recorded as settled (a notification delivered twice). A charge for parts of a period another
 * payment already paid (two checkouts both paid, a payment racing another) is recorded as a
 * duplicate of that payment (`duplicate_of`): money moved, so it is kept, and it is refunded.
 */
export async function insertSucceeded(tx: Tx, write: PaymentWrite): Promise<PaymentRow | null> {
  // Another processor payment for an attempt already settled is a new record (and so a duplicate).
  try {
    return await tx.savepoint(async (sp) => (await settleExisting(sp, write, null)) ?? insertSettled(sp, write, null));
  } catch (error) {
    if (!isPartAlreadyPaid(error)) throw error;
    const duplicateOf = await settledPaymentOfParts(tx, write);
    return (await settleExisting(tx, write, duplicateOf)) ?? insertSettled(tx, write, duplicateOf);
  }
}

/** A unique violation of one of the one-settled-charge-per-part indexes. */
const isPartAlreadyPaid = (error: unknown) =>
  (error as { code?: string }).code === '23505' && /^payments_one_per_charge/.test((error as { constraint_name?: string }).constraint_name ?? '');

/** The settled payment that already paid a part of this charge's period. */
async function settledPaymentOfParts(tx: Tx, write: PaymentWrite): Promise<string> {
  const { charge } = write;
  const [row] = await tx<{ id: string }[]>`
    select id from app.payments
     where claim_option_id = ${write.placement.id} and lease_agreement_id = ${write.leaseId} and charge_type = ${charge.chargeType}
       and period_start = ${charge.periodStart} and status in ('succeeded', 'refunded') and duplicate_of is null
       and ((rent_cents > 0 and ${charge.rentCents}::bigint > 0) or (deposit_cents > 0 and ${charge.depositCents}::bigint > 0)
            or (fees_cents > 0 and ${charge.feesCents}::bigint > 0))
     order by paid_at, id limit 1`;
  return row.id;
}

/**
 * What every payment row of a share starts with, for the three inserts (a settled charge, a failed
 * one, a checkout attempt): who is paid and who pays, the placement and lease, the share's parts.
 */
export const shareColumns = (tx: Tx) => tx`
  org_id, environment, property_id, carrier_org_id, claim_id, claim_option_id, lease_agreement_id, charge_type, payer,
  rent_cents, deposit_cents, fees_cents, currency, period_start, period_end`;

export const shareValues = (tx: Tx, write: Omit<PaymentWrite, 'providerRef' | 'bookingId'>) => tx`
  ${write.payee.org_id}, app.current_env(), ${write.placement.property_id}, app.current_org(), ${write.placement.claim_id},
  ${write.placement.id}, ${write.leaseId}, ${write.charge.chargeType}, ${write.charge.payer}, ${write.charge.rentCents},
  ${write.charge.depositCents}, ${write.charge.feesCents}, ${write.currency.toLowerCase()}, ${write.charge.periodStart}, ${write.charge.periodEnd}`;

/** The columns a settled charge sets, on a new row or an existing attempt. */
const settledColumns = (write: PaymentWrite) => ({
  booking_id: write.bookingId,
  lease_agreement_id: write.leaseId,
  charge_type: write.charge.chargeType,
  payer: write.charge.payer,
  rent_cents: write.charge.rentCents,
  deposit_cents: write.charge.depositCents,
  fees_cents: write.charge.feesCents,
  platform_fee_cents: write.charge.split.platformFeeCents,
  processing_fee_cents: write.charge.split.processingFeeCents,
  period_start: write.charge.periodStart,
  period_end: write.charge.periodEnd,
  provider_ref: write.providerRef,
});

/** Settles the attempt (or the failed record of the same processor payment) as succeeded; null when there is none to settle. */
async function settleExisting(tx: Tx, write: PaymentWrite, duplicateOf: string | null): Promise<PaymentRow | null> {
  const [row] = await tx<PaymentRow[]>`
    update app.payments
       set ${tx(settledColumns(write))}, status = 'succeeded', failure_reason = null, paid_at = clock_timestamp(), duplicate_of = ${duplicateOf}
     where claim_option_id = ${write.placement.id} and status in ('pending', 'failed')
       and ${write.attemptId ? tx`id = ${write.attemptId}` : tx`environment = app.current_env() and provider_ref = ${write.providerRef}`}
    returning *`;
  return row ?? null;
}

/** A new settled payment; null when this processor payment is already recorded. */
async function insertSettled(tx: Tx, write: PaymentWrite, duplicateOf: string | null): Promise<PaymentRow | null> {
  const [row] = await tx<PaymentRow[]>`
    insert into app.payments (${shareColumns(tx)}, booking_id, status, platform_fee_cents, processing_fee_cents, paid_at, provider_ref, duplicate_of)
    values (${shareValues(tx, write)}, ${write.bookingId}, 'succeeded', ${write.charge.split.platformFeeCents},
            ${write.charge.split.processingFeeCents}, clock_timestamp(), ${write.providerRef}, ${duplicateOf})
    on conflict (environment, provider_ref) where provider_ref is not null do nothing
    returning *`;
  return row ?? null;
}

/** Records a failed charge: the attempt it settles, or a new failed payment; null when already recorded. */
export async function insertFailed(tx: Tx, write: PaymentWrite, reason: string): Promise<PaymentRow | null> {
  if (write.attemptId) {
    const [row] = await tx<PaymentRow[]>`
      update app.payments set status = 'failed', provider_ref = ${write.providerRef}, failure_reason = ${reason}
       where id = ${write.attemptId} and claim_option_id = ${write.placement.id} and status = 'pending'
      returning *`;
    return row ?? null;
  }
  const [row] = await tx<PaymentRow[]>`
    insert into app.payments (${shareColumns(tx)}, booking_id, status, provider_ref, failure_reason)
    values (${shareValues(tx, write)}, ${write.bookingId}, 'failed', ${write.providerRef}, ${reason})
    on conflict do nothing
    returning *`;
  return row ?? null;
}

export async function paymentsOf(tx: Tx, placementId: string): Promise<PaymentRow[]> {
  return tx<PaymentRow[]>`select * from app.payments where claim_option_id = ${placementId} order by created_at, id`;
}

/** The settled payments of a placement that count for its stay (not duplicates), the most recent first. */
export async function settledPayments(tx: Tx, placementId: string): Promise<PaymentRow[]> {
  return tx<PaymentRow[]>`
    select * from app.payments
     where claim_option_id = ${placementId} and status in ('succeeded', 'refunded') and duplicate_of is null
       and lease_agreement_id is not null and period_start is not null
     order by paid_at desc, id desc`;
}

/**
 * Records money returned on a payment: a refund the service issued adds its amount (`add`, once
 * per refund request); what the processor reports refunded in all sets at least that much
 * (`at_least`, charge.refunded). Never above the gross; the payment is refunded once all of it came
 * back, and a partial refund leaves it succeeded with the rest refundable.
 */
export async function recordRefunded(tx: Tx, paymentId: string, cents: number, mode: 'add' | 'at_least'): Promise<void> {
  const refunded = () => mode === 'add'
    ? tx`least(gross_cents, refunded_cents + ${cents})`
    : tx`least(gross_cents, greatest(refunded_cents, ${cents}))`;
  await tx`
    update app.payments
       set refunded_cents = ${refunded()},
           status = case when ${refunded()} >= gross_cents then 'refunded' else status end,
           refunded_at = case when ${refunded()} >= gross_cents then coalesce(refunded_at, clock_timestamp()) else refunded_at end
     where id = ${paymentId} and status in ('succeeded', 'refunded')`;
}

export async function attachPayment(tx: Tx, paymentId: string, bookingId: string): Promise<void> {
  await tx`update app.payments set booking_id = ${bookingId} where id = ${paymentId} and booking_id is null`;
}

/**
 * The live payment a processor notification names, across tenants (the notification carries no
 * key): its id and the carrier whose tenant transaction records the change.
 */
export async function livePaymentByRef(paymentRef: string): Promise<{ id: string; carrier_org_id: string } | null> {
  const [payment] = await db()<{ id: string; carrier_org_id: string }[]>`
    select id, carrier_org_id from app.payments where environment = 'live' and provider_ref = ${paymentRef}`;
  return payment ?? null;
}
