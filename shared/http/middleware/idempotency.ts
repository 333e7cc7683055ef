import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { withTenant } from '../../db/tenant.ts';
import { sha256Hex } from '../../keys.ts';
import { log, errorFields } from '../../log.ts';

export const maxIdempotencyKeyLength = 255;

interface StoredKey {
  fingerprint: string;
  state: 'in_progress' | 'applied' | 'done';
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
  /** Whether the first call's claim is still held (renewed while it runs). */
  running: boolean;
}

/** Keys are sorted so that the same JSON with another key order or spacing is the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A multipart body without its boundary, which clients draw afresh for every attempt (latin1 keeps every byte). */
function withoutBoundary(body: Uint8Array, contentType: string | undefined): Uint8Array | string {
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  return boundary ? new TextDecoder('latin1').decode(body).split(boundary).join('') : body;
}

/**
 * What makes two requests "the same": method, path and body (JSON compared by value, multipart by
 * its parts), whichever API key of the organisation and environment sent them, as the specification
 * scopes keys to the organisation: while a client rotates its API key, both keys are one client and
 * a retry sent with the new one replays the first answer. The route's scope is checked before this
 * (defineRoute), so only a key that may make the call sees its answer.
 */
async function fingerprint(method: string, path: string, body: Uint8Array, contentType: string | undefined): Promise<string> {
  let canonical: string | Uint8Array = withoutBoundary(body, contentType);
  const text = new TextDecoder().decode(body);
  try {
    canonical = canonicalJson(JSON.parse(text));
  } catch {
    // not JSON: compare the raw bytes
  }
  return `${method} ${path} ${await sha256Hex(canonical)}`;
}

/**
 * An answer as it is stored for replay: a secret it issued (a webhook endpoint's signing secret, at
 * creation or rotation) is shown once, to the call that made it, and replaced by null in the stored
 * copy, with a note saying why, as the guides say. The replay answers the same resource, so a retry
 * learns the call is done without the secret reaching a second caller or the table.
 */
function withoutSecret(body: string): string {
  if (!body.includes('"secret"')) return body;
  try {
    const parsed = JSON.parse(body) as { data?: { secret?: unknown; secret_note?: unknown } };
    if (!parsed.data || typeof parsed.data.secret !== 'string') return body;
    parsed.data.secret = null;
    parsed.data.secret_note = 'A replay of the call that issued the secret: the secret is shown only once, to that call. Rotate it if it was lost.';
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

/**
 * The specification's Idempotency section: per organisation and environment (any of its API keys
 * holding the route's scope), 48 hours; the same key and body replay the first response byte for
 * byte (but an issued secret, see withoutSecret); a different body is 409 idempotency_key_reused;
 * a call still running is 409 request_in_progress; a 500 releases the key; a 4xx is replayed.
 * The claim's lock is short and renewed while the call runs (claimTiming), so a claim left by a
 * server that died (killed, crashed) is taken over within its lock, not after the longest a call
 * could ever take.
 *
 * A write's change and the key commit together: the caller this middleware hands on carries the key,
 * and its write transaction marks the key applied before committing (shared/db/tenant.ts). A key
 * applied is never claimed again: while its call runs a retry gets request_in_progress, and if the
 * server stopped before the answer was stored, 409 idempotent_answer_lost (the change is done; it is
 * not made twice). A 500 releases a key only while nothing of its call committed.
 */
/** How long a call's claim on its key holds without renewal, and how often a running call renews it. */
export const claimTiming = { lockSeconds: 30, renewSeconds: 10 };

export const idempotency = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const key = c.req.header('idempotency-key');
  // Mounted on writes only (defineRoute), after the route's scope check.
  if (key === undefined) return next();
  if (key.length > maxIdempotencyKeyLength) {
    throw new ApiError('idempotency_key_too_long', `Idempotency-Key is ${key.length} characters; at most ${maxIdempotencyKeyLength} are allowed.`, 'Idempotency-Key');
  }
  if (key.length === 0) throw new ApiError('invalid_field', 'Idempotency-Key must not be empty.', 'Idempotency-Key');
  const caller = c.get('caller');
  const print = await fingerprint(c.req.method, new URL(c.req.url).pathname, c.get('rawBody'), c.req.header('content-type'));

  const existing = await withTenant(caller, async (tx) => {
    const claimed = await tx`
      insert into app.idempotency_keys as k (org_id, environment, key, fingerprint, state, locked_until)
      values (${caller.orgId}, ${caller.environment}, ${key}, ${print}, 'in_progress', now() + ${claimTiming.lockSeconds} * interval '1 second')
      on conflict (org_id, environment, key) do update
        set fingerprint = excluded.fingerprint, state = 'in_progress', locked_until = excluded.locked_until,
            created_at = now(), response_status = null, response_content_type = null, response_body = null
        where k.created_at < now() - interval '48 hours'
           or (k.state = 'in_progress' and k.locked_until < now())
      returning 1`;
    if (claimed.length) return undefined;
    const [row] = await tx<StoredKey[]>`
      select fingerprint, state, response_status, response_content_type, response_body, locked_until > now() as running
        from app.idempotency_keys where org_id = ${caller.orgId} and environment = ${caller.environment} and key = ${key}`;
    return row;
  });

  if (existing) {
    if (existing.fingerprint !== print) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different method, path or request body.', 'Idempotency-Key');
    }
    if (existing.state === 'in_progress' || (existing.state === 'applied' && existing.running)) {
      throw new ApiError('request_in_progress', 'The first request with this Idempotency-Key is still running; retry shortly.', 'Idempotency-Key');
    }
    if (existing.state === 'applied') {
      throw new ApiError('idempotent_answer_lost',
        'The first request with this Idempotency-Key made its change, but the server stopped before keeping its answer. The change is done and is not made again: read the resource to see it.',
        'Idempotency-Key');
    }
    c.res = new Response(existing.response_body, {
      status: existing.response_status!,
      headers: { 'content-type': existing.response_content_type ?? 'application/json', 'Idempotent-Replayed': 'true' },
    });
    return;
  }

  // A 500 frees the key for a retry only when nothing of its call committed; one that did ends its
  // claim at once, so a retry learns the change is done rather than waiting.
  const release = () =>
    withTenant(caller, (tx) => tx`
      with released as (
        delete from app.idempotency_keys
         where org_id = ${caller.orgId} and environment = ${caller.environment} and key = ${key} and state = 'in_progress')
      update app.idempotency_keys set locked_until = now()
       where org_id = ${caller.orgId} and environment = ${caller.environment} and key = ${key} and state = 'applied'`);
  // The handlers' transactions carry the key (see above).
  c.set('caller', { ...caller, idempotencyKey: key });
  // While the call runs its claim is renewed; it stops with the call (or with the process).
  const renew = setInterval(() => {
    withTenant(caller, (tx) => tx`
      update app.idempotency_keys set locked_until = now() + ${claimTiming.lockSeconds} * interval '1 second'
       where org_id = ${caller.orgId} and environment = ${caller.environment} and key = ${key} and state in ('in_progress', 'applied')`)
      .catch((error) => log.warn('idempotency claim not renewed', { request_id: c.get('requestId'), ...errorFields(error) }));
  }, claimTiming.renewSeconds * 1000);
  // Errors are rendered by the error handler before next() returns, so c.res is final here.
  try {
    await next();
  } finally {
    clearInterval(renew);
  }
  const status = c.res.status;
  if (status >= 500) {
    await release();
    return;
  }
  const body = withoutSecret(await c.res.clone().text());
  await withTenant(caller, (tx) => tx`
    update app.idempotency_keys
       set state = 'done', locked_until = null, response_status = ${status},
           response_content_type = ${c.res.headers.get('content-type')}, response_body = ${body}
     where org_id = ${caller.orgId} and environment = ${caller.environment} and key = ${key}`).catch((error) => {
    log.error('idempotency record not saved', { request_id: c.get('requestId'), ...errorFields(error) });
  });
};
