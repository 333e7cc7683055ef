import type { Tx } from '../db/client.ts';
import type { Tenant } from '../db/tenant.ts';
import { isUuid } from '../ids.ts';
import type { ApplicationStatus, LeaseStatus, OptionEvent, OptionStatus } from './states.ts';
import { optionGuard } from './states.ts';

// The SQL of options, homes on a request (app.claim_options): putting one on a request, moving its state,
// reading it and its siblings. Runs inside withTenant: row-level security keeps it to the caller's
// organisation and environment.

export interface OptionRow {
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

/** The option of a home on a request (cancelled ones included), optionally locked. */
export async function findOption(tx: Tx, claimId: string, propertyId: string, options: { lock?: boolean } = {}): Promise<OptionRow | null> {
  if (!isUuid(propertyId)) return null;
  const [row] = await tx<OptionRow[]>`
    select * from app.claim_options where claim_id = ${claimId} and property_id = ${propertyId}
    ${options.lock ? tx`for update` : tx``}`;
  return row ?? null;
}

/** Puts a home on the request as an option, with the state given. */
export async function insertOption(tx: Tx, tenant: Tenant, claimId: string, propertyId: string, columns: Record<string, unknown>): Promise<OptionRow> {
  const values = { org_id: tenant.orgId, environment: tenant.environment, claim_id: claimId, property_id: propertyId, ...columns };
  const [row] = await tx<OptionRow[]>`
    insert into app.claim_options ${tx(values as never)}
    returning *`;
  return row;
}

/** Moves the option by `event`, guarded by the states it leaves; null when the row is no longer in one of them. */
export async function moveOption(tx: Tx, optionId: string, event: OptionEvent, columns: Record<string, unknown>): Promise<OptionRow | null> {
  const guard = optionGuard(event);
  const [row] = await tx<OptionRow[]>`
    update app.claim_options set ${tx(columns as never)}
     where id = ${optionId}
       and (option_status, application_status) in (select * from unnest(${guard.options}::text[], ${guard.applications}::text[]))
    returning *`;
  return row ?? null;
}

/** A cancelled home put on the request again starts over (part 2 cancels). */
export async function reopenOption(tx: Tx, optionId: string, columns: Record<string, unknown>): Promise<OptionRow | null> {
  const [row] = await tx<OptionRow[]>`
    update app.claim_options set ${tx({ ...columns, cancelled_at: null } as never)}
     where id = ${optionId} and option_status = 'cancelled'
    returning *`;
  return row ?? null;
}

/** Takes the home off the request (cancel-booking); an option already cancelled stays as it was. */
export async function cancelOption(tx: Tx, optionId: string, reason: string | null): Promise<void> {
  await tx`
    update app.claim_options set option_status = 'cancelled', cancelled_at = clock_timestamp(), cancel_reason = ${reason}
     where id = ${optionId} and option_status <> 'cancelled'`;
}

/** Updates an option's own columns (signer, proposal), no state move. */
export async function updateOption(tx: Tx, optionId: string, columns: Record<string, unknown>): Promise<OptionRow> {
  const [row] = await tx<OptionRow[]>`update app.claim_options set ${tx(columns as never)} where id = ${optionId} returning *`;
  return row;
}

/** Whether any other home on the request is still in play (not declined or cancelled). */
export async function otherOptionsInPlay(tx: Tx, claimId: string, optionId: string): Promise<boolean> {
  const [row] = await tx<{ any: boolean }[]>`
    select exists (select 1 from app.claim_options where claim_id = ${claimId} and id <> ${optionId}
                    and option_status not in ('declined', 'cancelled') and application_status <> 'declined') as any`;
  return row.any;
}

export interface OptionUnderContract {
  property_id: string;
  status: LeaseStatus;
  move_in_date: string | null;
}

/** Homes on the request with a live contract version (not superseded or withdrawn), not cancelled. */
export function optionsUnderContract(tx: Tx, claimId: string): Promise<OptionUnderContract[]> {
  return tx<OptionUnderContract[]>`
    select h.property_id, l.status, l.move_in_date
      from app.claim_options h join app.lease_agreements l on l.id = h.current_lease_id
     where h.claim_id = ${claimId} and h.option_status <> 'cancelled' and l.status not in ('superseded', 'withdrawn')
     order by h.added_at, h.id`;
}

/** Where an option is (its request and home), by its id; null when the tenant has no such option. */
export async function optionKeys(tx: Tx, optionId: string): Promise<{ claim_id: string; property_id: string } | null> {
  const [row] = await tx<{ claim_id: string; property_id: string }[]>`
    select claim_id, property_id from app.claim_options where id = ${optionId}`;
  return row ?? null;
}

/** The option and lease state of the request's other options still in play. */
export async function otherOptionsState(tx: Tx, claimId: string, optionId: string): Promise<OptionStanding[]> {
  return tx<OptionStanding[]>`
    select h.option_status, h.application_status, h.lease_status, h.proposed_at,
           exists (select 1 from app.bookings b where b.claim_option_id = h.id and b.booking_status in ('confirmed', 'completed')) as booked
      from app.claim_options h
     where h.claim_id = ${claimId} and h.id <> ${optionId} and h.option_status not in ('declined', 'cancelled') and h.application_status <> 'declined'`;
}

/** Where a home on a request stands, for the status the request's homes support. */
export interface OptionStanding {
  option_status: string;
  application_status: string;
  lease_status: string | null;
  proposed_at: Date | null;
  /** Whether a confirmed booking stands on it (paid and booked). */
  booked: boolean;
}
