import type { Tx } from '../../db/client.ts';
import { conflict, invalid } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { moveLease, type LeaseRow } from '../lease.ts';
import { termsOf } from '../pricing.ts';
import { lastNight } from '../stay.ts';
import { lockCalendar } from '../unit-of-work.ts';
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
    throw conflict('already_signed', 'The lease is fully signed; cancel the placement (POST cancel-booking) instead.');
  }
}

/**
 * Who signs first when the caller named nobody: in the send flow the household chose the home, so
 * the lease goes to the household contact on the request (the adjuster gets a copy when the contract
 * goes out); in the place flow, to the adjuster or the caller's own team.
 */
async function defaultSigner(tx: Tx, claim: ClaimRow, placement: PlacementRow): Promise<{ name: string | null; email: string | null }> {
  if (!placement.placed_without_recipient) return { name: claim.policyholder_name, email: claim.household_email };
  const team = await contactAddresses(tx);
  return { name: null, email: claim.adjuster_email ?? team.team ?? (claim.environment === 'sandbox' ? 'team@sandbox.invalid' : null) };
}

export async function issueContract(tx: Tx, claim: ClaimRow, placement: PlacementRow, issue: Issue): Promise<LeaseRow> {
  await lockCalendar({ tx, claim, placement });
  const old = await currentLease(tx, placement);
  assertNotSigned(old);
  const home = await homeIfPlaceable(tx, claim.id, placement.property_id);
  if (!home) throw invalid('could_not_set_dates', 'The home is no longer offered (unlisted or marked unavailable).', 'property_id');
  if (!home.charges_enabled) throw invalid('could_not_set_dates', "The home's provider cannot take charges (payout account not set up).", 'property_id');
  if (home.available_from && issue.moveIn < home.available_from) {
    throw invalid('invalid_field', `move_in: the home is available from ${home.available_from}.`, 'move_in');
  }
  const signer = issue.signerEmail ? { name: issue.signerName, email: issue.signerEmail } : await defaultSigner(tx, claim, placement);
  if (!signer.email) {
    throw invalid('could_not_set_dates', placement.placed_without_recipient
      ? 'Nobody to send the lease to: name a signer (POST signer), or set adjuster_email on the request.'
      : 'Nobody to send the lease to: the request has no household_email (add it with PATCH /claims/{reference}), or name a signer (POST signer).', 'signer_email');
  }

  if (old) {
    const superseded = await moveLease(tx, old.id, 'superseded', { superseded_at: 'now' });
    if (!superseded) throw invalid('could_not_set_dates', 'The lease changed meanwhile; read the placement and try again.');
    await releaseHolds(tx, old.id);
  }
  const lease = await insertLease(tx, placement, {
    version: (old?.version ?? 0) + 1,
    move_in_date: issue.moveIn,
    move_out_date: issue.moveOut,
    signer_name: signer.name,
    signer_email: signer.email,
    issued_by: issue.issuedBy,
    template: home.contract_template,
    // What the version is charged by, whatever the provider changes later.
    terms: termsOf(home, claim, { move_in: issue.moveIn, move_out: issue.moveOut }),
  });
  if (old) await linkSuperseded(tx, old.id, lease.id);
  // The stay holds its nights: the move-out day stays free for the next check-in.
  const hold = await takeHold(tx, placement.property_id, issue.moveIn, lastNight(issue.moveOut), lease.id, `lease ${claim.claim_ref}`);
  if (!hold) {
    const conflicts = await rangeConflicts(tx, placement.property_id, issue.moveIn, lastNight(issue.moveOut));
    throw conflict('dates_unavailable', 'Something already holds part of these dates.', undefined, { conflicts });
  }
  if (lease.template === 'standard') await enqueue(tx, 'send_contract', { lease_id: lease.id }, { dedupeKey: lease.id });
  if (old?.provider_ref) {
    await enqueue(tx, 'withdraw_contract', { provider_ref: old.provider_ref, reason: `superseded by version ${lease.version}` }, { dedupeKey: old.provider_ref });
  }
  return lease;
}
