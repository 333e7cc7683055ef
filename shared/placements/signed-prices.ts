import type { Tx } from '../db/client.ts';
import { conflict } from '../domain-errors.ts';
import type { ClaimRow } from '../claims/repository.ts';
import type { LeaseRow } from './lease.ts';
import { price, termsOf, type LeaseTerms } from './pricing.ts';
import { homeIfPlaceable, type PlacementRow } from './repository.ts';

// What a signed contract version charges: always from the terms it was issued with (never from the
// home as it stands). The ledger posts a version's charges from these prices (./stay-ledger.ts), and the
// budget review of a signed stay shows them.

/**
 * The prices of a stay under the terms the lease was signed on: a provider's later change of rates,
 * fees or listing, or the request's pets, never changes what the version charges.
 */
export async function signedPrices(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow, stay: { moveIn: string; moveOut: string }) {
  const terms = lease.terms ?? (await termsBeforeRecorded(tx, claim, placement, lease));
  const prices = price(terms.home, { ...claim, has_pets: terms.request.has_pets }, { move_in: stay.moveIn, move_out: stay.moveOut });
  return { prices, currency: terms.home.currency };
}

/**
 * The stay a lease was signed for and its signed prices: what its signing posted to the stay's ledger
 * (the tier the checkout charges; a later shortening releases nights but never prices the kept ones
 * again, and extensions post their own nights).
 */
export async function signedStay(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow) {
  const stay = { moveIn: lease.move_in_date, moveOut: lease.move_out_date };
  return { stay, ...(await signedPrices(tx, claim, placement, lease, stay)) };
}

/** A version issued before terms were recorded prices from the home as it stands, as it always did. */
async function termsBeforeRecorded(tx: Tx, claim: ClaimRow, placement: PlacementRow, lease: LeaseRow): Promise<LeaseTerms> {
  const home = await homeIfPlaceable(tx, claim.id, placement.property_id);
  if (!home) throw conflict('charges_disabled', 'The home is no longer offered by the landlord; nothing can be paid.');
  return termsOf(home, claim, { move_in: lease.move_in_date, move_out: lease.move_out_date });
}
