import type { Context, MiddlewareHandler } from 'hono';
import { config } from '../../config.ts';
import type { AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { setResponseHeaders } from '../headers.ts';
import { db } from '../../db/client.ts';
import { log, errorFields } from '../../log.ts';
import { environmentOfKey, sha256Hex } from '../../keys.ts';
import type { Environment, Side } from '../../db/tenant.ts';

interface AuthRow {
  key_id: string | null;
  org_id: string | null;
  side: Side | null;
  environment: Environment | null;
  scopes: string[] | null;
  rate_limit: number;
  rate_count: number;
  rate_reset: Date;
  limiter_ok: boolean;
}

function presentedKey(authorization: string | undefined, apiKeyHeader: string | undefined): string | undefined {
  if (apiKeyHeader) return apiKeyHeader.trim();
  const match = authorization?.match(/^Bearer\s+(.+)$/i);
  return match?.[1].trim();
}

/**
 * The client address the failed-authentication limit counts by: the X-Forwarded-For hop the
 * platform vouches for. A client may send any X-Forwarded-For of its own; each trusted proxy appends
 * the address it saw, so the hop CLIENT_ADDRESS_HOP from the right (default 1: the last, appended by
 * Supabase's edge or the local server) is the one no client can choose. An address longer than an
 * IPv6 address, or not made of address characters, counts as one address, "invalid".
 */
export function clientAddress(forwardedFor: string | undefined, hop = config.clientAddressHop()): string {
  const hops = (forwardedFor ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');
  const address = hops[hops.length - hop] ?? hops[0];
  if (!address) return 'unknown';
  return address.length <= 45 && /^[0-9A-Fa-f:.]+$/.test(address) ? address : 'invalid';
}

/**
 * Authenticates and counts the request in one statement (app.authenticate: its window lives in an
 * unlogged table and commits without waiting for a flush). A limiter fault fails that statement
 * (a window row locked past its lock_timeout, say); the request then passes uncounted, authenticated
 * by app.authenticate_uncounted, and the fault is logged.
 */
async function authenticated(hash: string, address: string): Promise<AuthRow> {
  try {
    const [row] = await db()<AuthRow[]>`select * from app.authenticate(${hash}, ${address})`;
    return row;
  } catch (error) {
    log.warn('rate limiter failed; request passes uncounted', errorFields(error));
    const [row] = await db()<AuthRow[]>`select * from app.authenticate_uncounted(${hash})`;
    return row;
  }
}

/**
 * The hashes of keys that authenticated lately, so that a busy key is hashed once per process, not
 * once per request: WebCrypto's digest is asynchronous, and on Node it costs about as much as the rest
 * of the middleware. Only the hash is looked up, every request, so a revoked key fails at once. At
 * most `rememberedKeys` are kept, the oldest dropped first; keys that fail are never kept, so
 * guessing cannot crowd out the keys in use.
 */
const rememberedKeys = 10_000;
const keyHashes = new Map<string, string>();

async function hashOf(key: string): Promise<string> {
  return keyHashes.get(key) ?? (await sha256Hex(key));
}

function remember(key: string, hash: string) {
  if (keyHashes.has(key)) return;
  if (keyHashes.size >= rememberedKeys) keyHashes.delete(keyHashes.keys().next().value!);
  keyHashes.set(key, hash);
}

/** A counted request's rate headers, and how a refusal carries them; throws the 429 when its window is spent. */
function limitOf(c: Context<AppEnv>, row: AuthRow) {
  const remaining = row.limiter_ok ? Math.max(0, row.rate_limit - row.rate_count) : row.rate_limit;
  const rateHeaders = {
    'X-RateLimit-Limit': String(row.rate_limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': row.rate_reset.toISOString(),
  };
  // A refusal here (429, 401) is rendered from the headers c.header() prepares; the response the
  // work produces gets them in place afterwards, however it was built (a replayed idempotent one too).
  const refused = (error: ApiError) => {
    for (const [name, value] of Object.entries(rateHeaders)) c.header(name, value);
    return error;
  };

  if (row.limiter_ok && row.rate_count > row.rate_limit) {
    const retryAfter = Math.max(1, Math.ceil((row.rate_reset.getTime() - Date.now()) / 1000));
    c.header('Retry-After', String(retryAfter));
    throw refused(new ApiError('rate_limited', `Rate limit of ${row.rate_limit} requests per minute exceeded; retry after ${retryAfter} s.`));
  }
  return { rateHeaders, refused };
}

/** Authentication and rate limiting in one database round trip. Sets X-RateLimit-* on every response, including errors. */
export const authenticate = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const key = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
  // Only well-formed keys are hashed and looked up; anything else counts as a failed attempt.
  const hash = key && environmentOfKey(key) ? await hashOf(key) : '';
  const row = await authenticated(hash, clientAddress(c.req.header('x-forwarded-for')));
  const { rateHeaders, refused } = limitOf(c, row);
  if (!row.key_id) {
    if (!key) throw refused(new ApiError('missing_key', 'Send an API key as "Authorization: Bearer <key>" or "x-api-key: <key>".'));
    throw refused(new ApiError('invalid_key', 'The API key is not a valid, active organisation key.'));
  }
  remember(key!, hash);
  c.set('caller', {
    keyId: row.key_id,
    orgId: row.org_id!,
    side: row.side!,
    environment: row.environment!,
    scopes: row.scopes!,
    readsOnly: c.req.method === 'GET' || c.req.method === 'HEAD',
  });
  await next();
  setResponseHeaders(c, rateHeaders);
};

/**
 * The failed-authentication limit of API keys, for a caller that proves itself with a shared secret
 * instead of a key (the e-signature provider's callback): each call counts in its address's window
 * before the secret is compared, as a call without a valid key does, so that a guesser is refused
 * (429) with the same answer whether its next guess is right or wrong. The window is the caller's
 * own (`window`, with the address), so the limit holds the same as for keys without sharing a count.
 */
export const limitByAddress = (window: string): MiddlewareHandler<AppEnv> => async (c, next) => {
  // A window of its own per caller and address (the same limit as failed API keys): a burst of
  // callbacks never refuses an API client behind the same address, nor the other way round.
  const { rateHeaders } = limitOf(c, await authenticated('', `${window} ${clientAddress(c.req.header('x-forwarded-for'))}`));
  await next();
  setResponseHeaders(c, rateHeaders);
};
