// The receiving side's helper (quoted in docs/webhooks.md) on the edges of the specification's rule:
// a v1 HMAC over "<t>.<raw body>", compared in constant time, and a timestamp within 300 seconds of
// the verifier's clock either way. Real deliveries are verified with it in delivery.test.ts. The
// plain JavaScript copy (verify-signature.mjs, quoted in the README too) passes the same cases.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Signer } from '../../shared/webhooks/signature.ts';
import { verifyWebhookSignature as typescriptHelper } from '../../shared/webhooks/verify-signature.ts';
import { verifyWebhookSignature as javascriptHelper } from '../../shared/webhooks/verify-signature.mjs';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ';
const body = '{"id":"6d3f321c-e271-4c51-9ba7-24913abfedab","event":"lease.sent","data":{"reason":"l’école"}}';
const signedAt = 1_795_000_000;
const nowMs = signedAt * 1000;

const headerAt = (t: number, key = secret) => new Signer().header(key, body, t);
const v1Of = (header: string) => header.slice(header.indexOf('v1=') + 3);

describe.each([
  ['TypeScript', typescriptHelper],
  ['JavaScript', javascriptHelper],
])('verifyWebhookSignature (%s)', (_, verifyWebhookSignature) => {
  it('accepts a timestamp up to 300 seconds away on either side, and refuses beyond', async () => {
    for (const offset of [-300, 0, 300]) {
      expect(await verifyWebhookSignature(body, await headerAt(signedAt + offset), secret, { nowMs })).toBe(true);
    }
    for (const offset of [-301, 301]) {
      expect(await verifyWebhookSignature(body, await headerAt(signedAt + offset), secret, { nowMs })).toBe(false);
    }
    expect(await verifyWebhookSignature(body, await headerAt(signedAt - 600), secret, { nowMs, toleranceSeconds: 600 })).toBe(true);
  });

  it('checks the raw bytes: the same text as bytes verifies, one changed byte does not', async () => {
    const header = await headerAt(signedAt);
    expect(await verifyWebhookSignature(new TextEncoder().encode(body), header, secret, { nowMs })).toBe(true);
    expect(await verifyWebhookSignature(body.replace('é', 'e'), header, secret, { nowMs })).toBe(false);
    expect(await verifyWebhookSignature(`${body} `, header, secret, { nowMs })).toBe(false);
  });

  it('accepts any matching v1 among several, in either case, and any of several secrets', async () => {
    const right = v1Of(await headerAt(signedAt));
    const wrong = v1Of(await headerAt(signedAt, 'whsec_other'));
    expect(await verifyWebhookSignature(body, `t=${signedAt},v1=${wrong},v1=${right}`, secret, { nowMs })).toBe(true);
    expect(await verifyWebhookSignature(body, `t=${signedAt}, v1=${right.toUpperCase()}`, secret, { nowMs })).toBe(true);
    expect(await verifyWebhookSignature(body, `t=${signedAt},v1=${right}`, ['whsec_new', secret], { nowMs })).toBe(true);
    expect(await verifyWebhookSignature(body, `t=${signedAt},v1=${wrong}`, secret, { nowMs })).toBe(false);
  });

  it('refuses malformed headers', async () => {
    const right = v1Of(await headerAt(signedAt));
    for (const header of [
      undefined,
      null,
      '',
      `v1=${right}`,
      `t=${signedAt}`,
      `t=abc,v1=${right}`,
      `t=${signedAt}.5,v1=${right}`,
      `t=${signedAt},v1=${right.slice(0, -1)}`,
      `t=${signedAt},v1=${right}0`,
      `t=${signedAt},v0=${right}`,
    ]) {
      expect(await verifyWebhookSignature(body, header, secret, { nowMs })).toBe(false);
    }
  });
});

describe('verify-signature.mjs as a receiver runs it', () => {
  const run = promisify(execFile);
  const helperUrl = new URL('../../shared/webhooks/verify-signature.mjs', import.meta.url).href;
  const deno = fileURLToPath(new URL('../../node_modules/.bin/deno', import.meta.url));
  /** A module that verifies the signed body, a tampered one and a wrong secret, printing the three answers. */
  const script = (header: string, setup = '') => `${setup}
    const { verifyWebhookSignature } = await import(${JSON.stringify(helperUrl)});
    const options = { nowMs: ${nowMs} };
    console.log(JSON.stringify([
      await verifyWebhookSignature(${JSON.stringify(body)}, ${JSON.stringify(header)}, ${JSON.stringify(secret)}, options),
      await verifyWebhookSignature(${JSON.stringify(`${body} `)}, ${JSON.stringify(header)}, ${JSON.stringify(secret)}, options),
      await verifyWebhookSignature(${JSON.stringify(body)}, ${JSON.stringify(header)}, 'whsec_other', options),
    ]));`;

  it('on plain Node, with no TypeScript loader', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(await headerAt(signedAt))]);
    expect(JSON.parse(stdout)).toEqual([true, false, false]);
  });

  it('on Node without a global WebCrypto, as Node 18 runs by default', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(await headerAt(signedAt), 'delete globalThis.crypto;')]);
    expect(JSON.parse(stdout)).toEqual([true, false, false]);
  });

  it('on Deno', async () => {
    const { stdout } = await run(deno, ['eval', '--quiet', script(await headerAt(signedAt))], { env: { ...process.env, NO_COLOR: '1' } });
    expect(JSON.parse(stdout)).toEqual([true, false, false]);
  }, 60_000);
});
