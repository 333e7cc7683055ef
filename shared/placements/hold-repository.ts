import type { Tx } from '../db/client.ts';

// The SQL of a home's calendar holds (app.take_hold and its siblings): taking, releasing, and the
// nights that conflict.

export async function releaseHolds(tx: Tx, leaseId: string): Promise<void> {
  await tx`select app.release_holds(${leaseId}, app.current_env())`;
}

/** Takes the calendar hold of a lease; null when something holds part of the range. */
export async function takeHold(tx: Tx, propertyId: string, start: string, end: string, leaseId: string, reason: string): Promise<string | null> {
  try {
    const [row] = await tx.savepoint((sp) => sp<{ id: string | null }[]>`
      select app.take_hold(${propertyId}, app.current_env(), ${start}, ${end}, ${leaseId}, ${reason}) as id`);
    return row.id;
  } catch (error) {
    // The exclusion constraint: another hold committed in between (range_is_free's lock makes this rare).
    if ((error as { code?: string }).code === '23P01') return null;
    throw error;
  }
}

export interface Conflict {
  start_date: string;
  end_date: string;
  reason: string;
}

export async function rangeConflicts(tx: Tx, propertyId: string, start: string, end: string) {
  return tx<Conflict[]>`
    select start_date, end_date, reason from app.range_conflicts(${propertyId}, app.current_env(), ${start}, ${end})`;
}

/** The holds other requests' stays have on the home over the nights [first, last] (the provider's blocks left out). */
export async function otherStaysConflicts(tx: Tx, propertyId: string, claimId: string, first: string, last: string) {
  return tx<Conflict[]>`
    select start_date, end_date, reason from app.stay_conflicts(${propertyId}, app.current_env(), ${claimId}, ${first}, ${last})`;
}
