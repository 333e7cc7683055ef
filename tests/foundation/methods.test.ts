// Methods a route does not declare, over a real socket: Node's adapter hands TRACE on as a GET
// (the Fetch API cannot carry it), and it must still answer 405 with Allow, never the GET's data.
import { request as httpRequest } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFetch } from '../../scripts/lib/router.ts';
import { freePort } from '../../scripts/lib/scratch.ts';
import { call, createTenant, errorOf } from '../helpers.ts';

let server: ServerType;
let port: number;

beforeAll(async () => {
  port = await freePort();
  server = serve({
    hostname: '127.0.0.1',
    port,
    fetch: (request, env: { incoming?: { socket?: { remoteAddress?: string } } }) => serverFetch(request, env.incoming?.socket?.remoteAddress),
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(method: string, path: string, key: string) {
  return new Promise<{ status: number; allow: string | undefined; body: any }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: `/functions/v1${path}`, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers.allow, body: text ? JSON.parse(text) : null }));
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
