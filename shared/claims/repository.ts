import { isUuid } from '../ids.ts';
import type { Tx } from '../db/client.ts';
import { notFound } from '../domain-errors.ts';
import type { RequestStatus } from './status.ts';
import {
  claimRefPattern, type furnishings, type laundryPreferences, type parkingPreferences, type payers, type priorities, type propertyTypes,
} from './values.ts';

// A housing request as every module reads it: the row, and finding and locking it by reference.
// The claims function's own SQL (listing, creation, amendments) is in functions/claims/repository.ts;
// the placement and sourcing modules lock a request through these. Queries run inside withTenant or inOneWrite,
// so row-level security limits them to the caller's organisation and environment.

type Payer = (typeof payers)[number];

export interface ClaimRow {
  id: string;
  claim_ref: string;
  environment: 'live' | 'sandbox';
  external_id: string | null;
  external_reference: string | null;
  status_primary: RequestStatus;
  loss_address: string;
  loss_city: string;
  loss_state: string;
  loss_zip: string;
  loss_country: string;
  loss_lat: number | null;
  loss_lng: number | null;
  origin_lat: number;
  origin_lng: number;
  policyholder_name: string | null;
  target_move_in: string;
  est_length_months: number;
  max_budget_cents: number | null;
  ale_limit_cents: number | null;
  rent_payer: Payer;
  deposit_payer: Payer;
  fees_payer: Payer | null;
  search_radius_miles: number;
  priority: (typeof priorities)[number];
  household_email: string | null;
  household_phone: string | null;
  household_language: string | null;
  adjuster_name: string | null;
  adjuster_email: string | null;
  adjuster_phone: string | null;
  bedrooms: number;
  bathrooms: string;
  sqft: number;
  adults: number;
  children: number;
  occupants: number;
  property_type: (typeof propertyTypes)[number];
  furnishing: (typeof furnishings)[number];
  accessibility_needs: string[];
  amenities: string[];
  laundry_preference: (typeof laundryPreferences)[number] | null;
  parking_preference: (typeof parkingPreferences)[number] | null;
  has_pets: boolean;
  number_of_pets: number | null;
  pet_details: string | null;
  pet_breeds: string[] | null;
  coordinator: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns every read selects (with the coordinator resolved as the service would). */
export const claimColumns = (tx: Tx) => tx`c.*, app.coordinator_of(c) as coordinator`;


/**
 * Which request a `{reference}` names, as a condition on `app.claims c`: its claim_ref (any case)
 * or its id. Anything else names no request: 404, before any statement.
 */
export function referenceCondition(tx: Tx, reference: string) {
  const ref = reference.trim().toUpperCase();
  if (claimRefPattern.test(ref)) return tx`c.claim_ref = ${ref}`;
  if (isUuid(reference)) return tx`c.id = ${reference}`;
  throw notFound('housing request');
}

/** The statement reading the request a `{reference}` names (none when it is another organisation's or environment's). */
export const claimByReference = (tx: Tx, reference: string, options: { lock?: boolean } = {}) =>
  tx<ClaimRow[]>`select ${claimColumns(tx)} from app.claims c where ${referenceCondition(tx, reference)} ${options.lock ? tx`for update` : tx``}`;

/** The request a statement of claimByReference found, or 404. */
export function foundClaim(rows: readonly ClaimRow[]): ClaimRow {
  if (!rows[0]) throw notFound('housing request');
  return rows[0];
}

/**
 * The request a `{reference}` names; any request of another organisation or environment is 404.
 * `lock` takes the row for an update.
 */
export async function findClaim(tx: Tx, reference: string, options: { lock?: boolean } = {}): Promise<ClaimRow> {
  return foundClaim(await claimByReference(tx, reference, options));
}

/** The requests of these ids, locked for update in id order (the order status moves lock them in). */
export function lockClaims(tx: Tx, ids: string[]): Promise<ClaimRow[]> {
  return tx<ClaimRow[]>`
    select ${claimColumns(tx)} from app.claims c where c.id = any(${ids}::uuid[]) order by c.id for update`;
}
