import { describe, expect, it } from 'vitest';
import { call, createTenant, errorOf } from './helpers.ts';

describe('health', () => {
  it('answers without a key', async () => {
    const res = await call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'ok' } });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('trailing slashes', () => {
  it('name the same route as without', async () => {
    const res = await call('GET', '/health/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'ok' } });
  });

  it('answer an authenticated group with its route', async () => {
    const tenant = await createTenant('carrier');
    const plain = await call('GET', '/webhooks', { key: tenant.live });
    const slashed = await call('GET', '/webhooks/', { key: tenant.live });
    expect(plain.status).toBe(200);
    expect(slashed.status).toBe(200);
    expect(slashed.body).toEqual(plain.body);
  });

  it('leave an unknown path a JSON 404 naming it', async () => {
    for (const path of ['/health/nothing/', '/nothing/', '/']) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(errorOf(res.body).code, path).toBe('not_found');
      expect(errorOf(res.body).message, path).toContain(`/functions/v1${path}`);
    }
  });
});
