import type { Caller } from '../../db/tenant.ts';
import { conflict, invalid } from '../../domain-errors.ts';
import { moveStatus } from '../../claims/lifecycle.ts';
import { enqueue } from '../../jobs/queue.ts';
import { offerMove } from '../states.ts';
import { inRequest, lockHomeOnRequest, type RequestUnit } from '../unit-of-work.ts';
import { issueHouseholdLink, type LinkDelivery } from './household.ts';
import { type OptionInput } from '../schemas.ts';
import { approveBudget } from './budget.ts';
import { hasBillingAccount, homeForRequest, insertPlacement, moveOffer, otherStaysConflicts, readApproval, reopenPlacement } from '../repository.ts';
import { wantedNights } from '../stay.ts';
import { tenantNow } from '../../clock/time.ts';

// POST /claims/{reference}/options: put a home on the request and send it to the household (send)
// or place it on their behalf (place). Tenant transaction; the request and the placement row are
// locked; the offer moves by the transition table; a home whose nights other stays hold over the
// stay the request wants is refused (could_not_place with the conflicts), while any number of
// requests may have one home on them until dates take its nights. Safe to retry: the same row is
// rewritten.

export async function putOption(caller: Caller, reference: string, body: OptionInput) {
  return inRequest(caller, reference, async (unit) => {
    const { tx, claim } = unit;
    const home = await homeForRequest(tx, claim.id, body.property_id);
    if (!(await hasBillingAccount(tx))) {
      throw conflict('no_billing_account', 'This organisation is not linked to a carrier billing account; ask the service to link one before placing live.');
    }
    const approval = await readApproval(tx, claim.id, home.id);
    if (!approval?.approved) {
      if (body.approve_budget !== true) {
        throw conflict('budget_not_approved', 'Approve the budget first (POST .../options/{propertyId}/budget with approved: true), or send approve_budget: true.');
      }
      await approveBudget(tx, claim, home, true);
    }
    if (!home.charges_enabled) {
      throw invalid('could_not_place', "The home's provider cannot take charges yet (payout account not set up); no family can be placed there.", 'property_id');
    }
    if (body.action === 'send' && !claim.household_email) {
      throw invalid('could_not_place', 'send emails the household: the request has no household_email (add it with PATCH /claims/{reference}), or use place.', 'action');
    }

    const existing = await lockHomeOnRequest(unit, home.id);
    const from = existing && existing.option_status !== 'cancelled' ? existing : null;
    const to = offerMove(body.action, from);
    if (!to) {
      const why = from?.option_status === 'declined'
        ? 'the household declined this home'
        : `the home is ${from?.option_status} (${from?.application_status}) on this request`;
      throw invalid('could_not_place', `Cannot ${body.action} this home: ${why}.`, 'property_id');
    }
    // A retry (the offer already where this call puts it) answers as before: what was put stays put.
    const firstTime = !existing || existing.option_status !== to.option_status;
    if (firstTime) await refuseHeldNights(unit, home.id);
    const now = new Date();
    const columns: Record<string, unknown> = {
      ...to,
      adjuster_placed_at: now,
      ...(body.action === 'send'
        ? { offered_at: existing?.offered_at ?? now }
        : {
            placed_without_recipient: true,
            committed_at: existing?.committed_at ?? now,
            // The signer named at placing; once a contract exists, POST signer changes it.
            ...(existing?.current_lease_id ? {} : { signer_name: body.signer_name ?? null, signer_email: body.signer_email ?? null }),
          }),
    };
    const row = existing
      ? existing.option_status === 'cancelled'
        ? await reopenPlacement(tx, existing.id, columns)
        : await moveOffer(tx, existing.id, body.action, columns)
      : await insertPlacement(tx, caller, claim.id, home.id, columns);
    if (!row) throw invalid('could_not_place', 'The home changed state meanwhile; read the placement and try again.', 'property_id');

    let delivery: LinkDelivery | null = null;
    if (body.action === 'send') {
      // The household is emailed its link to the home's page (./household.ts), once per offer.
      if (firstTime) delivery = (await issueHouseholdLink(tx, claim, row)).delivery;
      await moveStatus(tx, [claim.id], 'options_sent');
    } else {
      if (firstTime) {
        const landlord = home.owner_contact_email ?? (caller.environment === 'sandbox' ? 'landlord@sandbox.invalid' : null);
        await enqueue(tx, 'send_email', {
          to: landlord ? [landlord] : [],
          subject: `Your home ${home.name ?? home.address} was placed (${claim.claim_ref})`,
          text: `A displaced household was placed in ${home.name ?? home.address}. The lease goes out for signature once the dates are set.`,
          topic: 'home.placed',
        }, { dedupeKey: `home.placed:${row.id}:${row.committed_at?.toISOString()}` });
      }
      await moveStatus(tx, [claim.id], 'landlord_approval');
    }
    return {
      request_id: claim.id,
      property_id: home.id,
      option_status: row.option_status,
      application_status: row.application_status,
      budget_approved: true,
      adjuster_placed_at: row.adjuster_placed_at!.toISOString(),
      household_link_delivery: delivery,
    };
  });
}

/**
 * 400 could_not_place, with the conflicts, when other requests' stays hold nights of the stay this
 * request wants (../stay.ts wantedNights), for send as for place: neither the household nor the
 * landlord should be asked about a home that cannot host the stay. Only the service's holds count; a
 * provider's block may be lifted, and POST dates judges every block anyway. The calendar is read,
 * not locked: nights are taken only with dates, where two stays racing for them resolve exactly.
 */
async function refuseHeldNights({ tx, claim }: RequestUnit, propertyId: string): Promise<void> {
  const wanted = wantedNights(claim, await tenantNow(tx));
  if (!wanted) return;
  const conflicts = await otherStaysConflicts(tx, propertyId, claim.id, wanted.first, wanted.last);
  if (conflicts.length === 0) return;
  throw invalid(
    'could_not_place',
    `Another stay holds nights of the stay this request wants (the nights ${wanted.first} to ${wanted.last}, from target_move_in for est_length_months); ` +
      'error.conflicts lists them. Choose another home, or change target_move_in or est_length_months (PATCH /claims/{reference}).',
    'property_id',
    { conflicts },
  );
}
