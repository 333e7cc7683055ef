// The typed client (client/) against the real API: the calls a new integrator makes, through the
// local server's own handler in-process (the client's fetch option), on the real database. What
// the generated types refuse to compile, the API refuses too; a real webhook delivery verifies and
// parses with the client's helper.
import { describe, expect, it } from 'vitest';
import { createClient, parseWebhook, verifyWebhookSignature, type HousingPlacementClient, type Schema } from '../../client/index.ts';
import { openHousingRequest, receiveDelivery } from '../../client/example.ts';
import { serverFetch } from '../../scripts/lib/router.ts';
import { verifyWebhookSignature as guideHelper } from '../../shared/webhooks/verify-signature.ts';
import { housingRequestBody } from '../claims/fixtures.ts';
import { createTenant } from '../helpers.ts';
import { dispatchFor, useReceiver } from '../webhooks/support.ts';

const address = `10.12.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/** The client as an integrator makes it, its requests served in-process by the local server's handler. */
const clientFor = (apiKey: string): HousingPlacementClient =>
  createClient({ baseUrl: 'http://localhost/functions/v1', apiKey, fetch: (request) => serverFetch(request, address) });

/** The UTC date `days` from today, YYYY-MM-DD. */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const claimNumber = () => `CLM-${crypto.randomUUID().slice(0, 8)}`;

const receiver = useReceiver();

describe('carrier calls', () => {
  it('opens a housing request and reads it back, typed from the document', async () => {
    const api = clientFor((await createTenant('carrier')).live);
    const number = claimNumber();
    const request = await openHousingRequest(api, number, inDays(30));

    expect(request.claim_ref).toMatch(/^REQ-[0-9A-Z]{6}$/);
    expect(request).toMatchObject({ api_external_id: number, loss_city: 'Austin', loss_zip: '78701', bedrooms: 2, bathrooms: 1.5, furnishing: 'furnished' });
    expect(request.target_move_in).toBe(inDays(30));
    const sameClaim = await openHousingRequest(api, number, inDays(30));
    expect(sameClaim.id).toBe(request.id);
  });

  it('answers errors as typed error bodies, with the status on the response', async () => {
    const api = clientFor((await createTenant('carrier')).live);
    const missing = await api.GET('/claims/{reference}', { params: { path: { reference: 'REQ-000000' } } });
    expect(missing.data).toBeUndefined();
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('not_found');

    const unknownKey = await clientFor('svc_pk_00000000000000000000000000000000').GET('/claims');
    expect(unknownKey.response.status).toBe(401);
    expect(unknownKey.error?.error.code).toBe('invalid_key');
  });

  it('sends the Idempotency-Key given in params: a repeated write is answered from the first', async () => {
    const api = clientFor((await createTenant('carrier')).live);
    const body = housingRequest();
    const first = await api.POST('/claims', { params: { header: { 'Idempotency-Key': body.external_id! } }, body });
    const again = await api.POST('/claims', { params: { header: { 'Idempotency-Key': body.external_id! } }, body });
    expect(first.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data?.data.id).toBe(first.data?.data.id);
  });

  it('refuses at compile time what the API refuses at run time', async () => {
    const api = clientFor((await createTenant('carrier')).live);
    const { loss_zip: _, ...withoutZip } = housingRequest();
    // @ts-expect-error loss_zip is required
    const missingZip = await api.POST('/claims', { body: withoutZip });
    expect(missingZip.error?.error).toMatchObject({ code: 'invalid_field', field: 'loss_zip' });

    // @ts-expect-error furnishing is one of the listed values
    const badFurnishing = await api.POST('/claims', { body: { ...housingRequest(), furnishing: 'semi' } });
    expect(badFurnishing.error?.error).toMatchObject({ code: 'invalid_field', field: 'furnishing' });

    // @ts-expect-error the document has no such path
    const noSuchPath = await api.GET('/claim');
    expect(noSuchPath.response.status).toBe(404);
  });
});

describe('provider calls', () => {
  it('publishes a home and reads it back, amounts in major units', async () => {
    const api = clientFor((await createTenant('provider')).live);
    const created = await api.POST('/properties', {
      body: {
        external_id: 'UNIT-7',
        name: 'Maple Court 7',
        address: '107 Maple St',
        city: 'Austin',
        state: 'TX',
        zip_code: '78701',
        latitude: 30.27,
        longitude: -97.74,
        monthly_rate: 2450.75,
        bedrooms: 2,
        bathrooms: 1.5,
        sqft: 950,
        furnished_status: 'furnished',
        available_from: inDays(10),
        security_deposit: 1500,
        image_url: ['https://img.example.com/a.jpg'],
        description: 'Two-bedroom flat near transit.',
        amenities: ['wifi'],
        pet_policy: 'No pets',
      },
    });
    expect(created.response.status).toBe(201);
    const home = created.data!.data;

    const read = await api.GET('/properties/{ref}', { params: { path: { ref: 'UNIT-7' } } });
    const readBack: Schema<'Home'> = read.data!.data;
    expect(readBack).toMatchObject({ id: home.id, api_external_id: 'UNIT-7', monthly_rate: 2450.75, security_deposit: 1500, currency: 'usd', listed: home.listed });
    expect(readBack.image_urls).toEqual(['https://img.example.com/a.jpg']);

    const page = await api.GET('/properties', { params: { query: { limit: 1 } } });
    expect(page.data?.data.map((listed) => listed.id)).toEqual([home.id]);
  });
});

describe('webhook deliveries', () => {
  it('verifies and parses a real delivery with the re-exported helper, and refuses a tampered one', async () => {
    expect(verifyWebhookSignature).toBe(guideHelper);
    const tenant = await createTenant('carrier');
    const api = clientFor(tenant.sandbox);
    const endpoint = await api.POST('/webhooks', { body: { url: receiver.url('/housing'), events: ['request.status_changed'] } });
    // Shown once, to the creating call (null only in a replay of it): the integrator stores it now.
    const secret = endpoint.data!.data.secret;
    if (!secret) throw new Error('the creation shows the signing secret');
    expect(secret).toMatch(/^whsec_/);

    const request = await openHousingRequest(api, claimNumber(), inDays(14));
    // The creation's status change; sourcing in the background may already have announced the next.
    expect((await dispatchFor([tenant.orgId])).succeeded).toBeGreaterThanOrEqual(1);
    const received = receiver.at('/housing').find((delivery) => delivery.json.data.previous_status === null)!;
    const signature = String(received.headers['x-service-signature']);
    /** The delivery as a receiver's framework hands it over, with this body. */
    const delivered = (body: BodyInit) => new Request('https://receiver.example/housing', { method: 'POST', headers: { 'x-service-signature': signature }, body });

    const statuses: [string, string, string][] = [];
    const onStatusChange = async (reference: string, status: string, eventId: string) => void statuses.push([reference, status, eventId]);
    const accepted = await receiveDelivery(delivered(new Uint8Array(received.raw)), secret, onStatusChange);
    expect(accepted.status).toBe(200);
    const logged = await api.GET('/events/{id}', { params: { path: { id: received.json.id } } });
    expect(logged.data?.data).toMatchObject({ id: received.json.id, event: 'request.status_changed', data: { reference: request.claim_ref } });
    expect(statuses).toEqual([[request.claim_ref, logged.data?.data.data.status, logged.data?.data.id]]);

    const envelope = await parseWebhook(received.raw, signature, ['whsec_rotated-away', secret]);
    expect(envelope?.event).toBe('request.status_changed');
    if (envelope?.event !== 'request.status_changed') throw new Error('not a status change');
    expect(envelope.data).toMatchObject({ reference: request.claim_ref, request_id: request.id, previous_status: null });

    const tampered = delivered(received.body.replace(request.claim_ref, 'REQ-ZZZZZZ'));
    expect((await receiveDelivery(tampered, secret, onStatusChange)).status).toBe(400);
    expect(await parseWebhook(received.raw, signature, 'whsec_not-the-secret')).toBeNull();
    expect(statuses).toHaveLength(1);
  });
});

/** A complete creation body, typed by the document, under a fresh claim number. */
function housingRequest(): Schema<'CreateHousingRequest'> {
  return { ...housingRequestBody(), external_id: claimNumber() };
}
