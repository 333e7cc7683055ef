import type { Tx } from '../db/client.ts';
import type { ClaimRow } from '../claims/repository.ts';
import { emit } from '../events/outbox.ts';
import { onHome } from './render.ts';
import { insertUndeliveredMessage } from './message-repository.ts';
import type { OptionRow } from './option-repository.ts';

// A message to the household that did not go out: filed on the placement (app.undelivered_messages,
// which its timeline reads as household_link.undelivered) and announced to the carrier by the event
// of the same name, in one transaction. A deployment without email says so here instead of claiming
// that the link went out (naming the settings, as the refused re-send does); a send job that spent its
// attempts says so in a fixed phrase: the transport's words (a relay's host and port, a server's
// replies) stay with staff, in the job's last error (the console's `outbox list` and `job list`).

/** What the carrier is told of a send that failed for good. */
export const sendFailed = "the email provider refused the message or could not be reached; the service's staff have the details";

export type Undelivered =
  | { reason: 'not_configured'; /** The missing settings, in words. */ error: string; attempts: 0 }
  | { reason: 'failed'; attempts: number };

export async function recordUndeliveredLink(tx: Tx, claim: ClaimRow, placement: OptionRow, what: Undelivered): Promise<void> {
  const issuedAt = placement.household_link_at;
  const error = what.reason === 'failed' ? sendFailed : what.error;
  await insertUndeliveredMessage(tx, placement, { topic: 'home.offered', reason: what.reason, error, attempts: what.attempts });
  await emit(tx, 'household_link.undelivered', {
    ...onHome(claim, placement),
    reason: what.reason,
    error,
    attempts: what.attempts,
    link_issued_at: issuedAt?.toISOString() ?? null,
  });
}
