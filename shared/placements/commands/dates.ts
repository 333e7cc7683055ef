import type { Caller } from '../../db/tenant.ts';
import { conflict, invalid } from '../../domain-errors.ts';
import { checkNotPast, checkStay, checkStayLength, checkStayOrder } from '../stay.ts';
import { tenantNow } from '../../clock/time.ts';
import type { Tx } from '../../db/client.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { inPlacement } from '../unit-of-work.ts';
import { type DatesInput, type SignerInput } from '../schemas.ts';
import { assertNotSigned, issueContract } from './contract.ts';
import { leaseCreated } from '../render.ts';
import { shortenStay } from './booking.ts';
import { currentLease, resolveProposals, updatePlacement, type PlacementRow } from '../repository.ts';

// POST dates, POST dates/approve-proposal and POST signer: each locks the request and the placement,
// checks the placement's state and issues a new contract version (./contract.ts).

/** Dates may be set once the home is approved to lease: placed, or the household's application approved. */
function assertReadyForDates(placement: PlacementRow): void {
  if (placement.option_status === 'declined') {
    throw invalid('could_not_set_dates', 'The household declined this home.', 'property_id');
  }
  if (placement.application_status !== 'approved_to_lease') {
    const why = {
      applied: 'The landlord has not approved the household’s application yet.',
      declined: 'The landlord declined the household’s application.',
      not_applied: 'The household has not applied for this home yet (or place it with POST options, action place).',
    }[placement.application_status];
    throw invalid('could_not_set_dates', why, 'property_id');
  }
}

/** A new version at these dates for the placement's own signer. */
const redate = (tx: Tx, claim: ClaimRow, placement: PlacementRow, moveIn: string, moveOut: string, issuedBy: 'dates' | 'approve_proposal') =>
  issueContract(tx, claim, placement, { moveIn, moveOut, signerName: placement.signer_name, signerEmail: placement.signer_email, issuedBy });

/** Closes the household's open proposal: approved, or replaced by the caller's own dates. */
async function closeProposal(tx: Tx, placement: PlacementRow, resolution: 'approved' | 'replaced'): Promise<void> {
  await resolveProposals(tx, placement.id, resolution);
  await updatePlacement(tx, placement.id, { proposed_move_in: null, proposed_move_out: null, proposed_at: null });
}

export async function setDates(caller: Caller, reference: string, body: DatesInput) {
  checkStayOrder(body.move_in, body.move_out);
  return inPlacement(caller, { reference, propertyId: body.property_id }, async ({ tx, claim, placement }) => {
    const [lease, now] = await Promise.all([currentLease(tx, placement), tenantNow(tx)]);
    // Once moved in, an earlier move_out shortens the stay, whenever before move-out (the move-in
    // is then in the past, and the family may leave before 30 days); any other change of a signed
    // lease stays refused.
    const shortened = lease?.status === 'fully_signed' ? await shortenStay(tx, claim, placement, lease, body.move_in, body.move_out, now) : null;
    if (shortened) return leaseCreated(shortened.lease, shortened.moveOut);
    checkStayLength(body.move_in, body.move_out);
    checkNotPast(body.move_in, 'move_in', now);
    assertNotSigned(lease);
    assertReadyForDates(placement);
    // The same dates again (a retry) rewrite nothing: the live version is the answer.
    if (lease && lease.move_in_date === body.move_in && lease.move_out_date === body.move_out && !placement.proposed_at) {
      return leaseCreated(lease);
    }
    const issued = await redate(tx, claim, placement, body.move_in, body.move_out, 'dates');
    if (placement.proposed_at) await closeProposal(tx, placement, 'replaced');
    return leaseCreated(issued);
  });
}

export async function approveProposal(caller: Caller, reference: string, propertyId: string) {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const [lease, now] = await Promise.all([currentLease(tx, placement), tenantNow(tx)]);
    assertNotSigned(lease);
    if (!placement.proposed_move_in || !placement.proposed_move_out) {
      throw conflict('no_proposal', 'The household has not proposed other dates for this home.', 'property_id');
    }
    assertReadyForDates(placement);
    checkStay(placement.proposed_move_in, placement.proposed_move_out, now);
    const issued = await redate(tx, claim, placement, placement.proposed_move_in, placement.proposed_move_out, 'approve_proposal');
    await closeProposal(tx, placement, 'approved');
    return leaseCreated(issued);
  });
}

export async function changeSigner(caller: Caller, reference: string, body: SignerInput) {
  return inPlacement(caller, { reference, propertyId: body.property_id }, async ({ tx, claim, placement }) => {
    const lease = await currentLease(tx, placement);
    assertNotSigned(lease);
    const signer = { signer_name: body.signer_email ? body.signer_name ?? null : null, signer_email: body.signer_email ?? null };
    await updatePlacement(tx, placement.id, signer);
    const issued = lease
      ? await issueContract(tx, claim, placement, {
          moveIn: lease.move_in_date,
          moveOut: lease.move_out_date,
          signerName: signer.signer_name,
          signerEmail: signer.signer_email,
          issuedBy: 'signer',
        })
      : null;
    return {
      property_id: placement.property_id,
      signer: signer.signer_name ? { name: signer.signer_name, email: signer.signer_email } : null,
      lease: issued ? leaseCreated(issued) : null,
    };
  });
}
