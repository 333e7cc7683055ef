import type { Tx } from '../db/client.ts';
import { leaseTransitions, type LeaseEvent, type LeaseStatus } from './states.ts';

// Applying the lease state machine (./states.ts) in SQL: every move is one update guarded by the
// states the transition leaves, so a move that lost a race changes nothing and returns null.

export interface LeaseRow {
  id: string;
  org_id: string;
  environment: 'live' | 'sandbox';
  claim_home_id: string;
  claim_id: string;
  property_id: string;
  version: number;
  status: LeaseStatus;
  move_in_date: string;
  move_out_date: string;
  signer_name: string | null;
  signer_email: string | null;
  issued_by: 'dates' | 'approve_proposal' | 'signer';
  template: 'standard' | 'own';
  provider_ref: string | null;
  sent_at: Date | null;
  policyholder_signed_at: Date | null;
  owner_signed_at: Date | null;
  superseded_at: Date | null;
  superseded_by: string | null;
  withdrawn_at: Date | null;
  created_at: Date;
}

/** Columns a move may set beside the status. */
type MoveColumns = Partial<Pick<LeaseRow, 'provider_ref' | 'superseded_by'>> & {
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
