import { isUuid } from '../../shared/ids.ts';
import type { Tx } from '../../shared/db/client.ts';
import { afterCursorRow, assertCursorRowVisible, cursorRowId } from '../../shared/http/paging.ts';
import { notFound } from '../../shared/http/errors.ts';
import type { RequestStatus } from '../../shared/claims/status.ts';
import { claimRefPattern, type payers, type priorities } from '../../shared/claims/values.ts';
import { amountOrNull } from '../../shared/money.ts';
import type { Claim, ClaimCreated, ClaimListItem } from './schemas.ts';
import type { z } from '@hono/zod-openapi';

// Reading housing requests and rendering them. Queries run inside withTenant, so row-level security
// limits them to the caller's organisation and environment (and to requests opened over the API).

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
  adjuster_name: string | null;
  adjuster_email: string | null;
  adjuster_phone: string | null;
  bedrooms: number;
  bathrooms: string;
  sqft: number;
  adults: number;
  children: number;
  occupants: number;
  property_type: z.infer<typeof Claim>['property_type'];
  furnishing: z.infer<typeof Claim>['furnishing'];
  accessibility_needs: string[];
  amenities: string[];
  laundry_preference: z.infer<typeof Claim>['laundry_preference'];
  parking_preference: z.infer<typeof Claim>['parking_preference'];
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
 * The request a `{reference}` names: its claim_ref (any case) or its id. Anything else, and any
 * request of another organisation or environment, is 404. `lock` takes the row for an update.
 */
export async function findClaim(tx: Tx, reference: string, options: { lock?: boolean } = {}): Promise<ClaimRow> {
  const ref = reference.trim().toUpperCase();
  const where = claimRefPattern.test(ref)
    ? tx`c.claim_ref = ${ref}`
    : isUuid(reference)
      ? tx`c.id = ${reference}`
      : undefined;
  if (!where) throw notFound('housing request');
  const [row] = await tx<ClaimRow[]>`
    select ${claimColumns(tx)} from app.claims c where ${where} ${options.lock ? tx`for update` : tx``}`;
  if (!row) throw notFound('housing request');
  return row;
}

/**
 * A page of requests, newest first (created_at, then id), `limit` + 1 rows at most, after the row a
 * cursor names (shared/http/paging.ts: a cursor this tenant cannot see is refused, not answered
 * with an empty page).
 */
export async function listClaims(
  tx: Tx,
  query: { limit: number; statuses?: string[]; updatedSince?: string; cursor?: string },
): Promise<ClaimRow[]> {
  const after = cursorRowId(query.cursor);
  const rows = await tx<ClaimRow[]>`
    select ${claimColumns(tx)} from app.claims c
     where true
       ${query.statuses ? tx`and c.status_primary = any(${query.statuses}::text[])` : tx``}
       ${query.updatedSince ? tx`and c.updated_at > ${query.updatedSince}::timestamptz` : tx``}
       ${afterCursorRow(tx, 'c', 'app.claims', after)}
     order by c.created_at desc, c.id desc
     limit ${query.limit + 1}`;
  await assertCursorRowVisible(tx, 'app.claims', after, rows);
  return rows;
}


export function toCreated(row: Pick<ClaimRow, 'id' | 'claim_ref' | 'status_primary' | 'created_at'>, idempotent: boolean): z.infer<typeof ClaimCreated> {
  return { id: row.id, claim_ref: row.claim_ref, status_primary: row.status_primary, created_at: row.created_at.toISOString(), idempotent };
}

export function toListItem(row: ClaimRow): z.infer<typeof ClaimListItem> {
  return {
    id: row.id,
    claim_ref: row.claim_ref,
    status_primary: row.status_primary,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    loss_city: row.loss_city,
    loss_state: row.loss_state,
    target_move_in: row.target_move_in,
    max_budget: amountOrNull(row.max_budget_cents),
    bedrooms: row.bedrooms,
    external_reference: row.external_reference,
    api_external_id: row.external_id,
  };
}

export function toClaim(row: ClaimRow): z.infer<typeof Claim> {
  return {
    ...toListItem(row),
    loss_address: row.loss_address,
    loss_zip: row.loss_zip,
    loss_country: row.loss_country,
    loss_lat: row.loss_lat,
    loss_lng: row.loss_lng,
    policyholder_name: row.policyholder_name,
    est_length_months: row.est_length_months,
    ale_limit: amountOrNull(row.ale_limit_cents),
    currency: 'usd',
    rent_payer: row.rent_payer,
    deposit_payer: row.deposit_payer,
    fees_payer: row.fees_payer,
    search_radius_miles: row.search_radius_miles,
    priority: row.priority,
    household_email: row.household_email,
    household_phone: row.household_phone,
    adjuster_name: row.adjuster_name,
    adjuster_email: row.adjuster_email,
    adjuster_phone: row.adjuster_phone,
    bathrooms: Number(row.bathrooms),
    sqft: row.sqft,
    adults: row.adults,
    children: row.children,
    occupants: row.occupants,
    property_type: row.property_type,
    furnishing: row.furnishing,
    accessibility_needs: row.accessibility_needs,
    amenities: row.amenities,
    laundry_preference: row.laundry_preference,
    parking_preference: row.parking_preference,
    has_pets: row.has_pets,
    number_of_pets: row.number_of_pets,
    pet_details: row.pet_details,
    pet_breeds: row.pet_breeds,
    coordinator_assigned: row.coordinator !== null,
  };
}
