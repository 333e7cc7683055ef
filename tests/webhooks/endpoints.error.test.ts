import { beforeAll, describe, expect, it } from 'vitest';
import { call, client, createTenant } from '../helpers.ts';
import { expectError } from './support.ts';

let api: ReturnType<typeof client>;
let key: string;
let endpointId: string;
const url = 'https://hooks.customer.example/housing';
const unknownId = '0d5a1c9e-7b3f-4e21-8a6d-2c4b9e7f1a30';

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
  const tenant = await createTenant('carrier');
  key = tenant.sandbox;
  api = client(key);
  endpointId = (await api.post('/webhooks', { url })).body.data.id;
});

describe('POST /webhooks', () => {
  it.each([
    ['a missing url', {}, 'url'],
    ['a url that is not https', { url: 'http://hooks.customer.example/x' }, 'url'],
    ['a url with credentials', { url: 'https://user:secret@hooks.customer.example/x' }, 'url'],
    ['a loopback address', { url: 'https://127.0.0.1:8443/x' }, 'url'],
    ['a private address', { url: 'https://10.0.0.8/x' }, 'url'],
    ['the metadata address', { url: 'https://169.254.169.254/latest' }, 'url'],
    ['localhost', { url: 'https://localhost/x' }, 'url'],
    ['a url that is not a URL', { url: 'hooks' }, 'url'],
    ['a url with a fragment', { url: `${url}#top` }, 'url'],
    ['a url over 2048 characters', { url: `${url}/${'x'.repeat(2048)}` }, 'url'],
    ['a url over 2048 characters once normalized', { url: `${url}/${'é'.repeat(400)}` }, 'url'],
    ['an empty events list', { url, events: [] }, 'events'],
    ['events that are not a list', { url, events: 'lease.sent' }, 'events'],
    ['an unknown field', { url, secret: 'whsec_mine' }, 'secret'],
    ['a long description', { url, description: 'x'.repeat(501) }, 'description'],
  ])('refuses %s with 422 invalid_field', async (_, body, field) => {
    expectError(await api.post('/webhooks', body), 422, 'invalid_field', field);
  });

  it('refuses an event the service does not send with 422 unknown_event', async () => {
    expectError(await api.post('/webhooks', { url, events: ['lease.sent', 'lease.exploded'] }), 422, 'unknown_event', 'events');
  });

  it("refuses the other side's events and the ping with unknown_event", async () => {
    expectError(await api.post('/webhooks', { url, events: ['booking.updated'] }), 422, 'unknown_event', 'events');
    expectError(await api.post('/webhooks', { url, events: ['ping'] }), 422, 'unknown_event', 'events');
  });

  it('refuses a body that is not JSON with 400 invalid_json', async () => {
    const res = await call('POST', '/webhooks', { key, body: '{"url":', headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'invalid_json');
  });
});

describe('GET /webhooks', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['cursor=nonsense', 'cursor'],
  ])('refuses %s with 422 invalid_field', async (query, field) => {
    expectError(await api.get(`/webhooks?${query}`), 422, 'invalid_field', field);
  });
});

describe('GET /webhooks/deliveries', () => {
  it.each([
    ['limit=101', 'limit'],
    ['status=lost', 'status'],
    ['endpoint_id=12', 'endpoint_id'],
    ['event_id=12', 'event_id'],
    [`cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`, 'cursor'],
  ])('refuses %s with 422 invalid_field', async (query, field) => {
    expectError(await api.get(`/webhooks/deliveries?${query}`), 422, 'invalid_field', field);
  });
});

describe('PATCH /webhooks/{id}', () => {
  it('refuses an empty change', async () => {
    expectError(await api.patch(`/webhooks/${endpointId}`, {}), 422, 'invalid_field', 'body');
  });

  it('an http or a loopback address is refused naming the setting that admits it locally and the forwarder for plain http', async () => {
    for (const refused of ['http://localhost:3000/hook', 'https://127.0.0.1:8443/hook']) {
      const res = await api.post('/webhooks', { url: refused });
      expectError(res, 422, 'invalid_field', 'url');
      const message = (res.body as { error: { message: string } }).error.message;
      expect(message, refused).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
      expect(message, refused).toContain('npm run --silent admin -- listen --org ORG_ID --forward-to http://localhost:3000/hook');
    }
  });

  it('refuses a url that is not https, and unknown events', async () => {
    expectError(await api.patch(`/webhooks/${endpointId}`, { url: 'http://hooks.customer.example' }), 422, 'invalid_field', 'url');
    expectError(await api.patch(`/webhooks/${endpointId}`, { events: ['nope'] }), 422, 'unknown_event', 'events');
    expectError(await api.patch(`/webhooks/${endpointId}`, { is_active: 'no' }), 422, 'invalid_field', 'is_active');
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expectError(await api.patch(`/webhooks/${unknownId}`, { is_active: false }), 404, 'not_found');
    expectError(await api.patch('/webhooks/not-an-id', { is_active: false }), 404, 'not_found');
  });
});

describe('endpoint actions on unknown endpoints', () => {
  it.each([
    ['DELETE', ''],
    ['POST', '/rotate-secret'],
    ['POST', '/test'],
  ])('%s /webhooks/{id}%s answers 404 not_found', async (method, suffix) => {
    expectError(await call(method, `/webhooks/${unknownId}${suffix}`, { key }), 404, 'not_found');
    expectError(await call(method, `/webhooks/nope${suffix}`, { key }), 404, 'not_found');
  });

  it('answers 405 for a method the path does not have', async () => {
    const res = await call('PUT', `/webhooks/${endpointId}`, { key, body: {} });
    expect(res.status).toBe(405);
  });
});
