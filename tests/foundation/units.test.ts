import { describe, expect, it } from 'vitest';
import { usesTransactionPooler } from '../../shared/db/client.ts';
import { decodeCursor, encodeCursor, page } from '../../shared/http/paging.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { environmentOfKey, generateApiKey } from '../../shared/keys.ts';
import { allows } from '../../shared/http/scopes.ts';

describe('database client', () => {
  it("recognises Supabase's transaction pooler, where prepared statements are off", () => {
    expect(usesTransactionPooler('postgres://u:p@aws-0-eu.pooler.supabase.com:6543/postgres')).toBe(true);
    expect(usesTransactionPooler('postgres://u:p@db.example:5432/postgres?pgbouncer=true')).toBe(true);
    expect(usesTransactionPooler('postgres://u:p@127.0.0.1:5432/postgres')).toBe(false);
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
