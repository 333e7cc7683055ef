import type { Tx } from '../../db/client.ts';
import { ApiError } from '../../http/errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { moveLease, type LeaseRow } from '../lease.ts';
import { termsOf } from '../pricing.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import {
  contactAddresses, currentLease, homeIfPlaceable, insertLease, linkSuperseded, rangeConflicts, releaseHolds, takeHold,
  type PlacementRow,
} from '../repository.ts';

// Issuing a contract version: the one path behind POST dates, POST dates/approve-proposal and POST
// signer. The unsigned live version is superseded (kept, readable) and its hold released; the new
// version takes the hold through the exclusion-constraint functions (so two calls racing for
// overlapping dates cannot both hold them) and queues the send-contract job; a contract that had gone
// out is withdrawn by a job. Everything happens in the caller's transaction: a refusal writes nothing.

export interface Issue {
  moveIn: string;
  moveOut: string;
  signerName: string | null;
  signerEmail: string | null;
  issuedBy: LeaseRow['issued_by'];
}

/** Refuses any change to a fully signed lease (cancel instead). */
export function assertNotSigned(lease: LeaseRow | null): void {
  if (lease?.status === 'fully_signed') {
    throw new ApiError('already_signed', 'The lease is fully signed; cancel the placement (POST cancel-booking) instead.');
  }
}

export async function issueContract(tx: Tx, claim: ClaimRow, placement: PlacementRow, issue: Issue): Promise<LeaseRow> {
  const old = await currentLease(tx, placement);
  assertNotSigned(old);
  const home = await homeIfPlaceable(tx, claim.id, placement.property_id);
  if (!home) throw new ApiError('could_not_set_dates', 'The home is no longer offered (unlisted or marked unavailable).', 'property_id');
  if (!home.charges_enabled) throw new ApiError('could_not_set_dates', "The home's provider cannot take charges (payout account not set up).", 'property_id');
  const team = await contactAddresses(tx);
  const signerEmail = issue.signerEmail ?? claim.adjuster_email ?? team.team ?? (claim.environment === 'sandbox' ? 'team@sandbox.invalid' : null);
  if (!signerEmail) {
    throw new ApiError('could_not_set_dates', 'Nobody to send the lease to: name a signer (POST signer), or set adjuster_email on the request.', 'signer_email');
  }

  if (old) {
    const superseded = await moveLease(tx, old.id, 'superseded', { superseded_at: 'now' });
    if (!superseded) throw new ApiError('could_not_set_dates', 'The lease changed meanwhile; read the placement and try again.');
    await releaseHolds(tx, old.id);
  }
  const lease = await insertLease(tx, placement, {
    version: (old?.version ?? 0) + 1,
    move_in_date: issue.moveIn,
    move_out_date: issue.moveOut,
    signer_name: issue.signerName,
    signer_email: signerEmail,
    issued_by: issue.issuedBy,
    template: home.contract_template,
    // What the version is charged by, whatever the provider changes later.
    terms: termsOf(home, claim),
  });
  if (old) await linkSuperseded(tx, old.id, lease.id);
  const hold = await takeHold(tx, placement.property_id, issue.moveIn, issue.moveOut, lease.id, `lease ${claim.claim_ref}`);
  if (!hold) {
    const conflicts = await rangeConflicts(tx, placement.property_id, issue.moveIn, issue.moveOut);
    throw new ApiError('dates_unavailable', 'Something already holds part of these dates.', undefined, { conflicts });
  }
  if (lease.template === 'standard') await enqueue(tx, 'send_contract', { lease_id: lease.id }, { dedupeKey: lease.id });
  if (old?.provider_ref) {
    await enqueue(tx, 'withdraw_contract', { provider_ref: old.provider_ref, reason: `superseded by version ${lease.version}` }, { dedupeKey: old.provider_ref });
  }
  return lease;
}
