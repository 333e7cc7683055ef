// Endpoints may not reach the service's own network: checked when saved and again before every attempt.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { client, createTenant } from '../helpers.ts';
import { checkEndpointUrl, isBlockedAddress } from '../../shared/webhooks/destination.ts';
import { dispatchFor, recordEvent, useReceiver } from './support.ts';
import { definitionOf } from '../../shared/events/registry.ts';
import { pinnedTransport } from '../../scripts/lib/pinned-transport.ts';

describe('blocked addresses', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '168.63.129.16',
    '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '2002:a00:1::', 'ff02::1',
    // Teredo (its client address is the last 32 bits, inverted), the NAT64 local-use prefix, SIIT, discard-only.
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1', '64:ff9b:1::808:808', '::ffff:0:7f00:1', '::ffff:0:a00:1', '100::1',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2001:4860:4860::8888'])('allows %s', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it('judges endpoint URLs by their literal host when saved', () => {
    const reason = (url: string, allowPrivate = false) => {
      const checked = checkEndpointUrl(url, allowPrivate);
      return checked.ok ? undefined : checked.reason;
    };
    expect(reason('https://hooks.example.com/x')).toBeUndefined();
    expect(reason('http://hooks.example.com/x')).toMatch(/https/);
    expect(reason('https://user:pw@hooks.example.com/x')).toMatch(/credentials/);
    expect(reason('https://hooks.example.com/x#part')).toMatch(/fragment/);
    expect(reason('https://127.0.0.1/x')).toMatch(/public internet/);
    expect(reason('https://0x7f.1/x')).toMatch(/public internet/);
    expect(reason('https://[::1]:8443/x')).toMatch(/public internet/);
    expect(reason('https://localhost/x')).toMatch(/public internet/);
    expect(reason('https://metadata.google.internal/x')).toMatch(/public internet/);
    expect(reason('https://127.0.0.1/x', true)).toBeUndefined();
    expect(reason('not a url', true)).toMatch(/valid URL/);
  });

  it('gives an acceptable URL back normalized, as deliveries will use it, within the stored length', () => {
    expect(checkEndpointUrl('HTTPS://Hooks.Example.COM:443/a b?x=1', false)).toEqual({ ok: true, url: 'https://hooks.example.com/a%20b?x=1' });
    expect(checkEndpointUrl('  https://hooks.example.com', false)).toEqual({ ok: true, url: 'https://hooks.example.com/' });
    const long = checkEndpointUrl(`https://hooks.example.com/${'é'.repeat(400)}`, false);
    expect(long).toEqual({ ok: false, reason: expect.stringMatching(/at most 2048 characters once normalized/) });
  });
});

describe('at delivery time', () => {
  const receiver = useReceiver();
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  const sample = definitionOf('lease.sent', 'carrier')!.sample;

  beforeEach(async () => {
    tenant = await createTenant('carrier');
  });
  afterEach(() => {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  });

  async function deliveryAfter(url: string, resolve?: (host: string) => Promise<string[]>) {
    const api = client(tenant.sandbox);
    expect((await api.post('/webhooks', { url, events: ['lease.sent'] })).status).toBe(201);
    // Accepted while private networks were allowed (or while the name still looked public)...
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', sample);
    await dispatchFor([tenant.orgId], resolve ? { resolve } : {});
    const res = await api.get(`/webhooks/deliveries?event_id=${eventId}`);
    return res.body.data[0];
  }

  it('refuses an endpoint that is a loopback address, without calling it', async () => {
    const delivery = await deliveryAfter(receiver.url('/ssrf-literal'));
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, http_status: null });
    expect(delivery.error).toMatch(/^refused: 127\.0\.0\.1 does not resolve only to public internet addresses/);
    expect(receiver.at('/ssrf-literal')).toEqual([]);
  });

  it('refuses a name that resolves to a private or metadata address at the time of sending', async () => {
    const resolved: string[] = [];
    const delivery = await deliveryAfter('https://hooks.customer.example/rebound', async (host) => {
      resolved.push(host);
      return ['203.0.114.10', '169.254.169.254'];
    });
    expect(resolved).toEqual(['hooks.customer.example']);
    // Refused without naming what the name resolved to inside the service's network.
    expect(delivery.error).toBe(
      'refused: hooks.customer.example does not resolve only to public internet addresses (loopback, private, link-local or metadata addresses are never called)',
    );
    expect(delivery.error).not.toContain('169.254');
  });

  it('says a connection failed without naming the address, port or system error', async () => {
    const api = client(tenant.sandbox);
    // Private networks allowed (as in development): a closed port on this machine.
    expect((await api.post('/webhooks', { url: 'https://127.0.0.1:1/closed', events: ['lease.sent'] })).status).toBe(201);
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', sample);
    await dispatchFor([tenant.orgId]);
    const [delivery] = (await api.get(`/webhooks/deliveries?event_id=${eventId}`)).body.data;
    expect(delivery.error).toBe('network error: no HTTP answer (the connection could not be made or was closed)');
  });

  it('DNS rebinding: a name that is public when checked and loopback when connecting is refused at the connection (local server)', async () => {
    const connectTo: string[] = [];
    const transport = pinnedTransport({
      allowPrivate: false,
      lookup: async (host) => {
        connectTo.push(host);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const url = receiver.url('/rebound').replace('127.0.0.1', 'localhost');
    const api = client(tenant.sandbox);
    expect((await api.post('/webhooks', { url, events: ['lease.sent'] })).status).toBe(201);
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', sample);
    // The check sees a public address; the connection's own lookup gets the loopback one.
    await dispatchFor([tenant.orgId], { resolve: async () => ['93.184.216.34'], transport });
    const [delivery] = (await api.get(`/webhooks/deliveries?event_id=${eventId}`)).body.data;
    expect(connectTo).toEqual(['localhost']);
    expect(delivery.error).toMatch(/^refused: localhost does not resolve only to public internet addresses/);
    expect(receiver.at('/rebound')).toEqual([]);
  });

  it('the pinned transport delivers as fetch does: TLS checked against the name, the answer read', async () => {
    const api = client(tenant.sandbox);
    const url = receiver.url('/pinned').replace('127.0.0.1', 'localhost');
    expect((await api.post('/webhooks', { url, events: ['lease.sent'] })).status).toBe(201);
    const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', sample);
    await dispatchFor([tenant.orgId], { transport: pinnedTransport({ allowPrivate: true }) });
    const [delivery] = (await api.get(`/webhooks/deliveries?event_id=${eventId}`)).body.data;
    expect(delivery).toMatchObject({ status: 'succeeded', http_status: 200 });
    expect(receiver.at('/pinned')).toHaveLength(1);
  });

  it('records a name that does not resolve as a failed attempt', async () => {
    const delivery = await deliveryAfter('https://gone.customer.example/x', async () => {
      throw new Error('getaddrinfo ENOTFOUND gone.customer.example');
    });
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery.error).toBe('could not resolve gone.customer.example');
  });
});

describe('a resolver that does not answer', () => {
  it('fails the attempt within WEBHOOK_TIMEOUT_MS', async () => {
    const tenant = await createTenant('carrier');
    const api = client(tenant.sandbox);
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    process.env.WEBHOOK_TIMEOUT_MS = '200';
    try {
      expect((await api.post('/webhooks', { url: 'https://slow-dns.customer.example/x', events: ['lease.sent'] })).status).toBe(201);
      const eventId = await recordEvent(tenant.orgId, 'sandbox', 'lease.sent', definitionOf('lease.sent', 'carrier')!.sample);
      const started = Date.now();
      await dispatchFor([tenant.orgId], { resolve: () => new Promise(() => {}) });
      expect(Date.now() - started).toBeLessThan(2000);
      const [delivery] = (await api.get(`/webhooks/deliveries?event_id=${eventId}`)).body.data;
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, error: 'no answer within 200 ms' });
    } finally {
      delete process.env.WEBHOOK_TIMEOUT_MS;
      process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    }
  });
});
