// Methods a route does not declare, over a real socket through the local server's gateway (the
// listener npm start serves): TRACE must answer 405 with Allow, never the GET's data. And the
// gateway states the client address itself, whatever X-Forwarded-For the client sends.
import { request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer } from '../../scripts/lib/router.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { call, createTenant, errorOf } from '../helpers.ts';

let server: Server;
let port: number;

beforeAll(async () => {
  port = await freePort();
  server = createGatewayServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(method: string, path: string, key: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; allow: string | undefined; headers: Record<string, unknown>; body: any; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: `/functions/v1${path}`, headers: { authorization: `Bearer ${key}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      // The pages answer HTML, kept as text.
      const json = /json/.test(res.headers['content-type'] ?? '');
      res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow, headers: res.headers, body: text && json ? JSON.parse(text) : null, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('undeclared methods over HTTP', () => {
  it('TRACE on a GET route answers 405 with Allow and no data', async () => {
    const t = await createTenant('provider');
    const get = await send('GET', '/properties', t.sandbox);
    expect(get.status).toBe(200);
    for (const path of ['/properties', '/usage', '/events']) {
      const trace = await send('TRACE', path, t.sandbox);
      expect(trace.status, path).toBe(405);
      expect(trace.allow, path).toContain('GET');
      expect(trace.body.error).toMatchObject({ code: 'method_not_allowed' });
      expect(trace.body.error.message).toMatch(/^TRACE is not allowed/);
      expect(trace.body.data).toBeUndefined();
    }
  });

  it('other undeclared methods (PUT, DELETE, PROPFIND) answer 405 with Allow as well', async () => {
    const t = await createTenant('provider');
    for (const method of ['PUT', 'DELETE', 'PROPFIND']) {
      const res = await send(method, '/properties', t.sandbox);
      expect(res.status, method).toBe(405);
      expect(res.allow?.split(', ').sort(), method).toEqual(['GET', 'POST']);
    }
  });
});

/** Sends raw bytes over a socket (a request no HTTP client would make) and reads the whole answer. */
function sendRaw(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('undeclared methods on the pages', () => {
  it('TRACE, OPTIONS, PUT and DELETE on a page address answer a 405 page with Allow, not the page-not-found', async () => {
    const pages: [string, string][] = [
      ['/pay/some.signed.token', 'GET, POST'],
      ['/pay/setup/some.signed.token', 'GET, POST'],
      ['/household/some.signed.token', 'GET, POST'],
      ['/household/some.signed.token/lease', 'GET'],
    ];
    for (const [path, allow] of pages) {
      for (const method of ['TRACE', 'OPTIONS', 'PUT', 'DELETE']) {
        const res = await send(method, path, 'none');
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.allow, `${method} ${path}`).toBe(allow);
        expect(res.headers['content-type'], `${method} ${path}`).toMatch(/^text\/html/);
        expect(res.text, `${method} ${path}`).toContain(`${method} is not possible on this page`);
      }
    }
    // An address no page has stays the page-not-found, whatever the method.
    for (const method of ['GET', 'TRACE']) expect((await send(method, '/pay/a/b/c', 'none')).status, method).toBe(404);
  });
});

describe('CONNECT', () => {
  it('on an API path answers 405 with Allow in the JSON envelope, and closes the connection', async () => {
    const t = await createTenant('provider');
    const answer = await sendRaw(`CONNECT /functions/v1/properties HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.sandbox}\r\n\r\n`);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 405 /);
    expect(/\r\nallow: (.*)\r\n/i.exec(head)?.[1].split(', ').sort()).toEqual(['GET', 'POST']);
    expect(head.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(body).error).toMatchObject({ code: 'method_not_allowed', message: expect.stringMatching(/^CONNECT is not allowed/) });
  });

  it('to a host (a proxy request) answers 405 in the JSON envelope: this server is no proxy', async () => {
    const answer = await sendRaw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 405 /);
    expect(head.toLowerCase()).toMatch(/\r\nallow: ?\r\n/);
    expect(JSON.parse(body).error).toMatchObject({ code: 'method_not_allowed', message: expect.stringContaining('not a proxy') });
  });

  it('on an unknown path answers the JSON 404 naming it', async () => {
    const answer = await sendRaw('CONNECT /functions/v1/nothing/here HTTP/1.1\r\nHost: x\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(body).error).toMatchObject({ code: 'not_found', message: expect.stringContaining('/functions/v1/nothing/here') });
  });
});

describe('requests Node cannot parse', () => {
  it('a control character in a header value answers the API\'s JSON error envelope, not a bare 400', async () => {
    const answer = await sendRaw('GET /functions/v1/health HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 422 /);
    expect(head.toLowerCase()).toContain('content-type: application/json');
    expect(JSON.parse(body).error).toMatchObject({ code: 'invalid_field', field: 'headers' });
  });
});

describe('dot segments in the path', () => {
  it('never let a path under one function reach another: /claims/%2e%2e/properties is 404, not the homes', async () => {
    const t = await createTenant('provider');
    expect((await send('GET', '/properties', t.sandbox)).status).toBe(200);
    for (const path of ['/claims/%2e%2e/properties', '/claims/%2E%2E/properties', '/claims/../properties', '/claims/./x/%2e%2e/%2e%2e/properties', '/usage/%2e%2e/properties?limit=1']) {
      const res = await send('GET', path, t.sandbox);
      expect(res.status, path).toBe(404);
      expect(res.body.error, path).toMatchObject({ code: 'not_found' });
      expect(res.body.data, path).toBeUndefined();
    }
  });
});

describe('bodies on routes that declare none', () => {
  it('are refused (422 invalid_field on body), except nothing or {}, and the write does not happen', async () => {
    const t = await createTenant('carrier');
    const created = await call('POST', '/webhooks', { key: t.sandbox, body: { url: 'https://hooks.example.com/body-check' } });
    expect(created.status).toBe(201);
    const rotate = `/webhooks/${created.body.data.id}/rotate-secret`;
    for (const body of ['{"secret":"mine"}', 'not json', '[]', 'null']) {
      const res = await call('POST', rotate, { key: t.sandbox, body, headers: { 'content-type': 'application/json' } });
      expect(res.status, body).toBe(422);
      expect(errorOf(res.body), body).toMatchObject({ code: 'invalid_field', field: 'body' });
    }
    const listed = await call('GET', '/webhooks', { key: t.sandbox });
    expect(listed.body.data[0].secret_rotated_at).toBeNull();
    for (const body of [undefined, '', '{}', ' { } ']) {
      const res = await call('POST', rotate, { key: t.sandbox, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
      expect(res.status, String(body)).toBe(200);
    }
  });
});

describe('the local gateway over a real socket', () => {
  it('hands a path to its function with the query, offers the OpenAPI document at the contract address, and answers 404 elsewhere', async () => {
    const t = await createTenant('carrier');
    const page = await send('GET', '/claims?limit=1', t.live);
    expect(page.status).toBe(200);
    expect(page.body.data).toEqual([]);
    const refused = await send('GET', '/claims?limit=0', t.live);
    expect(refused.status).toBe(422);
    expect(errorOf(refused.body).field).toBe('limit');
    expect((await send('GET', '/openapi.json', t.live)).body.openapi).toMatch(/^3\./);
    for (const path of ['/nothing/here', '/constructor', '/toString/x']) {
      const nowhere = await send('GET', path, t.live);
      expect(nowhere.status, path).toBe(404);
      expect(errorOf(nowhere.body).message).toContain(`/functions/v1${path}`);
    }
  });

  it('counts a failed key against the connection address, whatever X-Forwarded-For the client sends', async () => {
    for (let attempt = 0; ; attempt++) {
      const first = await send('GET', '/claims', 'svc_pk_wrong', { 'x-forwarded-for': '203.0.113.1' });
      const second = await send('GET', '/claims', 'svc_pk_wrong', { 'X-Forwarded-For': '203.0.113.2, 10.0.0.1' });
      expect([first.status, second.status]).toEqual([401, 401]);
      // A new minute between the two restarts the count: try again.
      if (first.headers['x-ratelimit-reset'] !== second.headers['x-ratelimit-reset'] && attempt < 2) continue;
      // Each forged address would have had a fresh count of its own; one address counts both.
      expect(Number(second.headers['x-ratelimit-remaining'])).toBeLessThan(Number(first.headers['x-ratelimit-remaining']));
      return;
    }
  });
});
