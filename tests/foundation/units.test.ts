import { describe, expect, it } from 'vitest';
import { databaseTarget, usesTransactionPooler } from '../../shared/db/client.ts';
import { decodeCursor, encodeCursor, page } from '../../shared/http/paging.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { environmentOfKey, generateApiKey } from '../../shared/keys.ts';
import { allows } from '../../shared/http/scopes.ts';
import { Hono } from 'hono';
import { setResponseHeaders } from '../../shared/http/headers.ts';

describe('database client', () => {
  it("recognises Supabase's transaction pooler, where prepared statements are off", () => {
    expect(usesTransactionPooler('postgres://u:p@aws-0-eu.pooler.supabase.com:6543/postgres')).toBe(true);
    expect(usesTransactionPooler('postgres://u:p@db.example:5432/postgres?pgbouncer=true')).toBe(true);
    expect(usesTransactionPooler('postgres://u:p@127.0.0.1:5432/postgres')).toBe(false);
  });

  it('takes pgbouncer=true out of what the server is sent, and leaves every other part as written', () => {
    expect(databaseTarget('postgres://u:p@db.example:5432/postgres?pgbouncer=true')).toEqual({ url: 'postgres://u:p@db.example:5432/postgres', pooled: true });
    expect(databaseTarget('postgres://u:p%40ss@db.example:6543/postgres?sslmode=require&pgbouncer=true&options=-c%20search_path%3Dapp'))
      .toEqual({ url: 'postgres://u:p%40ss@db.example:6543/postgres?sslmode=require&options=-c+search_path%3Dapp', pooled: true });
    // pgbouncer=false is no pooler mark, and still no startup parameter.
    expect(databaseTarget('postgres://u:p@db.example:5432/postgres?pgbouncer=false')).toEqual({ url: 'postgres://u:p@db.example:5432/postgres', pooled: false });
    // A multi-host URL (read by the driver, not by WHATWG's parser) keeps its hosts.
    expect(databaseTarget('postgres://u:p@h1:5432,h2:5432/postgres?pgbouncer=true')).toEqual({ url: 'postgres://u:p@h1:5432,h2:5432/postgres', pooled: true });
    expect(databaseTarget('postgres://u:p@127.0.0.1:5432/postgres')).toEqual({ url: 'postgres://u:p@127.0.0.1:5432/postgres', pooled: false });
  });
});

describe('cursors', () => {
  it('are opaque base64url and round-trip their key', () => {
    const cursor = encodeCursor(['2026-11-21T10:00:00.000Z', 'a6b0e1f2-0000-4000-8000-000000000000']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 2)).toEqual(['2026-11-21T10:00:00.000Z', 'a6b0e1f2-0000-4000-8000-000000000000']);
  });

  it('refuse anything else with 422 on cursor', () => {
    for (const bad of ['%%%', encodeCursor(['only-one']), 'eyJ4IjoxfQ']) {
      expect(() => decodeCursor(bad, 2)).toThrow(ApiError);
      try {
        decodeCursor(bad, 2);
      } catch (error) {
        expect((error as ApiError).field).toBe('cursor');
        expect((error as ApiError).status).toBe(422);
      }
    }
  });

  it('page() cuts the extra row and points the cursor at the last row kept', () => {
    const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    const { items, nextCursor } = page(rows, 2, (r) => [r.id]);
    expect(items.map((r) => r.id)).toEqual(['a', 'b']);
    expect(decodeCursor(nextCursor!, 1)).toEqual(['b']);
    expect(page(rows, 3, (r) => [r.id]).nextCursor).toBeNull();
  });
});

describe('keys and scopes', () => {
  it('keys carry their environment in the prefix', () => {
    expect(environmentOfKey(generateApiKey('live'))).toBe('live');
    expect(environmentOfKey(generateApiKey('sandbox'))).toBe('sandbox');
    expect(environmentOfKey('sk_live_123')).toBeUndefined();
  });

  it('apply the shared-surface rules', () => {
    expect(allows('any-read', ['claims:write'])).toBe(false);
    expect(allows('any-read', ['payouts:read'])).toBe(true);
    expect(allows('any-write', ['properties:write'])).toBe(true);
    expect(allows('manage-webhooks', ['webhooks:manage'])).toBe(true);
    expect(allows('manage-webhooks', ['claims:read'])).toBe(false);
    expect(allows('manage-webhooks', ['options:write'])).toBe(true);
    expect(allows('read-webhooks', ['webhooks:manage'])).toBe(true);
    expect(allows('none', [])).toBe(true);
  });
});

describe('headers set on a finished response', () => {
  const appAnswering = (answer: (c: import('hono').Context) => Response) => {
    const app = new Hono();
    const seen: Response[] = [];
    app.use('*', async (c, next) => {
      await next();
      seen.push(c.res);
      setResponseHeaders(c, { 'X-Request-Id': 'req_1', 'X-RateLimit-Limit': '600' });
      seen.push(c.res);
    });
    app.get('/', answer);
    return { app, seen };
  };

  it('are set in place on a response the functions built', async () => {
    const { app, seen } = appAnswering((c) => c.json({ ok: true }, 201));
    const res = await app.request('/');
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('req_1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(await res.json()).toEqual({ ok: true });
    expect(seen[1]).toBe(seen[0]);
  });

  it('are set on a copy of a response whose headers are immutable, body and status kept', async () => {
    const { app, seen } = appAnswering(() => Response.redirect('https://example.com/next', 302));
    const res = await app.request('/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/next');
    expect(res.headers.get('x-request-id')).toBe('req_1');
    expect(seen[1]).not.toBe(seen[0]);
  });
});
