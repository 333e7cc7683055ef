import { pingEvent } from '../events/registry.ts';

// The body of a delivery (specification, "Events"): the event as the log holds it, flagged
// `simulated` for simulated events and `replay` for replayed deliveries. Built from the stored
// event at each attempt, so every attempt of a delivery carries the same bytes.

/** What the dispatcher knows of a claimed delivery, enough to build its body. */
export interface DeliverySource {
  id: string;
  event: string;
  event_id: string | null;
  replay: boolean;
  created_at: Date;
  payload: Record<string, unknown> | null;
  event_created_at: Date | null;
  simulated: boolean | null;
}

const pingMessage = 'Test delivery from the Housing Placement Service. Answer with any 2xx status to acknowledge it.';

export function envelopeOf(delivery: DeliverySource): Record<string, unknown> {
  if (delivery.event === pingEvent) {
    // A ping is not an event of the log: its id is the delivery's own.
    return { id: delivery.id, event: pingEvent, created_at: delivery.created_at.toISOString(), data: { message: pingMessage, test: true } };
  }
  return {
    id: delivery.event_id,
    event: delivery.event,
    created_at: delivery.event_created_at!.toISOString(),
    data: delivery.payload,
    ...(delivery.simulated ? { simulated: true } : {}),
    ...(delivery.replay ? { replay: true } : {}),
  };
}
