import { describe, expect, it } from 'vitest';
import { call } from './helpers.ts';

describe('health', () => {
  it('answers without a key', async () => {
    const res = await call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'ok' } });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
