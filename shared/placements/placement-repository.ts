import type { Tx } from '../db/client.ts';
import type { ChargeType, Payer } from './billing.ts';
import type { LeaseRow } from './lease.ts';
import type { OptionRow } from './option-repository.ts';
import type { HomeOnRequest } from './listing-repository.ts';
import type { RefundRequestRow, RefundStep } from './refund-repository.ts';

// The SQL of GET placement: every option of the request with its home's labels, approval, contract
// versions, booking, charges and refund requests, in one statement.

export interface OptionPlacementRow extends OptionRow, OptionMoneyJson {
  home: HomeOnRequest;
  budget_approved: boolean;
  leases: (Omit<LeaseRow, 'sent_at' | 'policyholder_signed_at' | 'owner_signed_at' | 'superseded_at' | 'withdrawn_at' | 'created_at'> & {
    sent_at: string | null;
    policyholder_signed_at: string | null;
    owner_signed_at: string | null;
    superseded_at: string | null;
    withdrawn_at: string | null;
  })[];
  payments_succeeded: number;
}

// The booking, charges and refund requests of a placement as placementOptions reads them: to_jsonb
// rows, so timestamps are strings and amounts numbers of cents.

export interface BookingJson {
  id: string;
  booking_status: 'confirmed' | 'cancelled';
  check_in: string;
  check_out: string;
  created_at: string;
  move_in_confirmed_at: string | null;
  cancelled_at: string | null;
}

export interface PaymentJson {
  id: string;
  charge_type: ChargeType;
  payer: Payer | null;
  status: 'pending' | 'succeeded' | 'failed' | 'refunded';
  gross_cents: number;
  platform_fee_cents: number;
  currency: string;
  covers_rent: boolean;
  covers_deposit: boolean;
  period_start: string | null;
  period_end: string | null;
  paid_at: string | null;
  failure_reason: string | null;
  refunded_cents: number;
  refunded_at: string | null;
  duplicate_of: string | null;
}

export interface RefundJson {
  id: string;
  payment_id: string;
  amount_cents: number;
  currency: string;
  covers_deposit: boolean;
  status: RefundRequestRow['status'];
  reason: string | null;
  created_at: string;
  decided_at: string | null;
  refunded_at: string | null;
  automatic: boolean;
  history: RefundStep[];
}

export interface OptionMoneyJson {
  booking: BookingJson | null;
  payment_rows: PaymentJson[];
  refund_rows: RefundJson[];
}

/** The booking, charges and refund requests of each placement, as JSON columns of placementOptions. */
function optionMoneyColumns(tx: Tx) {
  return tx`
    (select to_jsonb(b) from app.bookings b where b.claim_option_id = h.id order by b.created_at desc limit 1) as booking,
    coalesce((select jsonb_agg(to_jsonb(p) order by p.created_at, p.id) from app.payments p where p.claim_option_id = h.id), '[]') as payment_rows,
    coalesce((select jsonb_agg(to_jsonb(r) order by r.created_at, r.id) from app.refund_requests r where r.claim_option_id = h.id), '[]') as refund_rows`;
}

/** Every option of the request with its home's labels, approval, contract versions (oldest first) and cleared payments. */
export async function placementOptions(tx: Tx, claimId: string, propertyId?: string): Promise<OptionPlacementRow[]> {
  return tx<OptionPlacementRow[]>`
    with homes as (select * from app.homes_on_request(${claimId}))
    select h.*,
           (select to_jsonb(x) from homes x where x.id = h.property_id) as home,
           coalesce((select a.approved from app.budget_approvals a where a.claim_id = h.claim_id and a.property_id = h.property_id), false) as budget_approved,
           coalesce((select jsonb_agg(to_jsonb(l) order by l.version) from app.lease_agreements l where l.claim_option_id = h.id), '[]') as leases,
           (select count(*)::integer from app.payments p
             where p.claim_option_id = h.id and p.status in ('succeeded', 'refunded') and p.duplicate_of is null) as payments_succeeded,
           ${optionMoneyColumns(tx)}
      from app.claim_options h
     where h.claim_id = ${claimId} ${propertyId ? tx`and h.property_id = ${propertyId}` : tx``}
     order by h.added_at, h.id`;
}
