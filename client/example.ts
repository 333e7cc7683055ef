// A carrier's first calls with the typed client, quoted verbatim (below the import) in the guide
// docs/client.md: open a housing request, read it back, and take webhook deliveries. The
// project type-checks this file, so an API change that breaks it fails the build, and
// tests/client/client.test.ts runs it against the API.
import { parseWebhook, type HousingPlacementClient, type Schema } from './index.ts';

/**
 * Opens a housing request for a claim (safe to retry: the same claim number gives the same request)
 * and reads it back. `moveIn` is YYYY-MM-DD, today or later.
 */
export async function openHousingRequest(api: HousingPlacementClient, claimNumber: string, moveIn: string): Promise<Schema<'HousingRequest'>> {
  const created = await api.POST('/claims', {
    params: { header: { 'Idempotency-Key': `open-${claimNumber}` } },
    body: {
      external_id: claimNumber,
      loss_address: '12 Harbor Lane',
      loss_city: 'Austin',
      loss_state: 'TX',
      loss_zip: '78701',
      target_move_in: moveIn,
      est_length_months: 4,
      bedrooms: 2,
      bathrooms: 1.5,
      sqft: 900,
      adults: 2,
      property_type: 'apartment',
      furnishing: 'furnished',
      rent_payer: 'carrier',
      deposit_payer: 'tpa',
    },
  });
  if (created.error) throw new Error(`${created.response.status} ${created.error.error.code}: ${created.error.error.message}`);

  const read = await api.GET('/claims/{reference}', { params: { path: { reference: created.data.data.claim_ref } } });
  if (read.error) throw new Error(`${read.response.status} ${read.error.error.code}: ${read.error.error.message}`);
  return read.data.data;
}

/**
 * A webhook receiver (any runtime with web Requests: Deno, Bun, Workers, Node frameworks): verify
 * the signature on the raw body, then act on the typed event. Deliveries may repeat: the handler
 * should be safe to run twice for one event id.
 */
export async function receiveDelivery(
  request: Request,
  secret: string,
  onStatusChange: (reference: string, status: Schema<'HousingRequest'>['status_primary'], eventId: string) => Promise<void>,
): Promise<Response> {
  // A carrier's endpoint: typed as the carrier's deliveries, so each event narrows to its payload.
  const delivery = await parseWebhook(await request.text(), request.headers.get('x-service-signature'), secret, { audience: 'carrier' });
  if (!delivery) return new Response('invalid signature', { status: 400 });
  if (delivery.event === 'request.status_changed') {
    await onStatusChange(delivery.data.reference, delivery.data.status, delivery.id);
  }
  return new Response('ok');
}
