import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { duplicateKey } from '../json-keys.ts';
import { maxDocumentBytes } from '../../values.ts';

/** The largest body the API reads: the document limit of the specification (defined with the values). */
export const maxBodyBytes = maxDocumentBytes;

/** A multipart upload may add its framing (boundaries, part headers, small fields) to a document of the full limit. */
const multipartFramingBytes = 64 * 1024;

/** Nothing, whitespace, or an empty JSON object (some clients send {} on every POST). */
const isEmptyBody = (bytes: Uint8Array) => /^\s*(\{\s*\})?\s*$/.test(new TextDecoder().decode(bytes));

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, or undefined when they are not valid UTF-8. */
function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether the text parses as JSON: asked only of a body with a key named twice, so that a malformed
 * body is refused as malformed (by the validator), not for a duplicate its scan imagined. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const tooLarge = () => new ApiError('file_too_large', 'The request body is larger than the 10 MB limit.');

/** Reads a stream to its end, refusing it as soon as it passes `limit` bytes. */
async function readWithin(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads the body of a write once, never buffering more than the limit, and caches it for the
 * validators, c.req.formData() and the idempotency fingerprint.
 */
export const readBody = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
  const limit = maxBodyBytes + (/^multipart\/form-data/i.test(c.req.header('content-type') ?? '') ? multipartFramingBytes : 0);
  const declared = c.req.header('content-length');
  if (Number(declared ?? '0') > limit) throw tooLarge();
  // A body of a declared length (within the limit) cannot be longer than declared, so it is read
  // whole, which on Node skips the web stream; a body without one is read within the limit.
  const bytes = declared === undefined ? await readWithin(c.req.raw.body, limit) : new Uint8Array(await c.req.raw.arrayBuffer());
  if (bytes.byteLength > limit) throw tooLarge();
  if (c.get('takesBody') === false && !isEmptyBody(bytes)) {
    throw new ApiError('invalid_field', `${c.req.method} ${new URL(c.req.url).pathname} takes no body; send none (or {}).`, 'body');
  }
  // JSON is UTF-8 (RFC 8259): a body that is not would be read with U+FFFD in place of its bytes and
  // stored changed, so it is refused as unreadable instead.
  if (/^application\/(.+\+)?json/i.test(c.req.header('content-type') ?? '')) {
    const text = utf8Text(bytes);
    if (text === undefined) throw new ApiError('invalid_json', 'The body is not valid UTF-8; JSON must be sent as UTF-8.');
    refuseKeysNamedTwice(text);
    // c.req.json() reads the cached text; with only the bytes cached, Hono would decode them again
    // through a Response built around them (a web stream on Node) on every JSON request.
    c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
  }
  c.set('rawBody', bytes);
  // Hono caches body promises (typed as values); c.req.json() and c.req.formData() read from here.
  c.req.bodyCache.arrayBuffer = Promise.resolve(bytes.buffer) as unknown as ArrayBuffer;
  await next();
};

/**
 * Refuses (400 invalid_json) a JSON text that names a key twice in one object: JSON.parse keeps the
 * last, while a log, a gateway or the sender's own check may have read the first.
 */
export function refuseKeysNamedTwice(text: string): void {
  const twice = duplicateKey(text);
  if (twice !== undefined && isJson(text)) throw new ApiError('invalid_json', `The body names ${twice} twice; send each key once.`, twice);
}

/**
 * A small body limit for the service's pages and the third parties' callbacks (a form of a few
 * fields, a provider's event): the body is read once within `limit` bytes and cached for the
 * handler; past it, `refuse` answers (an HTML page, or the API's envelope) and nothing more is read.
 */
export const boundedBody = (limit: number, refuse: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => Response | Promise<Response>): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    if (Number(c.req.header('content-length') ?? '0') > limit) return refuse(c);
    let bytes: Uint8Array;
    try {
      bytes = await readWithin(c.req.raw.body, limit);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'file_too_large') return refuse(c);
      throw error;
    }
    c.req.bodyCache.arrayBuffer = Promise.resolve(bytes.buffer) as unknown as ArrayBuffer;
    await next();
  };
