// Fuzzing what the schema-driven fuzz does not reach, over a real socket through the local gateway
// (the listener npm start serves), so that Node's own parser is in the path: the two processor
// callbacks, the pay, household and payout-setup pages, and JSON routes, with header values carrying
// control bytes or running long, JSON nested thousands of levels deep, invalid UTF-8 and random
// bytes. Nothing may answer 5xx (a callback or page of a deployment without its provider says 503
// not configured, as documented), every status must be one the surface documents, and every answer
// has its surface's content type.
//
// Seeded and bounded like the schema fuzz: FUZZ_RUNS (default 15; this file runs 10x that per
// surface) and FUZZ_SEED.
import fc from 'fast-check';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer } from '../../scripts/lib/router.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { openApiDocument } from '../../functions/docs/app.ts';
import { signSetupLink } from '../../shared/placements/pay-link.ts';
import { payUrl, signedLease } from '../placements/payment-fixtures.ts';
import { drainJobs, scene } from '../placements/fixtures.ts';

const runs = 10 * Number(process.env.FUZZ_RUNS ?? 15);
const seed = Number(process.env.FUZZ_SEED ?? 20261125);

let server: Server;
let port: number;
let key: string;
const tokens: Record<'pay' | 'setup' | 'household', string> = { pay: '', setup: '', household: '' };

beforeAll(async () => {
  port = await freePort();
  server = createGatewayServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const s = await signedLease();
  key = s.c.sandbox;
  tokens.pay = new URL(await payUrl(s.api, s.ref)).pathname.split('/').at(-1)!;
  tokens.setup = await signSetupLink(s.providerOrg, 'sandbox');
  const sent = await scene();
  await sent.api.post(`/claims/${sent.ref}/options`, { property_id: sent.home, action: 'send', approve_budget: true });
  await drainJobs(sent.c.orgId);
  tokens.household = new URL((await sent.api.get(`/sandbox/claims/${sent.ref}/homes/${sent.home}/household-link`)).body.data.url).pathname.split('/').at(-1)!;
}, 60_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends raw bytes (a request no HTTP client would build) and reads the whole answer. */
function sendRaw(head: string, body: Uint8Array): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Written, not ended: the server answers, then closes (Connection: close).
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body])));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headText, ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0);
      const contentType = /\r\ncontent-type: ([^\r\n]*)/i.exec(headText)?.[1] ?? '';
      resolve({ status, contentType, body: rest.join('\r\n\r\n') });
    });
  });
}

/** A header value: printable, long, or with a control byte (never CR/LF, which would end the header). */
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
  fc.integer({ min: 1, max: 31 }).filter((c) => c !== 10 && c !== 13).chain((c) => fc.string({ maxLength: 20 }).map((s) => `a${String.fromCharCode(c)}${s.replace(/[\r\n]/g, '')}`)),
  fc.integer({ min: 100, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom('', ' ', 'Bearer ', `Bearer ${'k'.repeat(300)}`, 't=1,v1=00', 'application/json; charset=latin1', '\u00ff\u00fe'),
);
const headerName = fc.constantFrom('authorization', 'idempotency-key', 'x-forwarded-for', 'content-type', 'stripe-signature', 'x-documenso-secret', 'origin', 'x-note');

/** JSON nested `depth` levels, as arrays or objects. */
const nested = (depth: number, objects: boolean) => (objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + '1' + ']'.repeat(depth));

/**
 * A body, as a short description (so a failing case prints readably) turned into bytes when sent:
 * random bytes, invalid UTF-8 inside JSON, JSON nested up to 6,000 levels, a form, or nothing.
 */
type BodySpec = { bytes: number[] } | { nested: number; objects: boolean } | { form: Record<string, string> };
const bodySpec: fc.Arbitrary<BodySpec> = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 300 }).map((bytes) => ({ bytes })),
  fc.constantFrom<number[]>([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d], [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d], [0xed, 0xa0, 0x80]).map((bytes) => ({ bytes })),
  fc.record({ nested: fc.integer({ min: 1, max: 6000 }), objects: fc.boolean() }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 30 }), { maxKeys: 6 }).map((form) => ({ form })),
);
const bytesOf = (spec: BodySpec): Buffer =>
  'bytes' in spec ? Buffer.from(spec.bytes) : 'nested' in spec ? Buffer.from(nested(spec.nested, spec.objects)) : Buffer.from(new URLSearchParams(spec.form).toString());

interface Surface {
  name: string;
  method: fc.Arbitrary<string>;
  path: fc.Arbitrary<string>;
  /** The statuses the surface documents, and the content type of its answers. */
  statuses: number[];
  contentType: RegExp;
  authenticated?: boolean;
}

const token = (real: () => string) => fc.oneof(fc.constant(null).map(() => real()), fc.string({ maxLength: 60 }).map((s) => encodeURIComponent(s) || 'x'));

// The statuses a JSON route documents, from the OpenAPI document.
const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const documented = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).map(Number);

const surfaces: Surface[] = [
  // The callbacks: 200, 401 (signature), 404 (other paths), 413 (past 1 MB), 503 (provider not configured);
  // 429 for the e-signature callback's address past the failed-authentication limit.
  { name: 'the payment processor callback', method: fc.constant('POST'), path: fc.constantFrom('/payments-webhook', '/payments-webhook/'), statuses: [200, 400, 401, 413, 422, 503], contentType: /^application\/json/ },
  { name: 'the e-signature callback', method: fc.constant('POST'), path: fc.constantFrom('/esign-callback', '/esign-callback/'), statuses: [200, 400, 401, 413, 422, 429, 503], contentType: /^application\/json/ },
  // The pages: a page for every answer, the refusals included.
  { name: 'the pay page', method: fc.constantFrom('GET', 'POST'), path: token(() => tokens.pay).map((t) => `/pay/${t}`), statuses: [200, 303, 403, 404, 409, 410, 413, 422, 503], contentType: /^text\/html/ },
  { name: 'the payout setup page', method: fc.constantFrom('GET', 'POST'), path: token(() => tokens.setup).map((t) => `/pay/setup/${t}`), statuses: [200, 303, 403, 404, 410, 413, 422, 503], contentType: /^text\/html/ },
  { name: 'the household page', method: fc.constantFrom('GET', 'POST'), path: token(() => tokens.household).map((t) => `/household/${t}`), statuses: [200, 303, 403, 404, 409, 410, 413, 422, 503], contentType: /^text\/html/ },
  // JSON routes with bodies.
  ...([['/claims', 'post'], ['/events/simulate', 'post'], ['/webhooks', 'post']] as const).map(([path, method]): Surface => ({
    name: `${method.toUpperCase()} ${path}`, method: fc.constant(method.toUpperCase()), path: fc.constant(path),
    statuses: documented(path, method), contentType: /^application\/json/, authenticated: true,
  })),
];

describe('fuzz: callbacks, pages and headers over a real socket', () => {
  it.each(surfaces.map((s) => [s.name, s] as const))('%s never answers 5xx or a status it does not document', async (_name, surface) => {
    const request = fc.record({
      method: surface.method,
      path: surface.path,
      headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 3 }),
      contentType: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', ''),
      body: bodySpec,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const lines = [`${r.method} /functions/v1${r.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
        if (surface.authenticated && !r.headers.some(([name]) => name === 'authorization')) lines.push(`Authorization: Bearer ${key}`);
        if (r.contentType && !r.headers.some(([name]) => name === 'content-type')) lines.push(`Content-Type: ${r.contentType}`);
        for (const [name, value] of r.headers) lines.push(`${name}: ${value}`);
        const body = bytesOf(r.body);
        lines.push(`Content-Length: ${body.byteLength}`);
        const answer = await sendRaw(`${lines.join('\r\n')}\r\n\r\n`, body);
        const described = `${r.method} ${r.path.slice(0, 60)} [${r.headers.map(([n, v]) => `${n}: ${JSON.stringify(v.slice(0, 40))}`).join('; ')}] ${body.byteLength} bytes`;
        // A header Node cannot parse never reaches the surface: the gateway's JSON refusal (422 on headers, or 400).
        const unparsed = answer.contentType.startsWith('application/json') && /"field":"headers"|request line or body framing/.test(answer.body);
        expect(answer.status, `${described} -> ${answer.status} ${answer.body.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${described} -> ${answer.body.slice(0, 300)}`).toBeLessThan(answer.status === 503 ? 504 : 500);
        if (answer.status === 503) expect(answer.body, described).toMatch(/not_configured|not available yet|not set up/);
        if (!unparsed) {
          expect(surface.statuses, `${described} -> undocumented ${answer.status}: ${answer.body.slice(0, 200)}`).toContain(answer.status);
          if (answer.status !== 303) expect(answer.contentType, `${described} -> ${answer.status}`).toMatch(surface.contentType);
        } else {
          expect([400, 422], described).toContain(answer.status);
        }
      }),
      { seed, numRuns: runs, endOnFailure: true },
    );
  });

  it('JSON nested past 64 levels is refused on its field, invalid UTF-8 is invalid_json, on a route the schema fuzz reaches only in-process', async () => {
    const head = (length: number) =>
      `POST /functions/v1/events/simulate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const deep = Buffer.from(`{"event":"lease.sent","data":${nested(5000, true)}}`);
    const tooDeep = await sendRaw(head(deep.byteLength), deep);
    expect(tooDeep.status, tooDeep.body).toBe(422);
    expect(JSON.parse(tooDeep.body).error).toMatchObject({ code: 'invalid_field', field: 'data' });
    const invalid = Buffer.from([...Buffer.from('{"event":"'), 0xc3, 0x28, ...Buffer.from('"}')]);
    const unreadable = await sendRaw(head(invalid.byteLength), invalid);
    expect(unreadable.status).toBe(400);
    expect(JSON.parse(unreadable.body).error).toMatchObject({ code: 'invalid_json' });
  });

  it('a malformed multipart form on the pay and household pages is a form the page could not read (422), not a failure', async () => {
    for (const path of [`/pay/${tokens.pay}`, `/household/${tokens.household}`]) {
      const answer = await sendRaw(`POST /functions/v1${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 0\r\n\r\n`, Buffer.alloc(0));
      expect(answer.status, path).toBe(422);
      expect(answer.contentType, path).toMatch(/^text\/html/);
      expect(answer.body, path).toContain('could not be read');
    }
  });
});
