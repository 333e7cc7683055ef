// What the live adapters share: one JSON call to a provider's REST API over fetch (injectable, so tests
// use a stand-in transport), with the provider's own message on every failure, the "not configured"
// error of a missing setting, and a constant-time comparison of secrets.

export type Transport = typeof fetch;

/** A setting the adapter needs is missing: the durable job that called it fails, logs this and retries. */
export class NotConfigured extends Error {
  constructor(what: string, setting: string) {
    super(`${what} not configured: set ${setting}`);
    this.name = 'NotConfigured';
  }
}

/** The provider refused or could not be reached. `status` is the HTTP status (absent on a network failure). */
export class ProviderError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'ProviderError';
  }
}

export function required(value: string | undefined, what: string, setting: string): string {
  if (!value) throw new NotConfigured(what, setting);
  return value;
}

export interface ProviderRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

const defaultTimeoutMs = 15_000;

/** Sends one request and returns the parsed JSON answer; throws ProviderError on a network failure or a non-2xx answer. */
export async function callProvider(provider: string, transport: Transport | undefined, request: ProviderRequest): Promise<unknown> {
  const what = `${provider} ${request.method} ${new URL(request.url).pathname}`;
  let response: Response;
  try {
    response = await (transport ?? fetch)(request.url, {
      method: request.method,
      headers: request.body === undefined ? request.headers : { ...request.headers, 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(defaultTimeoutMs),
    });
  } catch (error) {
    throw new ProviderError(`${what} failed: ${(error as Error)?.message || String(error)}`);
  }
  const text = await response.text();
  const body = parseJson(text);
  if (!response.ok) throw new ProviderError(`${what} answered ${response.status}: ${providerMessage(body, text)}`, response.status);
  return body;
}

/** A file from a provider (a signed document): its bytes, or the provider's error as for callProvider. */
export async function fetchProviderFile(provider: string, transport: Transport | undefined, request: Omit<ProviderRequest, 'method' | 'body'>): Promise<Uint8Array> {
  const what = `${provider} GET ${new URL(request.url).pathname}`;
  let response: Response;
  try {
    response = await (transport ?? fetch)(request.url, { method: 'GET', headers: request.headers, signal: AbortSignal.timeout(defaultTimeoutMs) });
  } catch (error) {
    throw new ProviderError(`${what} failed: ${(error as Error)?.message || String(error)}`);
  }
  if (!response.ok) {
    const text = await response.text();
    throw new ProviderError(`${what} answered ${response.status}: ${providerMessage(parseJson(text), text)}`, response.status);
  }
  return new Uint8Array(await response.arrayBuffer());
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The provider's explanation: `message` (Documenso, Resend), else `error`, else the start of the raw answer. */
function providerMessage(body: unknown, text: string): string {
  if (body && typeof body === 'object') {
    const { message, error } = body as { message?: unknown; error?: unknown };
    if (typeof message === 'string' && message) return message;
    if (typeof error === 'string' && error) return error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  }
  return text.slice(0, 300) || 'no explanation given';
}

const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Whether two secrets are equal, in time that depends on neither: both are hashed to 32 bytes first
 * (so their lengths leak nothing) and every byte is compared whatever the first difference.
 */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([given, expected].map(async (s) => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(s)))));
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}
