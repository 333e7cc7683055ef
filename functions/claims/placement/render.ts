import type { z } from '@hono/zod-openapi';
import { fromCents } from '../../../shared/money.ts';
import type { PlacementHome } from '../schemas.ts';
import type { PlacementHomeRow } from './repository.ts';
import { renderBooking, renderPayment, renderRefund } from './money-render.ts';

// A home on a request as the API shows it (GET placement, and the sandbox helpers' answers).

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

type LeaseJson = PlacementHomeRow['leases'][number];

const renderLease = (l: LeaseJson) => ({
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
});

export function renderPlacementHome(row: PlacementHomeRow): z.infer<typeof PlacementHome> {
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
    lease: live ? renderLease(live) : null,
    lease_history: row.leases.filter((l) => l !== live).map(renderLease),
    booking: renderBooking(row.booking),
    payments_succeeded: row.payments_succeeded,
    recipient_response: row.recipient_response,
    decline_reason: row.decline_reason,
    proposed_dates: row.proposed_at
      ? { move_in: row.proposed_move_in!, move_out: row.proposed_move_out!, proposed_at: row.proposed_at.toISOString() }
      : null,
    payments: row.payment_rows.map(renderPayment),
    deposit_refunds: row.refund_rows.map(renderRefund),
    added_at: row.added_at.toISOString(),
  };
}
