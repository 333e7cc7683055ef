import type { Tx } from '../db/client.ts';

// The SQL of the household's answers (app.household_responses): what it said of a home, and its
// date proposals closed.

export async function recordResponse(
  tx: Tx,
  placementId: string,
  action: 'save' | 'decline' | 'apply' | 'propose_dates',
  fields: { reason?: string; move_in?: string; move_out?: string } = {},
): Promise<void> {
  await tx`
    insert into app.household_responses (org_id, environment, claim_option_id, action, reason, move_in, move_out)
    values (app.current_org(), app.current_env(), ${placementId}, ${action}, ${fields.reason ?? null}, ${fields.move_in ?? null}, ${fields.move_out ?? null})`;
}

/** Closes the open date proposals of a placement: approved, or replaced by other dates. */
export async function resolveProposals(tx: Tx, placementId: string, resolution: 'approved' | 'replaced'): Promise<void> {
  await tx`
    update app.household_responses set resolved_at = clock_timestamp(), resolution = ${resolution}
     where claim_option_id = ${placementId} and action = 'propose_dates' and resolved_at is null`;
}
