import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../db/tenant.ts';
import { conflict, invalid } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { emit } from '../../events/outbox.ts';
import { onHome } from '../render.ts';
import { fromCents } from '../../money.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { tenantNow } from '../../clock/time.ts';
import { moveLease, type LeaseRow, type WithdrawalReason } from '../lease.ts';
import { budgetReview, termsOf } from '../pricing.ts';
import { signedPrices } from '../signed-prices.ts';
import { previewSigned } from '../stay-ledger.ts';
import { budgetTotals, chargeOfOwn, ledgerOf } from '../stay-money.ts';
import { splitCharge } from '../../properties/earnings.ts';
import { earliestToday, lastNight } from '../stay.ts';
import { scheduleCloseout } from '../schedule.ts';
import { inPlacement, lockCalendar } from '../unit-of-work.ts';
import { setCheckOut, stayBooking } from '../money-repository.ts';
import {
  addendaOf, currentLease, insertAddendum, latestVersion, openAddendum, putAddendumInEffect, rangeConflicts, releaseHolds, stayMoveOut, takeHold,
  type PlacementRow,
} from '../repository.ts';
import { announceBookingChange } from './announce.ts';
import type { ExtensionInput } from '../schemas.ts';

// Extending a stay (POST /claims/{reference}/extensions): beyond the specification, designed as an
// addendum to the signed lease. The request holds the added nights at once (the calendar's
// exclusion constraint decides a race with other placements), prices them by the signed terms at
// the tier of the extended stay's length, and sends the addendum for both signatures like a lease
// (the send-contract job; in sandbox the counterpart helpers sign it). Signed by both, its payment
// is what the pay page and the payment helper collect next, on the landlord's account; when it
// clears the addendum takes effect: the stay's move-out, the booking's check-out and the closeout
// move, and the provider hears booking.updated (dates_changed). Declined, or lapsed unpaid at the
// stay's end, it is withdrawn with its hold, and the stay stays as it was.

/** The extension as the API shows it: its addendum, the added nights and their price. */
export async function renderExtension(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow, addendum: LeaseRow) {
  const { prices, currency } = await signedPrices(tx, claim, placement, addendum, { moveIn: lease.move_in_date, moveOut: addendum.move_out_date });
  const { stay, own } = await extendedLedger(tx, claim, placement, lease, addendum);
  const due = chargeOfOwn(own) ?? { lines: [], split: splitCharge({ rentCents: 0 }) };
  const review = budgetReview(addendum.terms!.home, { ...prices, ...budgetTotals(stay, prices.aleLimit) }, {
    budget_approved: true, approved_at: addendum.created_at.toISOString(), on_request: true,
  }, { basis: 'signed_terms', lease_id: lease.id });
  return {
    id: addendum.id,
    property_id: placement.property_id,
    lease_id: lease.id,
    status: extensionStatus(addendum),
    addendum: { version: addendum.version, status: addendum.status, sent_at: iso(addendum.sent_at), policyholder_signed_at: iso(addendum.policyholder_signed_at), owner_signed_at: iso(addendum.owner_signed_at) },
    previous_move_out_date: addendum.move_in_date,
    move_out_date: addendum.move_out_date,
    added_nights: Math.round((Date.parse(addendum.move_out_date) - Date.parse(addendum.move_in_date)) / 86_400_000),
    tier: prices.tier,
    monthly_rent: fromCents(prices.rentTier),
    amount: fromCents(due.split.grossCents),
    lines: due.lines.map((line) => ({ label: line.label, amount: fromCents(line.cents) })),
    currency,
    budget: review,
    created_at: addendum.created_at.toISOString(),
    effective_at: iso(addendum.effective_at),
  };
}

const iso = (at: Date | null) => at?.toISOString() ?? null;

/**
 * The stay's ledger as the extension's signing leaves it, and the entries of its own charge: as
 * posted when both signed it (its added nights beyond any night signed before, and what taking back
 * released nights put on a part already paid; those nights come back on the charge they were signed
 * in), or, before that, what its signing would post now. Later changes of the stay are not in it, as
 * a signed lease's review shows what its signing posted.
 */
async function extendedLedger(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow, addendum: LeaseRow) {
  const { entries } = await ledgerOf(tx, placement);
  const posted = entries.filter((e) => e.postedFor === addendum.id);
  if (posted.length > 0) {
    const last = Math.max(...posted.map((e) => e.position));
    return { stay: entries.filter((e) => e.position <= last), own: posted.filter((e) => e.leaseId === addendum.id) };
  }
  const preview = await previewSigned(tx, claim, placement, addendum, lease);
  return { stay: [...entries, ...preview], own: preview.filter((e) => e.leaseId === addendum.id) };
}

export type ExtensionStatus = 'awaiting_signature' | 'awaiting_payment' | 'in_effect' | 'withdrawn';

export function extensionStatus(addendum: LeaseRow): ExtensionStatus {
  if (addendum.effective_at) return 'in_effect';
  if (addendum.status === 'withdrawn' || addendum.status === 'superseded') return 'withdrawn';
  return addendum.status === 'fully_signed' ? 'awaiting_payment' : 'awaiting_signature';
}

export async function requestExtension(caller: Caller, reference: string, input: ExtensionInput) {
  return inPlacement(caller, { reference, propertyId: input.property_id }, async ({ tx, claim, placement }) => {
    const [lease, booking, now] = await Promise.all([currentLease(tx, placement), stayBooking(tx, placement.id), tenantNow(tx)]);
    if (!lease || lease.status !== 'fully_signed' || !booking) {
      throw conflict('not_booked', 'A stay is extended once it is booked: the lease signed by both and the first payment cleared.');
    }
    const moveOut = stayMoveOut(placement, lease);
    if (booking.booking_status === 'completed' || earliestToday(now) >= moveOut) {
      throw invalid('could_not_set_dates', `The stay ended on ${moveOut} (its move-out date); it can no longer be extended.`, 'move_out');
    }
    const open = await openAddendum(tx, placement.id);
    if (open) {
      // The same extension again (a retry) answers the one already open.
      if (open.move_out_date === input.move_out) return renderExtension(tx, claim, placement, lease, open);
      throw conflict('extension_pending', `An extension to ${open.move_out_date} is open (${extensionStatus(open).replace('_', ' ')}); it is paid or declined first.`);
    }
    if (input.move_out <= moveOut) {
      throw invalid('invalid_field', `move_out must be after the stay's move-out (${moveOut}); to end earlier, shorten with POST dates.`, 'move_out');
    }
    await lockCalendar({ tx, claim, placement });
    const signed = lease.terms!;
    const terms = termsOf({ ...signed.home, ...signed.listing }, { ...claim, has_pets: signed.request.has_pets }, { move_in: lease.move_in_date, move_out: input.move_out });
    const addendum = await insertAddendum(tx, placement, lease, { version: (await latestVersion(tx, placement.id)) + 1, moveIn: moveOut, moveOut: input.move_out, terms });
    const hold = await takeHold(tx, placement.property_id, moveOut, lastNight(input.move_out), addendum.id, `extension ${claim.claim_ref}`);
    if (!hold) {
      const conflicts = await rangeConflicts(tx, placement.property_id, moveOut, lastNight(input.move_out));
      throw conflict('dates_unavailable', 'Something already holds part of the added nights.', undefined, { conflicts });
    }
    if (addendum.template === 'standard') await enqueue(tx, 'send_contract', { lease_id: addendum.id }, { dedupeKey: addendum.id });
    return renderExtension(tx, claim, placement, lease, addendum);
  });
}

/** The extensions of a placement, newest first (GET /claims/{reference}/extensions?property_id=). */
export async function listExtensions(caller: Caller, reference: string, propertyId: string) {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const lease = await currentLease(tx, placement);
    const addenda = lease ? await addendaOf(tx, placement.id) : [];
    return Promise.all(addenda.map((addendum) => renderExtension(tx, claim, placement, lease!, addendum)));
  }, { lock: false });
}

/**
 * The extension's payment cleared (./payments.ts): the addendum takes effect, the stay takes its
 * move-out, the booking its check-out, the closeout its date; the provider hears of it.
 */
export async function putExtensionInEffect(tx: Tx, claim: ClaimRow, placement: PlacementRow, addendum: LeaseRow, paid: { grossCents: number; currency: string }): Promise<void> {
  const done = await putAddendumInEffect(tx, placement, addendum);
  const booking = await stayBooking(tx, placement.id);
  if (!done || booking?.booking_status !== 'confirmed') return;
  const extended = await setCheckOut(tx, booking.id, done.move_out_date);
  await Promise.all([
    announceBookingChange(tx, claim, placement, extended, 'dates_changed', 'confirmed'),
    emit(tx, 'booking.dates_changed', {
      ...onHome(claim, placement),
      change: 'extended',
      lease_id: done.extends_lease_id!,
      extension_id: done.id,
      move_in_date: booking.check_in,
      previous_move_out_date: done.move_in_date,
      move_out_date: done.move_out_date,
      refund_due: null,
      amount: fromCents(paid.grossCents),
      currency: paid.currency,
    }),
    scheduleCloseout(tx, placement.id, done.move_out_date, done.id),
  ]);
}

/** Why an extension did not go ahead, kept with its addendum (the timeline says it), and as told to the e-signature provider. */
const withdrawalWords: Record<WithdrawalReason, string> = {
  declined: 'declined by the landlord',
  lapsed: 'the stay ended before the extension was paid',
  cancelled: 'placement cancelled',
  stay_shortened: 'the stay was shortened before the extension took effect',
};

/**
 * The extension does not go ahead: declined by the landlord, lapsed unpaid when the stay ends, its
 * placement cancelled, or the stay shortened before it took effect. Its addendum is withdrawn with the reason (its signature links stop) and
 * its nights released; the stay is as it was.
 */
export async function withdrawExtension(tx: Tx, addendum: LeaseRow, reason: WithdrawalReason): Promise<boolean> {
  const withdrawn = await moveLease(tx, addendum.id, 'withdrawn', { withdrawn_at: 'now', withdrawal_reason: reason });
  if (!withdrawn) return false;
  await releaseHolds(tx, addendum.id);
  if (withdrawn.provider_ref) {
    await enqueue(tx, 'withdraw_contract', { provider_ref: withdrawn.provider_ref, reason: withdrawalWords[reason] }, { dedupeKey: withdrawn.provider_ref });
  }
  return true;
}

/** The landlord declines the open extension (the sandbox helper's decline_extension). */
export async function declineExtension(tx: Tx, placement: PlacementRow): Promise<void> {
  const open = await openAddendum(tx, placement.id);
  if (!open || open.status === 'fully_signed') {
    throw conflict('lease_not_signable', open ? 'The extension is signed by both; it takes effect when paid.' : 'No extension is waiting for the landlord.');
  }
  await withdrawExtension(tx, open, 'declined');
}
