import type { Tx } from '../db/client.ts';
import type { LeaseTerms } from './pricing.ts';
import { leaseTransitions, type LeaseEvent, type LeaseStatus } from './states.ts';

// The leases' SQL. Applying the lease state machine (./states.ts): every move is one update guarded
// by the states the transition leaves, so a move that lost a race changes nothing and returns null.

export interface LeaseRow {
  id: string;
  org_id: string;
  environment: 'live' | 'sandbox';
  claim_option_id: string;
  claim_id: string;
  property_id: string;
  version: number;
  status: LeaseStatus;
  move_in_date: string;
  move_out_date: string;
  signer_name: string | null;
  signer_email: string | null;
  issued_by: 'dates' | 'approve_proposal' | 'signer' | 'extension';
  /** lease, or addendum: an extension of the signed lease covering the added nights (move_in_date to move_out_date). */
  kind: 'lease' | 'addendum';
  extends_lease_id: string | null;
  /** An addendum's: when its payment cleared and the stay took its move-out. */
  effective_at: Date | null;
  template: 'standard' | 'own';
  provider_ref: string | null;
  sent_at: Date | null;
  policyholder_signed_at: Date | null;
  owner_signed_at: Date | null;
  superseded_at: Date | null;
  superseded_by: string | null;
  withdrawn_at: Date | null;
  /** A withdrawn addendum's reason; null otherwise (and on those withdrawn before it was recorded). */
  withdrawal_reason: WithdrawalReason | null;
  /** What the version was issued with and is charged by; null on versions issued before terms were recorded. */
  terms: LeaseTerms | null;
  created_at: Date;
}

/**
 * Why an extension's addendum was withdrawn: declined by the landlord, lapsed unpaid at the stay's
 * end, its placement cancelled, or the stay shortened before it took effect.
 */
export type WithdrawalReason = 'declined' | 'lapsed' | 'cancelled' | 'stay_shortened';

/** Columns a move may set beside the status. */
type MoveColumns = Partial<Pick<LeaseRow, 'provider_ref' | 'superseded_by' | 'withdrawal_reason'>> & {
  sent_at?: 'now';
  policyholder_signed_at?: 'now';
  owner_signed_at?: 'now';
  superseded_at?: 'now';
  withdrawn_at?: 'now';
};

/** Moves a lease by `event` when it is in a state the event leaves; null when it is not. */
export async function moveLease(tx: Tx, leaseId: string, event: LeaseEvent, columns: MoveColumns = {}): Promise<LeaseRow | null> {
  const move = leaseTransitions[event];
  const values = Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, v === 'now' ? new Date() : v]));
  const [row] = await tx<LeaseRow[]>`
    update app.lease_agreements set ${tx({ status: move.to, ...values } as unknown as Record<string, never>)}
     where id = ${leaseId} and status = any(${move.from as LeaseStatus[]}::text[])
    returning *`;
  return row ?? null;
}

/** A lease of the transaction's tenant, locked for a move. */
export async function lockLease(tx: Tx, leaseId: string): Promise<LeaseRow | null> {
  const [row] = await tx<LeaseRow[]>`select * from app.lease_agreements where id = ${leaseId} for update`;
  return row ?? null;
}

/** What sending a lease's contract needs: the lease, its request and its home. */
export interface ContractContext {
  lease_id: string;
  reference: string;
  external_id: string | null;
  request_id: string;
  property_id: string;
  home: { name: string | null; address: string; city: string; state: string; owner_contact_email: string | null } | null;
  policyholder_name: string | null;
  status: string;
  move_in_date: string;
  move_out_date: string;
  signer_name: string | null;
  signer_email: string | null;
  /** The adjuster on the request, copied when the contract goes to someone else. */
  adjuster_email: string | null;
  /** The request's household_language (BCP 47), or null when not stated. */
  household_language: string | null;
  kind: LeaseRow['kind'];
}

export async function contractContext(tx: Tx, leaseId: string): Promise<ContractContext | null> {
  const [row] = await tx<ContractContext[]>`
    select l.id as lease_id, c.claim_ref as reference, c.external_id, c.id as request_id, l.property_id, l.status,
           l.move_in_date, l.move_out_date, l.signer_name, l.signer_email, c.policyholder_name, c.adjuster_email,
           c.household_language, l.kind,
           (select to_jsonb(h) from app.home_for_request(c.id, l.property_id) h) as home
      from app.lease_agreements l join app.claims c on c.id = l.claim_id
     where l.id = ${leaseId}`;
  return row ?? null;
}
