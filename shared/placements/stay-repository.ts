import type { Tx } from '../db/client.ts';
import { lastNight } from './stay.ts';
import type { LeaseRow } from './lease.ts';
import type { OptionRow } from './option-repository.ts';

// The SQL of a stay as it stands now: its move-out, a shortening (app.stay_changes), and the holds
// of every contract version that makes up its nights.

/**
 * A stay ending earlier, recorded as a change of the stay (app.stay_changes, append-only): the
 * placement takes the new move-out and the tail of the contract's hold is released; the signed
 * contract keeps its own dates.
 */
export async function recordShortening(
  tx: Tx,
  placement: OptionRow,
  lease: LeaseRow,
  change: { previousMoveOut: string; moveOut: string; refundDueCents: number; currency: string },
): Promise<void> {
  await tx`
    insert into app.stay_changes (org_id, environment, claim_id, claim_option_id, property_id, lease_agreement_id, previous_move_out,
                                  move_out, refund_due_cents, currency)
    values (app.current_org(), app.current_env(), ${placement.claim_id}, ${placement.id}, ${placement.property_id}, ${lease.id},
            ${change.previousMoveOut}, ${change.moveOut}, ${change.refundDueCents}, ${change.currency.toLowerCase()})`;
  await tx`update app.claim_options set move_out_date = ${change.moveOut} where id = ${placement.id}`;
  await tx`select app.shorten_holds(v.id, app.current_env(), ${lastNight(change.moveOut)}) from ${stayVersions(tx, placement)} v`;
}

/** The stay's move-out now: the lease's, or the one a shortening or an extension in effect set on the placement. */
export const stayMoveOut = (placement: Pick<OptionRow, 'move_out_date'>, lease: Pick<LeaseRow, 'move_out_date'>) =>
  placement.move_out_date ?? lease.move_out_date;

/**
 * The contract versions whose nights make up the stay now (the live lease and the addenda in
 * effect), as a subquery, so that one statement applies a hold function to all of them.
 */
const stayVersions = (tx: Tx, placement: OptionRow) => tx`
  (select id from app.lease_agreements
    where claim_option_id = ${placement.id} and (id = ${placement.current_lease_id} or (kind = 'addendum' and effective_at is not null)))`;

/** A cancelled stay: the holds of all its contract versions go. */
export async function releaseStayHolds(tx: Tx, placement: OptionRow): Promise<void> {
  await tx`select app.release_holds(v.id, app.current_env()) from ${stayVersions(tx, placement)} v`;
}

/** A closed-out stay: the holds of all its contract versions stay as the home's past. */
export async function completeStayHolds(tx: Tx, placement: OptionRow): Promise<void> {
  await tx`select app.complete_holds(v.id, app.current_env()) from ${stayVersions(tx, placement)} v`;
}
