import { envelopeOf, type DeliverySource } from './envelope.ts';
import type { Signer } from './signature.ts';

// A delivery as it goes on the wire: its body (the envelope) and the headers that sign and name it.
// One function for the dispatcher and the console's `listen`, so an event forwarded to a laptop is
// byte for byte what an endpoint receives, and a receiver that verifies one verifies the other.

const userAgent = 'HousingPlacementService-Webhooks/1';

export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

/** The body and headers of `delivery`, signed with `secret` at `atMs` (default now). */
export async function signedDelivery(signer: Signer, secret: string, delivery: DeliverySource, atMs = Date.now()): Promise<SignedDelivery> {
  const body = JSON.stringify(envelopeOf(delivery));
  const signature = await signer.header(secret, body, Math.floor(atMs / 1000));
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': userAgent,
      'X-Service-Signature': signature,
      'X-Service-Event': delivery.event,
      'X-Service-Delivery': delivery.id,
    },
  };
}
