import type { Environment } from './db/tenant.ts';

// API keys: `svc_pk_` (live) or `svc_sk_` (sandbox) followed by 32 random base62 characters.
// Only the SHA-256 hash is stored.

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const keyPrefix: Record<Environment, string> = { live: 'svc_pk_', sandbox: 'svc_sk_' };

export function randomString(length: number, chars = alphabet): string {
  const out: string[] = [];
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % chars.length);
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out.push(chars[byte % chars.length]);
    }
  }
  return out.join('');
}

export function generateApiKey(environment: Environment): string {
  return keyPrefix[environment] + randomString(32);
}

export function environmentOfKey(key: string): Environment | undefined {
  if (key.startsWith(keyPrefix.live)) return 'live';
  if (key.startsWith(keyPrefix.sandbox)) return 'sandbox';
  return undefined;
}

export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
