/**
 * Verifies a webhook delivery of the Housing Placement Service (X-Service-Signature, scheme v1).
 *
 * Copy this function into your receiver: it has no dependencies and runs wherever global WebCrypto
 * does (Node 19+, Deno, Bun, Cloudflare Workers; verify-signature.mjs is the plain JavaScript copy,
 * which also runs on Node 18). Pass the raw body exactly as received, before any JSON parsing, the
 * X-Service-Signature header, and your endpoint's secret (`whsec_...`). While you rotate a secret,
 * pass both the new and the old one: deliveries queued before the rotation keep the old.
 *
 * Returns true only when a v1 signature matches and its timestamp is within `toleranceSeconds`
 * (default 300) of your clock. Signatures are compared in constant time.
 */
export async function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secrets: string | string[],
  options: { toleranceSeconds?: number; nowMs?: number } = {},
): Promise<boolean> {
  if (!signatureHeader) return false;
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of signatureHeader.split(',')) {
    const separator = part.indexOf('=');
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't') timestamp = value;
    if (name === 'v1') candidates.push(value.toLowerCase());
  }
  if (!timestamp || !/^\d+$/.test(timestamp) || candidates.length === 0) return false;
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;

  const encoder = new TextEncoder();
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  let matched = false;
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
    const expected = Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
    for (const candidate of candidates) {
      // Constant time: every character is compared, whatever the first difference.
      let difference = expected.length ^ candidate.length;
      for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ candidate.charCodeAt(i);
      matched = matched || difference === 0;
    }
  }
  return matched;
}
