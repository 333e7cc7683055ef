import type { z } from '@hono/zod-openapi';
import { amountOrNull, fromCents } from '../money.ts';
import type { LeaseTerms } from './pricing.ts';
import type { DepositRefund, LeaseTermsSchema, PlacementBooking, PlacementHome, PlacementPayment } from './schemas.ts';
import { stayMoveOut } from './stay-repository.ts';
import type { BookingJson, PaymentJson, OptionPlacementRow, RefundJson } from './placement-repository.ts';
import type { ClaimRow } from '../claims/repository.ts';
import type { ProviderRefundRequestRow, RefundStep } from './refund-repository.ts';
import type { LeaseRow } from './lease.ts';

// The placement's rows as the API shows them, in one place: a home on a request (GET placement, and
// the sandbox helpers' answers) with its leases, booking, charges and refund requests; a contract
// version as the date commands answer it; a refund request as the landlord reads it; and the
// booking fields of the provider's booking events.

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

type LeaseJson = OptionPlacementRow['leases'][number];

/** The terms a version was issued with, in major units as the API shows amounts. */
function renderTerms({ home, request, listing, totals }: LeaseTerms): z.infer<typeof LeaseTermsSchema> {
  return {
    currency: home.currency,
    monthly_rate: fromCents(Number(home.monthly_rate_cents)),
    rent_1_3_months: amountOrNull(home.rent_1_3_months_cents),
    rent_4_6_months: amountOrNull(home.rent_4_6_months_cents),
    rent_7_9_months: amountOrNull(home.rent_7_9_months_cents),
    rent_10_12_months: amountOrNull(home.rent_10_12_months_cents),
    security_deposit: amountOrNull(home.security_deposit_cents),
    cleaning_fee: amountOrNull(home.cleaning_fee_cents),
    application_fee: amountOrNull(home.application_fee_cents),
    pet_fee: amountOrNull(home.pet_fee_cents),
    pet_rent: amountOrNull(home.pet_rent_cents),
    pet_deposit: amountOrNull(home.pet_deposit_cents),
    utilities_included: home.utilities_included,
    utilities_monthly: amountOrNull(home.utilities_monthly_cents),
    household_has_pets: request.has_pets,
    address: listing.address,
    city: listing.city,
    state: listing.state,
    stay: {
      months: totals.months,
      tier_applied: totals.tier,
      rent_over_stay: fromCents(totals.rent_over_stay_cents),
      cost_of_stay: fromCents(totals.cost_of_stay_cents),
      first_payment: fromCents(totals.first_payment_cents),
      deposits: fromCents(totals.deposits_cents),
    },
  };
}

const renderLease = (l: LeaseJson, shortenedTo: string | null = null) => ({
  id: l.id,
  version: l.version,
  status: l.status,
  move_in_date: l.move_in_date,
  move_out_date: l.move_out_date,
  signer: { name: l.signer_name, email: l.signer_email },
  sent_for_signature_at: iso(l.sent_at),
  policyholder_signed_at: iso(l.policyholder_signed_at),
  owner_signed_at: iso(l.owner_signed_at),
  superseded_at: iso(l.superseded_at),
  withdrawn_at: iso(l.withdrawn_at),
  terms: l.terms ? renderTerms(l.terms) : null,
  shortened_move_out_date: shortenedTo,
});

export function renderPlacementHome(row: OptionPlacementRow): z.infer<typeof PlacementHome> {
  const live = row.leases.find((l) => l.id === row.current_lease_id && l.status !== 'superseded' && l.status !== 'withdrawn');
  return {
    property_id: row.property_id,
    property: {
      name: row.home.name,
      address: row.home.address,
      city: row.home.city,
      state: row.home.state,
      monthly_rate: fromCents(Number(row.home.monthly_rate_cents)),
      currency: row.home.currency,
    },
    option_status: row.option_status,
    application_status: row.application_status,
    placed_without_recipient: row.placed_without_recipient,
    budget_approved: row.budget_approved,
    adjuster_placed_at: iso(row.adjuster_placed_at),
    signer: row.signer_name ? { name: row.signer_name, email: row.signer_email } : null,
    lease: live ? renderLease(live, shortenedMoveOut(stayMoveOut(row, live), live)) : null,
    lease_history: row.leases.filter((l) => l !== live).map((l) => renderLease(l)),
    booking: renderBooking(row.booking),
    payments_succeeded: row.payments_succeeded,
    recipient_response: row.recipient_response,
    decline_reason: row.decline_reason,
    application_decline_reason: row.application_decline_reason,
    proposed_dates: row.proposed_at
      ? { move_in: row.proposed_move_in!, move_out: row.proposed_move_out!, proposed_at: row.proposed_at.toISOString() }
      : null,
    payments: row.payment_rows.map(renderPayment),
    deposit_refunds: row.refund_rows.map(renderRefund),
    added_at: row.added_at.toISOString(),
  };
}

export function renderBooking(b: BookingJson | null): z.infer<typeof PlacementBooking> | null {
  if (!b) return null;
  return {
    id: b.id,
    booking_status: b.booking_status,
    check_in: b.check_in,
    check_out: b.check_out,
    confirmed_at: iso(b.created_at)!,
    move_in_confirmed_at: iso(b.move_in_confirmed_at),
    cancelled_at: iso(b.cancelled_at),
  };
}

export function renderPayment(p: PaymentJson): z.infer<typeof PlacementPayment> {
  return {
    id: p.id,
    charge_type: p.charge_type,
    status: p.status,
    payer: p.payer,
    amount: fromCents(Number(p.gross_cents)),
    platform_fee: fromCents(Number(p.platform_fee_cents)),
    currency: p.currency,
    covers_rent: p.covers_rent,
    covers_deposit: p.covers_deposit,
    period: p.period_start && p.period_end ? { start: p.period_start, end: p.period_end } : null,
    paid_at: iso(p.paid_at),
    failure_reason: p.failure_reason,
    refunded_amount: fromCents(Number(p.refunded_cents)),
    refunded_at: iso(p.refunded_at),
    duplicate_of: p.duplicate_of,
  };
}

/** A refund request's steps as the API shows them: what it became and when (who moved it stays with staff). */
export const refundHistory = (steps: readonly RefundStep[]) => steps.map((step) => ({ status: step.status, at: iso(step.at)! }));

export function renderRefund(r: RefundJson): z.infer<typeof DepositRefund> {
  return {
    refund_request_id: r.id,
    payment_id: r.payment_id,
    amount: fromCents(Number(r.amount_cents)),
    currency: r.currency,
    covers_deposit: r.covers_deposit,
    status: r.status,
    reason: r.reason,
    requested_at: iso(r.created_at)!,
    decided_at: iso(r.decided_at),
    refunded_at: iso(r.refunded_at),
    automatic: r.automatic,
    history: refundHistory(r.history),
  };
}

/** The fields that place a carrier event on a request and a home. */
export const onHome = (claim: Pick<ClaimRow, 'id' | 'claim_ref' | 'external_id'>, placement: { property_id: string }) => ({
  request_id: claim.id,
  reference: claim.claim_ref,
  external_id: claim.external_id,
  property_id: placement.property_id,
});

/** The booking fields of the provider's booking events (booking.confirmed, booking.updated). */
export function providerBookingFields(
  reference: string,
  propertyId: string,
  label: { name: string | null; external_id: string | null },
  booking: { id: string; booking_status: 'confirmed' | 'cancelled' | 'completed'; check_in: string; check_out: string },
) {
  return {
    reference,
    booking_id: booking.id,
    property_id: propertyId,
    external_id: label.external_id,
    property: { name: label.name, api_external_id: label.external_id },
    booking_status: booking.booking_status,
    check_in: booking.check_in,
    check_out: booking.check_out,
  };
}

/**
 * Where a stay shortened after move-in now ends, or null: a contract version keeps the dates it was
 * signed with (`move_out_date`) wherever it is shown, and the stay's earlier end is shown beside them.
 */
const shortenedMoveOut = (stayEnd: string, lease: { move_out_date: string }) => (stayEnd < lease.move_out_date ? stayEnd : null);

/**
 * A contract version as POST dates, dates/approve-proposal and signer answer it; `stayEnd` is where
 * the stay now ends (a shortening's answer), the version's own move-out otherwise.
 */
export const leaseCreated = (lease: LeaseRow, stayEnd = lease.move_out_date) => ({
  id: lease.id,
  move_in_date: lease.move_in_date,
  move_out_date: lease.move_out_date,
  status: lease.status,
  shortened_move_out_date: shortenedMoveOut(stayEnd, lease),
});

/** A refund request as the landlord reads it. */
export function renderRefundForProvider(r: ProviderRefundRequestRow) {
  return {
    id: r.id,
    reference: r.reference,
    property_id: r.property_id,
    payment_id: r.payment_id,
    amount: fromCents(Number(r.amount_cents)),
    currency: r.currency,
    covers_deposit: r.covers_deposit,
    reason: r.reason,
    status: r.status,
    requested_at: r.created_at.toISOString(),
    decided_at: r.decided_at?.toISOString() ?? null,
    refunded_at: r.refunded_at?.toISOString() ?? null,
    history: refundHistory(r.history),
  };
}
