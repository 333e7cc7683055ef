import type { Tx } from '../db/client.ts';
import { withTenant, type Tenant } from '../db/tenant.ts';
import { conflict, missing } from '../domain-errors.ts';
import { findClaim, type ClaimRow } from '../claims/repository.ts';
import { lockLease, type LeaseRow } from './lease.ts';
import { optionKeys } from './option-repository.ts';
import { findOption, type OptionRow } from './option-repository.ts';

// The placement's unit of work: one tenant transaction that finds and locks what a command acts on,
// always in the same order, and hands the command typed rows. Every placement command, job, callback
// and page runs through it; none locks by hand.
//
// The lock order (every path that writes takes its locks in this order, so two of them can wait
// for each other but never deadlock):
//
//   1. the housing request   (app.claims, FOR UPDATE)      status moves lock requests too, in id order
//   2. the placement         (app.claim_options, FOR UPDATE) the home on the request
//   3. the home's calendar   (app.properties, FOR UPDATE)  before a contract version is written, by
//                                                          a command that takes nights (lockCalendar)
//   4. the lease             (app.lease_agreements)        its current version, or the one named
//   5. payments and refunds  (app.payments read for update by the command; a refund request's
//                            steps are appended to app.refund_request_changes, one at a time per
//                            request, under locks 1 and 2)
//
// Lock 3 comes before the version is written because writing a row that names the home takes a
// key-share lock on it, which the calendar lock waits for: two requests holding nights of one home
// would otherwise each hold that share and wait for the other.
//
// A command that needs only the request (the budget, putting a home on it) takes lock 1; a read
// takes none.

export interface RequestUnit {
  tx: Tx;
  claim: ClaimRow;
}

export interface PlacementUnit extends RequestUnit {
  placement: OptionRow;
}

/** How the API's routes name a placement: the request (claim_ref or id) and the home. Links, callbacks and jobs name it by its id (inPlacementById). */
export interface PlacementTarget {
  reference: string;
  propertyId: string;
}

export interface PlacementOptions {
  /** Take the locks (default). A read passes false. */
  lock?: boolean;
  /**
   * A cancelled placement: refused like one never put on the request (default), or handed over
   * (refunds concern a placement cancelled after payment).
   */
  cancelled?: 'refuse' | 'include';
  /**
   * What a home not on the request is to the command: a conflict with the request as it stands
   * (default, as POST dates: 409 at the edge) or a thing not found (cancel-booking: 404).
   */
  notOnRequest?: 'conflict' | 'not_found';
}

/** Runs `work` with the request `reference` names, locked unless `lock` is false. */
export function inRequest<T>(tenant: Tenant, reference: string, work: (unit: RequestUnit) => Promise<T>, options: { lock?: boolean } = {}): Promise<T> {
  return withTenant(tenant, async (tx) => work({ tx, claim: await findClaim(tx, reference, { lock: options.lock ?? true }) }));
}

/**
 * Runs `work` with the request and the placement, locked in that order. A home not on the request
 * is a conflict, not_on_request (or not found, as asked).
 */
export function inPlacement<T>(tenant: Tenant, target: PlacementTarget, work: (unit: PlacementUnit) => Promise<T>, options: PlacementOptions = {}): Promise<T> {
  return withTenant(tenant, async (tx) => work(await lockPlacement(tx, target, options)));
}

/**
 * inPlacement for a placement named by its id that may no longer be there (a pay link, a processor's
 * metadata, a scheduled job): null when it is not, cancelled ones included unless refused.
 */
export function inPlacementById<T>(
  tenant: Tenant,
  placementId: string,
  work: (unit: PlacementUnit) => Promise<T>,
  options: PlacementOptions = {},
): Promise<T | null> {
  return withTenant(tenant, async (tx) => {
    const keys = await optionKeys(tx, placementId);
    if (!keys) return null;
    return work(await lockPlacement(tx, { reference: keys.claim_id, propertyId: keys.property_id }, { cancelled: 'include', ...options }));
  });
}

/** Lock 2 for a home that may not be on the request yet (POST options puts it there): its placement, or null. */
export function lockHomeOnRequest(unit: RequestUnit, propertyId: string): Promise<OptionRow | null> {
  return findOption(unit.tx, unit.claim.id, propertyId, { lock: true });
}

/** The locks of inPlacement and inPlacementById, in the tenant's transaction. */
async function lockPlacement(tx: Tx, target: PlacementTarget, options: PlacementOptions): Promise<PlacementUnit> {
  const lock = options.lock ?? true;
  const claim = await findClaim(tx, target.reference, { lock });
  const placement = await findOption(tx, claim.id, target.propertyId, { lock });
  if (!placement || (placement.option_status === 'cancelled' && options.cancelled !== 'include')) {
    throw (options.notOnRequest === 'not_found' ? missing : conflict)('not_on_request', 'This home is not on the request: put it there with POST /claims/{reference}/options first.', 'property_id');
  }
  return { tx, claim, placement };
}

/** Lock 3: the placement's home's calendar, until the transaction ends (nights are taken under it). */
export async function lockCalendar(unit: PlacementUnit): Promise<void> {
  await unit.tx`select app.lock_calendar(${unit.placement.property_id})`;
}

/** Lock 4: a lease of the placement, named by its id (a processor's or a provider's callback names the version it concerns). */
export async function lockLeaseOf(unit: PlacementUnit, leaseId: string): Promise<LeaseRow | null> {
  const lease = await lockLease(unit.tx, leaseId);
  return lease && lease.claim_option_id === unit.placement.id ? lease : null;
}
