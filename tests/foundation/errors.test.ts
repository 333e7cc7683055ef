import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, createTenant } from '../helpers.ts';
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
    expect(missing.error).toEqual({ code: 'invalid_field', message: 'note is required.', field: 'note' });
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
