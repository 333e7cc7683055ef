import type { Tx } from '../db/client.ts';
import type { OptionRow } from './option-repository.ts';

// The SQL of a placement's messages: where they go (the carrier's team address), and those to the
// household that did not go out (app.undelivered_messages, append-only).

/** Files a message to the household that did not go out on its placement (append-only: the timeline reads it). */
export async function insertUndeliveredMessage(
  tx: Tx,
  placement: OptionRow,
  message: { topic: string; reason: 'not_configured' | 'failed'; error: string; attempts: number },
): Promise<void> {
  await tx`
    insert into app.undelivered_messages (org_id, environment, claim_id, property_id, claim_option_id, topic, reason, error, attempts, link_issued_at)
    values (app.current_org(), app.current_env(), ${placement.claim_id}, ${placement.property_id}, ${placement.id}, ${message.topic},
            ${message.reason}, ${message.error}, ${message.attempts}, ${placement.household_link_at})`;
}

/** The addresses a placement's messages go to. */
export async function contactAddresses(tx: Tx): Promise<{ team: string | null }> {
  const [row] = await tx<{ team: string | null }[]>`select contact_email as team from app.organisations`;
  return row ?? { team: null };
}
