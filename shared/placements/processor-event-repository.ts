import type { Tx } from '../db/client.ts';

// The SQL of the payment processor's notifications: each event claimed once for the tenant.

/**
 * Claims a processor event for the tenant in its transaction: false when it was claimed before (a
 * repeated delivery), so each event is acted on once.
 */
export async function claimProcessorEvent(
  tx: Tx,
  event: { eventId: string; kind: string; connectedAccount: string | null },
  outcome: string,
): Promise<boolean> {
  const [row] = await tx<{ claimed: boolean }[]>`
    select app.claim_processor_event(${event.eventId}, ${event.kind}, ${event.connectedAccount}, ${outcome}) as claimed`;
  return row.claimed;
}
