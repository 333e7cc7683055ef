import type { Tx } from '../db/client.ts';
import type { ClaimRow } from '../claims/repository.ts';
import { emit } from '../events/outbox.ts';
import { onHome } from './render.ts';
import type { PlacementRow } from './repository.ts';

// A message to the household that did not go out: filed on the placement (app.undelivered_messages,
// which its timeline reads as household_link.undelivered) and announced to the carrier by the event
// of the same name, in one transaction. A deployment without email says so here instead of claiming
// that the link went out; a send job that spent its attempts says so with its last error.

export interface Undelivered {
  reason: 'not_configured' | 'failed';
  error: string;
  attempts: number;
}

export async function recordUndeliveredLink(tx: Tx, claim: ClaimRow, placement: PlacementRow, what: Undelivered): Promise<void> {
  const issuedAt = placement.household_link_at;
  await tx`
    insert into app.undelivered_messages (org_id, environment, claim_id, property_id, claim_home_id, topic, reason, error, attempts, link_issued_at)
    values (app.current_org(), app.current_env(), ${claim.id}, ${placement.property_id}, ${placement.id}, 'home.offered',
            ${what.reason}, ${what.error.slice(0, 2000)}, ${what.attempts}, ${issuedAt})`;
  await emit(tx, 'household_link.undelivered', {
    ...onHome(claim, placement),
    reason: what.reason,
    error: what.error.slice(0, 2000),
    attempts: what.attempts,
    link_issued_at: issuedAt?.toISOString() ?? null,
  });
}
