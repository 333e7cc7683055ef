import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, createTenant, errorOf } from '../helpers.ts';
import { callProbe, failures } from './probe-app.ts';
import { route } from '../../scripts/lib/router.ts';

describe('error rendering', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('400 invalid_json for a body that is not JSON', async () => {
    const t = await createTenant('carrier');
    for (const body of ['{"note":', 'note=x']) {
      const res = await callProbe(t.sandbox, body);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).error.code).toBe('invalid_json');
    }
  });

  it('400 invalid_json for JSON that is not valid UTF-8: refused, never stored with replacement characters', async () => {
    const t = await createTenant('carrier');
    const text = new TextEncoder().encode('{"note":"caf\u00e9 ');
    const bytes = new Uint8Array([...text, 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    const res = await route(new Request('http://localhost/functions/v1/claims', {
      method: 'POST',
      headers: { authorization: `Bearer ${t.sandbox}`, 'content-type': 'application/json', 'x-forwarded-for': '10.250.0.2' },
      body: bytes,
    }));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('UTF-8') });
    // Valid UTF-8 (accents included) reads as JSON as before.
    expect(JSON.parse((await callProbe(t.sandbox, { note: 'café' })).text).data.note).toBe('café');
  });

  it('a JSON body is read as the text its UTF-8 check decoded: a leading byte order mark is dropped, not parsed', async () => {
    const t = await createTenant('carrier');
    const res = await callProbe(t.sandbox, '\ufeff{"note":"after a byte order mark"}');
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text).data.note).toBe('after a byte order mark');
  });

  it('422 invalid_field names the field, also for unknown fields', async () => {
    const t = await createTenant('carrier');
    const missing = JSON.parse((await callProbe(t.sandbox, {})).text);
    expect(missing.error).toEqual({ code: 'invalid_field', message: 'note is required.', field: 'note', doc_url: expect.stringMatching(/#error-invalid_field$/) });
    const unknown = JSON.parse((await callProbe(t.sandbox, { note: 'x', is_admin: true })).text);
    expect(unknown.error).toMatchObject({ code: 'invalid_field', field: 'is_admin' });
    const wrong = JSON.parse((await callProbe(t.sandbox, { note: 'x', delay_ms: -1 })).text);
    expect(wrong.error).toMatchObject({ code: 'invalid_field', field: 'delay_ms' });
  });

  it('413 for a body over 10 MB, without reading past the limit', async () => {
    const t = await createTenant('carrier');
    const res = await callProbe(t.sandbox, JSON.stringify({ note: 'x'.repeat(10 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error.code).toBe('file_too_large');
  });

  it('413 for a body longer than the length it declares (only an in-process Request can be)', async () => {
    const t = await createTenant('carrier');
    const res = await callProbe(t.sandbox, JSON.stringify({ note: 'x'.repeat(10 * 1024 * 1024) }), { 'content-length': '20' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error.code).toBe('file_too_large');
  });

  it('every write documents 413 file_too_large, and answers it in the documented shape', async () => {
    const document = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
    const writes = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).filter(([method]) => ['post', 'patch', 'delete', 'put'].includes(method)).map(([method, operation]) => ({ at: `${method} ${path}`, operation })));
    expect(writes.length).toBeGreaterThan(30);
    for (const { at, operation } of writes) {
      const documented = operation.responses['413']?.content?.['application/json']?.schema;
      expect(JSON.stringify(documented ?? null), at).toContain('file_too_large');
    }
    const t = await createTenant('carrier');
    const res = await call('POST', '/webhooks', { key: t.sandbox, body: JSON.stringify({ url: 'https://hooks.example.com/x', description: 'x'.repeat(10 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(errorOf(res.body)).toEqual({ code: 'file_too_large', message: 'The request body is larger than the 10 MB limit.', doc_url: expect.stringMatching(/#error-file_too_large$/) });
  });

  it('400 invalid_json for a JSON body that names a key twice, naming its path; nothing is done', async () => {
    const t = await createTenant('carrier');
    const post = (body: string) => call('POST', '/webhooks', { key: t.sandbox, body, headers: { 'content-type': 'application/json' } });
    const twice: [string, string][] = [
      ['{"url":"https://a.example.com/x","url":"https://b.example.com/y"}', 'url'],
      // The same key written with escapes is the same key.
      ['{"url":"https://a.example.com/x","\\u0075rl":"https://b.example.com/y"}', 'url'],
      ['{"url":"https://a.example.com/x","events":[],"extra":{"a":{"b":1,"c":[1,{"d":2}],"b":2}}}', 'extra.a.b'],
      ['{"url":"https://a.example.com/x","list":[{"k":1},{"k":1, "k" : 2}]}', 'list.1.k'],
      ['{"url":"https://a.example.com/x","description":"a \\" \\\\","description":"b"}', 'description'],
    ];
    for (const [body, field] of twice) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(errorOf(res.body), body).toEqual({ code: 'invalid_json', message: `The body names ${field} twice; send each key once.`, field, doc_url: expect.stringMatching(/#error-invalid_json$/) });
    }
    expect((await call('GET', '/webhooks', { key: t.sandbox })).body.data).toEqual([]);
    // The same name in different objects, or inside a string value, is no duplicate.
    const fine = await post(JSON.stringify({ url: 'https://hooks.example.com/fine', description: 'say "url": twice, \\ and "description":"x" \\', events: ['request.status_changed'] }));
    expect(fine.status).toBe(201);
    expect(fine.body.data.description).toBe('say "url": twice, \\ and "description":"x" \\');
    const nested = await post('{"url":"https://hooks.example.com/n","x":[{"url":1},{"url":2}]}');
    expect(errorOf(nested.body)).toMatchObject({ code: 'invalid_field', field: 'x' });
  });

  it('500 server_error without internals, logged as JSON with the request id', async () => {
    const t = await createTenant('carrier');
    vi.stubEnv('LOG_LEVEL', 'info');
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    failures.crashesLeft = 1;
    const res = await callProbe(t.sandbox, { note: 'x', fail: 'crash' }, { 'x-request-id': 'crash-1' });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text).error.code).toBe('server_error');
    expect(res.text).not.toContain('secret');
    const logged = lines.map((l) => JSON.parse(l));
    expect(logged.find((l) => l.message === 'unhandled error')).toMatchObject({ level: 'error', request_id: 'crash-1' });
    expect(logged.find((l) => l.message === 'request')).toMatchObject({ request_id: 'crash-1', status: 500, org_id: t.orgId });
  });

  it('every 500 carries a stable fingerprint in its log line and is counted under 5xx in GET /usage', async () => {
    const t = await createTenant('carrier');
    vi.stubEnv('LOG_LEVEL', 'error');
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    failures.crashesLeft = 2;
    for (const id of ['crash-a', 'crash-b']) {
      expect((await callProbe(t.sandbox, { note: 'x', fail: 'crash' }, { 'x-request-id': id })).status).toBe(500);
    }
    const crashes = lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'unhandled error');
    expect(crashes.map((l) => l.request_id)).toEqual(['crash-a', 'crash-b']);
    expect(crashes[0].fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(crashes[1].fingerprint).toBe(crashes[0].fingerprint);
    expect(crashes[0]).toMatchObject({ method: 'POST', path: '/probe/writes' });
    const usage = await call('GET', '/usage', { key: t.sandbox });
    const today = usage.body.data.key.days[0];
    expect(today['5xx']).toBe(2);
  });
});
