import type { Tx } from '../db/client.ts';
import { shareColumns, shareValues, type PaymentRow, type PaymentWrite } from './payment-repository.ts';

// The SQL of the pay page's checkout attempts: a pending payment of a payer's share, opened, given
// its processor checkout, and closed when replaced.

/** The open checkout attempt of a payer's share of a period, locked; null when none is open. */
export async function openCheckout(tx: Tx, placementId: string, periodStart: string, payer: string): Promise<PaymentRow | null> {
  const [row] = await tx<PaymentRow[]>`
    select * from app.payments
     where claim_option_id = ${placementId} and period_start = ${periodStart} and payer = ${payer} and status = 'pending'
     for update`;
  return row ?? null;
}

/** Opens a checkout attempt: a pending payment of the share, settled later by the processor's notification. */
export async function insertPending(tx: Tx, write: Omit<PaymentWrite, 'providerRef' | 'bookingId'>, expiresAt: Date): Promise<PaymentRow> {
  const [row] = await tx<PaymentRow[]>`
    insert into app.payments (${shareColumns(tx)}, status, platform_fee_cents, processing_fee_cents, checkout_expires_at)
    values (${shareValues(tx, write)}, 'pending', ${write.charge.split.platformFeeCents}, ${write.charge.split.processingFeeCents}, ${expiresAt})
    returning *`;
  return row;
}

/** The processor's checkout of an attempt, once created. */
export async function recordCheckout(tx: Tx, paymentId: string, checkout: { providerRef: string; url: string }): Promise<void> {
  await tx`update app.payments set checkout_ref = ${checkout.providerRef}, checkout_url = ${checkout.url} where id = ${paymentId} and status = 'pending'`;
}

/**
 * Why an attempt was closed by the service, not by the processor: a newer attempt replaced it, or
 * the processor could not be reached to open its checkout (nothing was charged).
 */
const replacedReasons = ['checkout_expired', 'amount_changed', 'checkout_not_opened'] as const;

/** Whether a failed payment is an attempt the service replaced (no charge failed at the processor). */
export const isReplacedCheckout = (payment: Pick<PaymentRow, 'status' | 'failure_reason' | 'provider_ref'>) =>
  payment.status === 'failed' && payment.provider_ref === null && (replacedReasons as readonly (string | null)[]).includes(payment.failure_reason);

/** Closes an attempt that can no longer be paid as it was opened (a newer attempt replaces it), or whose checkout never opened. */
export async function abandonCheckout(tx: Tx, paymentId: string, reason: (typeof replacedReasons)[number]): Promise<void> {
  await tx`update app.payments set status = 'failed', failure_reason = ${reason} where id = ${paymentId} and status = 'pending'`;
}
