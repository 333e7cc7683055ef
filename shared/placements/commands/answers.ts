import type { Tx } from '../../db/client.ts';
import { conflict, DomainError } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { emit } from '../../events/outbox.ts';
import { moveStatus } from '../../claims/lifecycle.ts';
import { moveLease } from '../lease.ts';
import { offerMove, type OfferEvent } from '../states.ts';
import { checkStay } from '../stay.ts';
import { tenantNow } from '../../clock/time.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import type { Tenant } from '../../db/tenant.ts';
import { inPlacement } from '../unit-of-work.ts';
import { onHome } from '../render.ts';
import { placementHome } from './read.ts';
import { homeLabel, payeeOf } from '../money-repository.ts';
import { decideRefund } from './refunds.ts';
import { declineExtension, putExtensionInEffect } from './extensions.ts';
import { postSigned } from '../stay-ledger.ts';
import { extensionCharge, ledgerOf } from '../stay-money.ts';
import { settleRequestStatus } from './booking.ts';
import {
  currentLease, moveOffer, openAddendum, otherHomesInPlay, recordResponse, updatePlacement, type PlacementRow,
} from '../repository.ts';
import type { LeaseRow } from '../lease.ts';

// The household's and the landlord's answers. In live they arrive from their own channels and the
// e-signature provider's callbacks; in sandbox from the counterpart helpers. Both call these
// commands, inside the tenant transaction of the request, with the placement locked: the same
// state moves, timeline rows, events and status changes either way. An answer that does not fit the
// state is 409 with a code saying why.

export type HouseholdAnswer =
  | { action: 'save' }
  | { action: 'decline'; reason: string }
  | { action: 'apply' }
  | { action: 'propose_dates'; move_in: string; move_out: string }
  | { action: 'sign' };

export type LandlordAnswer =
  | { action: 'approve_application' | 'sign' | 'approve_refund' | 'decline_refund' | 'decline_extension' }
  | { action: 'decline_application'; reason: string };

/** An application the landlord answered before is answered: 409 already_answered. */
function assertUnanswered(placement: PlacementRow): void {
  if (placement.application_status === 'approved_to_lease' || placement.application_status === 'declined') {
    throw conflict('already_answered', `The landlord already ${placement.application_status === 'declined' ? 'declined' : 'approved'} this application.`);
  }
}

async function moveOfferOr409(tx: Tx, placement: PlacementRow, event: OfferEvent, columns: Record<string, unknown>): Promise<PlacementRow> {
  const to = offerMove(event, placement);
  const row = to ? await moveOffer(tx, placement.id, event, { ...to, ...columns }) : null;
  if (!row) {
    throw conflict('option_not_open', `Cannot ${event.replace('_', ' ')} now: the home is ${placement.option_status} (application ${placement.application_status}).`);
  }
  return row;
}

/**
 * A contract version to sign that the service has not sent for signature yet: the send_contract job
 * does it within seconds of the dates or the extension (lease.sent). The sandbox helpers wait for it
 * (commands/sandbox-sign.ts); anyone else is told what is on its way.
 */
export class NotSentYet extends DomainError<'conflict'> {
  constructor(readonly leaseId: string, kind: LeaseRow['kind']) {
    super(
      'conflict',
      'lease_not_signable',
      `The ${kind === 'addendum' ? "extension's addendum" : 'lease'} is still on its way to the signers: the service sends it for signature ` +
        `within seconds of ${kind === 'addendum' ? 'the extension' : 'the dates'} (lease.sent). Sign it once it is sent; retry after Retry-After seconds.`,
    );
  }
}

/** Why a version cannot take this signature now, in words the API documents (never the state machine's names). */
function notSignable(lease: LeaseRow): DomainError {
  if (lease.status === 'awaiting_lease') return new NotSentYet(lease.id, lease.kind);
  const what = lease.kind === 'addendum' ? "The extension's addendum" : 'The lease';
  const why =
    lease.status === 'fully_signed' ? 'is already signed by the household and the landlord.'
    : lease.status === 'policyholder_signed' ? 'is already signed by the household; the landlord countersigns it next.'
    : lease.status === 'sent_for_signature' ? "waits for the household's signature first; the landlord countersigns after it."
    : 'was replaced or withdrawn: nothing waits for a signature.';
  return conflict('lease_not_signable', `${what} ${why}`);
}

/** The first signature (household or named signer), or the landlord's countersignature. */
export async function sign(tx: Tx, claim: ClaimRow, placement: PlacementRow, by: 'tenant' | 'landlord'): Promise<void> {
  const current = await currentLease(tx, placement);
  // Once the lease is signed by both, signatures go to the open extension's addendum, if any.
  const addendum = current?.status === 'fully_signed' ? await openAddendum(tx, placement.id) : null;
  const lease = addendum ?? current;
  if (!lease) throw conflict('lease_not_signable', 'No lease yet: the caller sets the dates first.');
  if (by === 'tenant' && placement.proposed_at) {
    throw conflict('proposal_pending', 'The household proposed other dates; the placement waits until the caller answers.');
  }
  const moved = by === 'tenant'
    ? await moveLease(tx, lease.id, 'first_signed', { policyholder_signed_at: 'now' })
    : await moveLease(tx, lease.id, 'countersigned', { owner_signed_at: 'now' });
  if (!moved) throw notSignable(lease);
  if (by === 'tenant') {
    await emit(tx, 'lease.first_signed', { ...onHome(claim, placement), lease_id: moved.id, signed_at: moved.policyholder_signed_at!.toISOString() });
  } else {
    await emit(tx, 'lease.signed', { ...onHome(claim, placement), lease_id: moved.id, signed_at: moved.owner_signed_at!.toISOString() });
    // Signed by both, the version's charges are posted to the stay's ledger.
    await postSigned(tx, claim, placement, moved);
    if (moved.kind === 'addendum') {
      // An extension that only takes back nights released before has nothing of its own to pay: it takes effect now.
      const ledger = await ledgerOf(tx, placement);
      if (!extensionCharge(ledger, moved.id)) await putExtensionInEffect(tx, claim, placement, moved, { grossCents: 0, currency: ledger.currency ?? 'usd' });
      return;
    }
    await moveStatus(tx, [claim.id], 'lease_signed');
    // Both signed, payment is unlocked: the request waits for the payer (the specification's order,
    // lease_signed then payment_setup, each announced).
    await moveStatus(tx, [claim.id], 'payment_setup');
  }
}

/**
 * An application waits for the landlord: application.received, and an email saying the one thing
 * to do (answer it through the provider API).
 */
async function announceApplication(tx: Tx, claim: ClaimRow, placement: PlacementRow): Promise<void> {
  const [payee, label] = await Promise.all([payeeOf(tx, placement.property_id), homeLabel(tx, placement.property_id)]);
  const landlord = payee.contact_email ?? (claim.environment === 'sandbox' ? 'landlord@sandbox.invalid' : null);
  const home = label.name ?? 'your home';
  await enqueue(tx, 'send_email', {
    to: landlord ? [landlord] : [],
    subject: `A household applied for ${home} (${claim.claim_ref})`,
    text:
      `A displaced household (${claim.adults} adult${claim.adults === 1 ? '' : 's'}${claim.children ? `, ${claim.children} child${claim.children === 1 ? '' : 'ren'}` : ''}` +
      `${claim.has_pets ? ', with pets' : ''}) applied for ${home}, hoping to move in around ${claim.target_move_in}.\n\n` +
      `Approve or decline it: POST /properties/applications/${placement.id} with {"decision": "approve"} or ` +
      `{"decision": "decline", "reason": "..."} (applications waiting for you: GET /properties/applications?status=pending).`,
    topic: 'application.received',
  }, { dedupeKey: `application.received:${placement.id}:${placement.applied_at!.toISOString()}` });
  await emit(tx, 'application.received', {
    application_id: placement.id,
    reference: claim.claim_ref,
    property_id: placement.property_id,
    external_id: label.external_id,
    property: { name: label.name, api_external_id: label.external_id },
    applied_at: placement.applied_at!.toISOString(),
    household: { adults: claim.adults, children: claim.children, has_pets: claim.has_pets },
    target_move_in: claim.target_move_in,
  }, { orgId: payee.org_id, environment: claim.environment });
}

export async function householdAnswers(tx: Tx, claim: ClaimRow, placement: PlacementRow, answer: HouseholdAnswer): Promise<void> {
  switch (answer.action) {
    case 'save': {
      await moveOfferOr409(tx, placement, 'save', { recipient_response: 'saved' });
      await recordResponse(tx, placement.id, 'save');
      await emit(tx, 'option.saved', onHome(claim, placement));
      return;
    }
    case 'decline': {
      await moveOfferOr409(tx, placement, 'decline', { recipient_response: 'rejected', decline_reason: answer.reason, proposed_move_in: null, proposed_move_out: null, proposed_at: null });
      await recordResponse(tx, placement.id, 'decline', { reason: answer.reason });
      await emit(tx, 'option.declined', { ...onHome(claim, placement), reason: answer.reason });
      // The placement stops; with no other home in play the request is back to its options.
      if (!(await otherHomesInPlay(tx, claim.id, placement.id))) await moveStatus(tx, [claim.id], 'housing_options_found');
      return;
    }
    case 'apply': {
      const applied = await moveOfferOr409(tx, placement, 'apply', { applied_at: new Date() });
      await recordResponse(tx, placement.id, 'apply');
      await moveStatus(tx, [claim.id], 'landlord_approval');
      await announceApplication(tx, claim, applied);
      return;
    }
    case 'propose_dates': {
      checkStay(answer.move_in, answer.move_out, await tenantNow(tx));
      if (placement.option_status === 'declined' || placement.option_status === 'cancelled') {
        throw conflict('option_not_open', `Cannot propose dates: the home is ${placement.option_status}.`);
      }
      if ((await currentLease(tx, placement))?.status === 'fully_signed') {
        throw conflict('already_signed', 'The lease is fully signed; the dates can no longer be changed this way.');
      }
      await updatePlacement(tx, placement.id, { proposed_move_in: answer.move_in, proposed_move_out: answer.move_out, proposed_at: new Date() });
      await recordResponse(tx, placement.id, 'propose_dates', { move_in: answer.move_in, move_out: answer.move_out });
      await emit(tx, 'dates.proposed', { ...onHome(claim, placement), move_in: answer.move_in, move_out: answer.move_out });
      await moveStatus(tx, [claim.id], 'awaiting_approval');
      return;
    }
    case 'sign':
      return sign(tx, claim, placement, 'tenant');
  }
}

export async function landlordAnswers(tx: Tx, claim: ClaimRow, placement: PlacementRow, answer: LandlordAnswer): Promise<void> {
  switch (answer.action) {
    case 'approve_application': {
      assertUnanswered(placement);
      const now = new Date();
      await moveOfferOr409(tx, placement, 'approve_application', { application_approved_at: now, committed_at: now });
      return;
    }
    case 'decline_application': {
      assertUnanswered(placement);
      await moveOfferOr409(tx, placement, 'decline_application', { application_declined_at: new Date(), application_decline_reason: answer.reason });
      // The home is out of play: the request moves back to what its other homes support.
      await settleRequestStatus(tx, claim, placement.id);
      return;
    }
    case 'sign':
      return sign(tx, claim, placement, 'landlord');
    case 'decline_extension':
      return declineExtension(tx, placement);
    case 'approve_refund':
    case 'decline_refund':
      await decideRefund(tx, claim, placement, answer.action === 'approve_refund');
      return;
  }
}

/** Runs an answer in the request's tenant transaction and returns the home as it now stands. */
export async function answer(
  tenant: Tenant,
  reference: string,
  propertyId: string,
  act: (tx: Tx, claim: ClaimRow, placement: PlacementRow) => Promise<void>,
  // Refund answers also concern a placement cancelled after payment (cancel-booking with force), and a
  // payment what a stay cancelled once moved in still owes.
  options: { orCancelled?: boolean } = {},
) {
  return inPlacement(tenant, { reference, propertyId }, async ({ tx, claim, placement }) => {
    await act(tx, claim, placement);
    return placementHome(tx, claim.id, placement.property_id);
  }, { cancelled: options.orCancelled ? 'include' : 'refuse' });
}
