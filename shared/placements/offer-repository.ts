import type { Tx } from '../db/client.ts';
import type { Tenant } from '../db/tenant.ts';
import { isUuid } from '../ids.ts';
import type { ApplicationStatus, LeaseStatus, OfferEvent, OptionStatus } from './states.ts';
import { offerGuard } from './states.ts';

// The SQL of homes on a request (app.claim_homes): putting a home on a request, moving its offer,
// reading it and its siblings. Runs inside withTenant: row-level security keeps it to the caller's
// organisation and environment.

export interface PlacementRow {
  id: string;
  claim_id: string;
  property_id: string;
  option_status: OptionStatus;
  application_status: ApplicationStatus;
  lease_status: LeaseStatus | null;
  placed_without_recipient: boolean;
  offered_at: Date | null;
  adjuster_placed_at: Date | null;
  committed_at: Date | null;
  recipient_response: 'saved' | 'rejected' | null;
  decline_reason: string | null;
  applied_at: Date | null;
  application_declined_at: Date | null;
  application_decline_reason: string | null;
  household_link_at: Date | null;
  application_approved_at: Date | null;
  proposed_move_in: string | null;
  proposed_move_out: string | null;
  proposed_at: Date | null;
  signer_name: string | null;
  signer_email: string | null;
  current_lease_id: string | null;
  move_in_date: string | null;
  move_out_date: string | null;
  added_at: Date;
  cancelled_at: Date | null;
}

/** The placement of a home on a request (cancelled ones included), optionally locked. */
export async function findPlacement(tx: Tx, claimId: string, propertyId: string, options: { lock?: boolean } = {}): Promise<PlacementRow | null> {
  if (!isUuid(propertyId)) return null;
  const [row] = await tx<PlacementRow[]>`
    select * from app.claim_homes where claim_id = ${claimId} and property_id = ${propertyId}
    ${options.lock ? tx`for update` : tx``}`;
  return row ?? null;
}

/** Puts a home on the request with the offer state given. */
export async function insertPlacement(tx: Tx, tenant: Tenant, claimId: string, propertyId: string, columns: Record<string, unknown>): Promise<PlacementRow> {
  const values = { org_id: tenant.orgId, environment: tenant.environment, claim_id: claimId, property_id: propertyId, ...columns };
  const [row] = await tx<PlacementRow[]>`
    insert into app.claim_homes ${tx(values as never)}
    returning *`;
  return row;
}

/** Moves the offer by `event`, guarded by the states it leaves; null when the row is no longer in one of them. */
export async function moveOffer(tx: Tx, placementId: string, event: OfferEvent, columns: Record<string, unknown>): Promise<PlacementRow | null> {
  const guard = offerGuard(event);
  const [row] = await tx<PlacementRow[]>`
    update app.claim_homes set ${tx(columns as never)}
     where id = ${placementId}
       and (option_status, application_status) in (select * from unnest(${guard.options}::text[], ${guard.applications}::text[]))
    returning *`;
  return row ?? null;
}

/** A cancelled home put on the request again starts over (part 2 cancels). */
export async function reopenPlacement(tx: Tx, placementId: string, columns: Record<string, unknown>): Promise<PlacementRow | null> {
  const [row] = await tx<PlacementRow[]>`
    update app.claim_homes set ${tx({ ...columns, cancelled_at: null } as never)}
     where id = ${placementId} and option_status = 'cancelled'
    returning *`;
  return row ?? null;
}

/** Takes the home off the request (cancel-booking); a placement already cancelled stays as it was. */
export async function cancelPlacement(tx: Tx, placementId: string, reason: string | null): Promise<void> {
  await tx`
    update app.claim_homes set option_status = 'cancelled', cancelled_at = clock_timestamp(), cancel_reason = ${reason}
     where id = ${placementId} and option_status <> 'cancelled'`;
}

/** Updates a placement's own columns (signer, proposal), no state move. */
export async function updatePlacement(tx: Tx, placementId: string, columns: Record<string, unknown>): Promise<PlacementRow> {
  const [row] = await tx<PlacementRow[]>`update app.claim_homes set ${tx(columns as never)} where id = ${placementId} returning *`;
  return row;
}

/** Whether any other home on the request is still in play (not declined or cancelled). */
export async function otherHomesInPlay(tx: Tx, claimId: string, placementId: string): Promise<boolean> {
  const [row] = await tx<{ any: boolean }[]>`
    select exists (select 1 from app.claim_homes where claim_id = ${claimId} and id <> ${placementId}
                    and option_status not in ('declined', 'cancelled') and application_status <> 'declined') as any`;
  return row.any;
}

export interface HomeUnderContract {
  property_id: string;
  status: LeaseStatus;
  move_in_date: string | null;
}

/** Homes on the request with a live contract version (not superseded or withdrawn), not cancelled. */
export function homesUnderContract(tx: Tx, claimId: string): Promise<HomeUnderContract[]> {
  return tx<HomeUnderContract[]>`
    select h.property_id, l.status, l.move_in_date
      from app.claim_homes h join app.lease_agreements l on l.id = h.current_lease_id
     where h.claim_id = ${claimId} and h.option_status <> 'cancelled' and l.status not in ('superseded', 'withdrawn')
     order by h.added_at, h.id`;
}

/** Where a placement is (its request and home), by its id; null when the tenant has no such placement. */
export async function placementKeys(tx: Tx, placementId: string): Promise<{ claim_id: string; property_id: string } | null> {
  const [row] = await tx<{ claim_id: string; property_id: string }[]>`
    select claim_id, property_id from app.claim_homes where id = ${placementId}`;
  return row ?? null;
}

/** The offer and lease state of the request's other homes still in play. */
export async function otherHomesState(tx: Tx, claimId: string, placementId: string): Promise<HomeState[]> {
  return tx<HomeState[]>`
    select h.option_status, h.application_status, h.lease_status, h.proposed_at,
           exists (select 1 from app.bookings b where b.claim_home_id = h.id and b.booking_status in ('confirmed', 'completed')) as booked
      from app.claim_homes h
     where h.claim_id = ${claimId} and h.id <> ${placementId} and h.option_status not in ('declined', 'cancelled') and h.application_status <> 'declined'`;
}

/** Where a home on a request stands, for the status the request's homes support. */
export interface HomeState {
  option_status: string;
  application_status: string;
  lease_status: string | null;
  proposed_at: Date | null;
  /** Whether a confirmed booking stands on it (paid and booked). */
  booked: boolean;
}
