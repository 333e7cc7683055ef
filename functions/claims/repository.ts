import type postgres from 'postgres';
import type { Tx } from '../../shared/db/client.ts';
import type { Caller } from '../../shared/db/tenant.ts';
import { afterCursorRow, assertCursorRowVisible, cursorRowId } from '../../shared/db/paging.ts';
import { limits, newClaimRef } from '../../shared/claims/values.ts';
import { claimColumns, type ClaimRow } from '../../shared/claims/repository.ts';
import { amountOrNull, toCents } from '../../shared/money.ts';
import { canonicalLanguage } from '../../shared/values.ts';
import type { Claim, ClaimCreated, ClaimListItem, CreateClaimInput } from './schemas.ts';
import type { z } from '@hono/zod-openapi';

// Housing requests in the database: listing, inserting and amending them, and rendering them. The
// row and its lookup by reference (findClaim) are shared/claims/repository.ts, which the placement
// and sourcing modules use too. Queries run inside withTenant or inOneWrite, so row-level security limits them to
// the caller's organisation and environment (and to requests opened over the API).

/**
 * A page of requests, newest first (created_at, then id), `limit` + 1 rows at most, after the row a
 * cursor names (shared/db/paging.ts: a cursor this tenant cannot see is refused, not answered
 * with an empty page).
 */
export async function listClaims(
  tx: Tx,
  query: { limit: number; statuses?: string[]; updatedSince?: string; externalId?: string; cursor?: string },
): Promise<ClaimRow[]> {
  const after = cursorRowId(query.cursor);
  const rows = await tx<ClaimRow[]>`
    select ${claimColumns(tx)} from app.claims c
     where true
       ${query.statuses ? tx`and c.status_primary = any(${query.statuses}::text[])` : tx``}
       ${query.updatedSince ? tx`and c.updated_at > ${query.updatedSince}::timestamptz` : tx``}
       ${query.externalId ? tx`and c.external_id = ${query.externalId}` : tx``}
       ${afterCursorRow(tx, 'c', 'app.claims', after)}
     order by c.created_at desc, c.id desc
     limit ${query.limit + 1}`;
  await assertCursorRowVisible(tx, 'app.claims', after, rows);
  return rows;
}


/** The requests opened under these external_ids. */
export function claimsByExternalId(tx: Tx, externalIds: string[]): Promise<ClaimRow[]> {
  return tx<ClaimRow[]>`select ${claimColumns(tx)} from app.claims c where c.external_id = any(${externalIds}::text[])`;
}

/** The centroids of the known US ZIP codes among `zips` (five digits), by ZIP. */
export async function zipCentroids(tx: Tx, zips: string[]): Promise<Map<string, { lat: number; lng: number }>> {
  if (zips.length === 0) return new Map();
  const rows = await tx<{ zip: string; latitude: number; longitude: number }[]>`
    select zip, latitude, longitude from app.zip_centroids where zip = any(${zips}::text[])`;
  return new Map(rows.map((row) => [row.zip, { lat: row.latitude, lng: row.longitude }]));
}

const centsOf = (amount: number | undefined) => (amount === undefined ? null : toCents(amount));

/** The stored row of a creation body (every column named: absent optional fields take their default). */
export function newClaimRow(caller: Caller, input: CreateClaimInput, origin: { lat: number; lng: number }) {
  const country = input.loss_country ?? 'US';
  return {
    id: crypto.randomUUID(),
    org_id: caller.orgId,
    environment: caller.environment,
    claim_ref: newClaimRef(),
    external_id: input.external_id ?? null,
    external_reference: input.external_reference ?? null,
    loss_address: input.loss_address,
    loss_city: input.loss_city,
    loss_state: country === 'US' ? input.loss_state.toUpperCase() : input.loss_state,
    loss_zip: input.loss_zip,
    loss_country: country,
    loss_lat: input.loss_lat ?? null,
    loss_lng: input.loss_lng ?? null,
    origin_lat: origin.lat,
    origin_lng: origin.lng,
    policyholder_name: input.policyholder_name ?? null,
    target_move_in: input.target_move_in,
    est_length_months: input.est_length_months,
    max_budget_cents: centsOf(input.max_budget),
    ale_limit_cents: centsOf(input.ale_limit),
    rent_payer: input.rent_payer,
    deposit_payer: input.deposit_payer,
    fees_payer: input.fees_payer ?? null,
    search_radius_miles: input.search_radius_miles ?? limits.searchRadiusMiles.default,
    priority: input.priority ?? 'standard',
    household_email: input.household_email ?? null,
    household_phone: input.household_phone ?? null,
    household_language: input.household_language === undefined ? null : canonicalLanguage(input.household_language)!,
    adjuster_name: input.adjuster_name ?? null,
    adjuster_email: input.adjuster_email ?? null,
    adjuster_phone: input.adjuster_phone ?? null,
    bedrooms: input.bedrooms,
    bathrooms: input.bathrooms,
    sqft: input.sqft,
    adults: input.adults,
    children: input.children ?? 0,
    property_type: input.property_type,
    furnishing: input.furnishing,
    accessibility_needs: input.accessibility_needs ?? [],
    amenities: input.amenities ?? [],
    laundry_preference: input.laundry_preference ?? null,
    parking_preference: input.parking_preference ?? null,
    has_pets: input.has_pets ?? false,
    number_of_pets: input.number_of_pets ?? null,
    pet_details: input.pet_details ?? null,
    pet_breeds: input.pet_breeds ?? null,
  };
}

export type NewClaimRow = ReturnType<typeof newClaimRow>;

/**
 * The SQLSTATE the database answered a statement with; undefined for an error of the driver or the
 * connection (postgres.js names those with words, CONNECTION_CLOSED and the like).
 */
const sqlState = (error: unknown) => {
  const code = (error as postgres.PostgresError)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

const isDbError = (error: unknown, code: string, constraint?: string) =>
  sqlState(error)?.startsWith(code) === true && (constraint === undefined || (error as postgres.PostgresError).constraint_name === constraint);
const refTaken = (error: unknown) => isDbError(error, '23505', 'claims_claim_ref_key');

/** A value the database refuses to store: a data exception (class 22) or an integrity rule (class 23). */
export const isRefusal = (error: unknown) => isDbError(error, '22') || isDbError(error, '23');

/** An error the database answered a statement with (any SQLSTATE), as against a connection that failed. */
export const answeredByDatabase = (error: unknown) => sqlState(error) !== undefined;

/** What creation answers and announces of a request it made or found. */
export type CreatedRow = Pick<ClaimRow, 'id' | 'claim_ref' | 'external_id' | 'status_primary' | 'created_at'>;

const createdColumns = (tx: Tx) => tx`id, claim_ref, external_id, status_primary, created_at`;

/**
 * The statement inserting the rows exactly as given, built and not yet run (for inOneWrite): an
 * external_id already used or a claim_ref drawn twice fails it, and with it the transaction.
 */
export const plainInsertClaims = (tx: Tx, rows: NewClaimRow[]) =>
  tx<CreatedRow[]>`insert into app.claims ${tx(rows)} returning ${createdColumns(tx)}`;

/**
 * Inserts the rows in one statement; an external_id already used in this organisation and
 * environment inserts nothing (ON CONFLICT on the unique index, so two creations racing on one
 * external_id make one request). A claim_ref drawn twice is drawn again. Returns the inserted rows,
 * as much of them as creation answers with (reading back the whole row cost as much as the rest of
 * the insert's handling).
 */
export async function insertClaims(tx: Tx, rows: NewClaimRow[]): Promise<CreatedRow[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await tx.savepoint((sp) => sp<CreatedRow[]>`
        insert into app.claims ${sp(rows)}
        on conflict (org_id, environment, external_id) do nothing
        returning ${createdColumns(sp)}`);
    } catch (error) {
      if (!refTaken(error) || attempt === 4) throw error;
      for (const row of rows) row.claim_ref = newClaimRef();
    }
  }
}

/** Writes an amendment's columns (names from the amendment schema's fields, never free input). */
export async function updateClaim(tx: Tx, id: string, columns: Record<string, unknown>): Promise<ClaimRow> {
  const [row] = await tx<ClaimRow[]>`
    update app.claims c set ${tx(columns as Record<string, never>)} where c.id = ${id}
    returning ${claimColumns(tx)}`;
  return row;
}

/** Keeps the record of an amendment (for the timeline): the changed fields, from/to of some. */
export async function insertAmendment(tx: Tx, claimId: string, fields: string[], changes: Record<string, unknown>): Promise<void> {
  await tx`
    insert into app.claim_amendments (org_id, environment, claim_id, fields, changes)
    values (app.current_org(), app.current_env(), ${claimId}, ${fields}::text[], ${tx.json(changes as never)})`;
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
  // Added to the list item rather than spread into a literal: V8 builds a literal that starts with a
  // spread and goes on with forty properties in its slow dictionary mode, about 60 µs a request.
  return Object.assign(toListItem(row), {
    loss_address: row.loss_address,
    loss_zip: row.loss_zip,
    loss_country: row.loss_country,
    loss_lat: row.loss_lat,
    loss_lng: row.loss_lng,
    policyholder_name: row.policyholder_name,
    est_length_months: row.est_length_months,
    ale_limit: amountOrNull(row.ale_limit_cents),
    currency: 'usd' as const,
    rent_payer: row.rent_payer,
    deposit_payer: row.deposit_payer,
    fees_payer: row.fees_payer,
    search_radius_miles: row.search_radius_miles,
    priority: row.priority,
    household_email: row.household_email,
    household_phone: row.household_phone,
    household_language: row.household_language,
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
  });
}
