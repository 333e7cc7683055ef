// The Edge Runtime's webhook transport, run in Deno (the production runtime) against this suite's
// HTTPS receiver: it connects to the address its check resolved and to no other, verifies TLS
// against the host name, and reads the answer as fetch would.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testAuthority } from '../fixtures/tls/trust.ts';
import { resolutionFlags, runDeno } from '../deploy/support.ts';
import { useReceiver } from './support.ts';

const root = new URL('../../', import.meta.url).pathname;
const receiver = useReceiver();
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Case {
  url: string;
  /** What the transport's resolver answers for the host. */
  addresses: string[];
  allowPrivate: boolean;
}

/** Runs each case through the transport in Deno; what it answered or threw, per case. */
async function inDeno(cases: Case[], net = '--allow-net'): Promise<({ status: number; body: string; type: string | null } | { error: string })[]> {
  const dir = await mkdtemp(join(tmpdir(), 'hps-deno-transport-'));
  dirs.push(dir);
  const probe = join(dir, 'probe.ts');
  await writeFile(probe, `
import { pinnedTransport } from ${JSON.stringify(pathToFileURL(join(root, 'functions/webhook-dispatcher/deno-transport.ts')).href)};
const caCerts = [await Deno.readTextFile(${JSON.stringify(testAuthority)})];
const results = [];
for (const c of ${JSON.stringify(cases)}) {
  try {
    const send = pinnedTransport({ allowPrivate: c.allowPrivate, resolve: async () => c.addresses, caCerts });
    const res = await send(new URL(c.url), { method: 'POST', body: '{"id":"evt_1"}', headers: { 'content-type': 'application/json', 'x-service-event': 'ping' }, signal: AbortSignal.timeout(5000) });
    results.push({ status: res.status, body: await res.text(), type: res.headers.get('content-type') });
  } catch (error) {
    results.push({ error: error.name + ': ' + error.message });
  }
}
console.log(JSON.stringify(results));
`);
  const run = await runDeno(['run', '--quiet', '--no-prompt', ...resolutionFlags(join(root, 'functions/import_map.json')), net, '--allow-read', '--allow-env', '--allow-sys', probe], { cwd: root });
  if (run.code !== 0) throw new Error(`deno failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

describe('the Edge Runtime webhook transport (in Deno)', () => {
  it('delivers to the checked address with TLS verified for the name, refuses a blocked answer, and never connects elsewhere', async () => {
    const byName = (path: string, name = 'localhost') => receiver.url(path).replace('127.0.0.1', name);
    receiver.answer('/deno-answer', { status: 202, body: 'accepted here', headers: { 'content-type': 'text/plain; charset=utf-8' } });
    receiver.answer('/deno-chunked', { status: 500, body: 'x'.repeat(3000), headers: { 'transfer-encoding': 'chunked' } });
    const [delivered, chunked, refused, wrongName, literal, unresolved] = await inDeno([
      { url: byName('/deno-answer'), addresses: ['127.0.0.1'], allowPrivate: true },
      { url: byName('/deno-chunked'), addresses: ['127.0.0.1'], allowPrivate: true },
      // Rebinding: the name's answer is loopback; with private networks refused, nothing is sent.
      { url: byName('/deno-refused'), addresses: ['127.0.0.1'], allowPrivate: false },
      // The certificate is checked against the name, not the address connected to.
      { url: byName('/deno-wrong-name', 'hooks.customer.example'), addresses: ['127.0.0.1'], allowPrivate: true },
      { url: receiver.url('/deno-literal'), addresses: [], allowPrivate: false },
      // A name with no address: nothing to connect to.
      { url: byName('/deno-unresolved'), addresses: [], allowPrivate: true },
    ]);
    expect(delivered).toEqual({ status: 202, body: 'accepted here', type: 'text/plain; charset=utf-8' });
    const [received] = receiver.at('/deno-answer');
    expect(received.body).toBe('{"id":"evt_1"}');
    expect(received.headers).toMatchObject({ 'x-service-event': 'ping', 'content-type': 'application/json', host: expect.stringMatching(/^localhost:\d+$/) });
    // A chunked answer is read as its data, without the chunk sizes.
    expect(chunked).toEqual({ status: 500, body: 'x'.repeat(3000), type: 'text/plain' });
    expect(refused).toEqual({ error: expect.stringMatching(/^DestinationRefused: refused: localhost does not resolve only to public internet addresses/) });
    expect(receiver.at('/deno-refused')).toEqual([]);
    expect(wrongName).toEqual({ error: expect.stringMatching(/certificate|name|invalid/i) });
    expect(receiver.at('/deno-wrong-name')).toEqual([]);
    // An address literal is checked as itself (no resolver): 127.0.0.1 is refused.
    expect(literal).toEqual({ error: expect.stringMatching(/^DestinationRefused/) });
    expect(unresolved).toEqual({ error: expect.stringMatching(/could not resolve localhost/) });
    expect(receiver.at('/deno-unresolved')).toEqual([]);
  }, 60_000);

  it('where the runtime refuses a function its own sockets, a delivery still goes, through fetch', async () => {
    const url = receiver.url('/deno-fallback').replace('127.0.0.1', 'localhost');
    // The network allowed to the name only: Deno.connect to the address is refused, fetch to the name is not.
    const [delivered] = await inDeno([{ url, addresses: ['127.0.0.1'], allowPrivate: true }], `--allow-net=${new URL(url).host}`);
    expect(delivered).toMatchObject({ status: 200, body: 'ok' });
    expect(receiver.at('/deno-fallback')).toHaveLength(1);
  }, 60_000);
});
