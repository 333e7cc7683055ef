// The console's `listen`: a sandbox organisation's events forwarded to a plain-http receiver on this
// machine (no certificate, no server restart), signed as deliveries are, once each, and resumed after
// a restart of the command with nothing missed or repeated.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { call, consoleCommand, createTenant, ownerSql } from '../helpers.ts';
import { verifyWebhookSignature } from '../../shared/webhooks/verify-signature.ts';

interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A local receiver on plain http, as an integrator's laptop runs one; it answers 200 "ok <n>". */
async function receiver() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${received.length}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** `npm run admin -- listen ...` as its script runs it, so that a signal reaches the console itself. */
function startListen(args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'listen', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', MIGRATE: 'false' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return {
    ready: () => until(() => stderr.includes('Ready:'), () => `no Ready line; stderr: ${stderr}`),
    lines: () => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)),
    async stop() {
      child.kill('SIGINT');
      return { code: await exited, stdout, stderr };
    },
  };
}

async function until(done: () => boolean, why: () => string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const simulate = async (key: string, event: string) => {
  const res = await call('POST', '/events/simulate', { key, body: { event } });
  expect(res.status).toBe(202);
  return (res.body as { data: { event_id: string } }).data.event_id;
};

const servers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('listen: sandbox events forwarded to a local http address', () => {
  it('forwards each event once, signed as a delivery with the printed secret, and resumes after a restart without loss or repeat', async () => {
    const tenant = await createTenant('carrier');
    const local = await receiver();
    servers.push(local);
    const { data } = await consoleCommand<{ data: { signing_secret: string; environment: string } }>('listen', '--org', tenant.orgId, '--print-secret');
    expect(data).toMatchObject({ environment: 'sandbox', signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/) });
    const secret = data.signing_secret;
    // An event recorded before the first run is not the forwarder's to send.
    const before = await simulate(tenant.sandbox, 'request.status_changed');

    const first = startListen(['--org', tenant.orgId, '--forward-to', local.url, '--poll-ms', '100']);
    await first.ready();
    const sent = [await simulate(tenant.sandbox, 'lease.sent'), await simulate(tenant.sandbox, 'lease.signed'), await simulate(tenant.sandbox, 'payment.succeeded')];
    await until(() => local.received.length >= 3, () => `received ${local.received.length}`);
    const firstRun = await first.stop();
    expect(firstRun.code, firstRun.stderr).toBe(0);
    // One line per event with the receiver's answer, then the run's summary.
    const lines = firstRun.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.slice(0, 3)).toEqual(sent.map((id, i) => expect.objectContaining({ id, status: 200, answer: `ok ${i + 1}` })));
    expect(lines.at(-1)).toEqual({ data: expect.objectContaining({ org_id: tenant.orgId, forwarded: 3 }) });

    // Recorded while nothing listens: the next run forwards them, and nothing of the first run again.
    const whileDown = [await simulate(tenant.sandbox, 'option.saved'), await simulate(tenant.sandbox, 'booking.confirmed')];
    const second = startListen(['--org', tenant.orgId, '--forward-to', local.url, '--poll-ms', '100']);
    await second.ready();
    const after = await simulate(tenant.sandbox, 'lease.first_signed');
    await until(() => local.received.length >= 6, () => `received ${local.received.length}`);
    // Polls go on; nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const secondRun = await second.stop();
    expect(secondRun.code, secondRun.stderr).toBe(0);

    const ids = local.received.map((r) => JSON.parse(r.body).id);
    expect(ids).toEqual([...sent, ...whileDown, after]);
    expect(ids).not.toContain(before);
    for (const delivery of local.received) {
      // Exactly what a webhook endpoint receives: the envelope, its headers, a signature the README's helper verifies.
      expect(await verifyWebhookSignature(delivery.body, delivery.headers['x-service-signature'] as string, secret)).toBe(true);
      expect(await verifyWebhookSignature(delivery.body, delivery.headers['x-service-signature'] as string, 'whsec_somebodyelse0000000000000000000')).toBe(false);
      const envelope = JSON.parse(delivery.body);
      expect(delivery.headers['x-service-event']).toBe(envelope.event);
      expect(delivery.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(delivery.headers['user-agent']).toBe('HousingPlacementService-Webhooks/1');
      expect(envelope).toMatchObject({ simulated: true, data: expect.objectContaining({ simulated: true }) });
    }
    const [event] = await ownerSql()`select event, created_at from app.events where id = ${sent[0]}`;
    expect(JSON.parse(local.received[0].body)).toMatchObject({ event: event.event, created_at: event.created_at.toISOString() });
  }, 90_000);

  it('forwards only the events named by --events', async () => {
    const tenant = await createTenant('carrier');
    const local = await receiver();
    servers.push(local);
    const run = startListen(['--org', tenant.orgId, '--forward-to', local.url, '--events', 'lease.signed', '--poll-ms', '100']);
    await run.ready();
    await simulate(tenant.sandbox, 'lease.sent');
    const signed = await simulate(tenant.sandbox, 'lease.signed');
    await until(() => local.received.length >= 1, () => `received ${local.received.length}`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await run.stop()).code).toBe(0);
    expect(local.received.map((r) => JSON.parse(r.body).id)).toEqual([signed]);
  }, 60_000);

  it('refuses live, an unknown event and a missing address, each saying why', async () => {
    const tenant = await createTenant('carrier');
    const refusal = async (...argv: string[]) => consoleCommand('listen', '--org', tenant.orgId, ...argv).catch((e) => e);
    expect(await refusal('--env', 'live', '--forward-to', 'http://localhost:3000/hook')).toMatchObject({ code: 'sandbox_only', message: expect.stringContaining('sandbox events only') });
    expect(await refusal('--forward-to', 'http://localhost:3000/hook', '--events', 'lease.exploded')).toMatchObject({ code: 'invalid_option', message: expect.stringContaining('lease.exploded') });
    expect(await refusal()).toMatchObject({ code: 'missing_option', message: '--forward-to is required' });
  });
});
