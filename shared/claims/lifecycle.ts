import type { Tx } from '../db/client.ts';
import { emitMany, recordEvents } from '../events/outbox.ts';
import { statusesBefore, type RequestStatus } from './status.ts';

// The one way a request's status_primary changes. The move is guarded in SQL (the row must be in a
// status the rule allows, read under a row lock) and each move records request.status_changed in
// the same transaction.

export interface StatusChange {
  request_id: string;
  reference: string;
  external_id: string | null;
  status: RequestStatus;
  previous_status: RequestStatus | null;
}

/** Announces statuses requests entered, creations (previous null) or moves, in one statement. */
export async function announceStatus(tx: Tx, changes: readonly StatusChange[]): Promise<void> {
  await emitMany(tx, 'request.status_changed', changes.map((change) => ({ ...change })));
}

/** The statement announcing status changes, built and not yet run, for a transaction sent in one write (see recordEvents). */
export const statusAnnouncement = (tx: Tx, changes: readonly StatusChange[]) =>
  recordEvents(tx, 'request.status_changed', changes.map((change) => ({ ...change })));

/**
 * Moves the given requests (of the transaction's tenant) to `to` where the lifecycle allows it;
 * `onlyFrom` narrows the statuses moved from (matching moves only fresh requests). Returns the moves
 * made; a request in any other status is left as it is.
 */
export async function moveStatus(
  tx: Tx,
  requestIds: readonly string[],
  to: RequestStatus,
  onlyFrom?: readonly RequestStatus[],
): Promise<StatusChange[]> {
  const allowed = statusesBefore(to).filter((s) => !onlyFrom || onlyFrom.includes(s));
  if (requestIds.length === 0 || allowed.length === 0) return [];
  const moved = await tx<{ request_id: string; reference: string; external_id: string | null; previous_status: RequestStatus }[]>`
    with current as (
      select id, status_primary from app.claims
       where id = any(${requestIds as string[]}::uuid[]) and status_primary = any(${allowed}::text[])
       order by id
       for update)
    update app.claims c set status_primary = ${to}
      from current
     where c.id = current.id and c.status_primary = current.status_primary
    returning c.id as request_id, c.claim_ref as reference, c.external_id, current.status_primary as previous_status`;
  const changes = moved.map((row) => ({ ...row, status: to }));
  await announceStatus(tx, changes);
  return changes;
}
