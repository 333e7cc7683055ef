// Signing of webhook deliveries (specification, "Events"): X-Service-Signature is
// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the endpoint's secret
// exactly as issued (`whsec_` prefix included) as UTF-8 bytes.
// Receivers verify with the helper in verify-signature.ts.

const encoder = new TextEncoder();

/** Imports HMAC keys once per secret; a dispatcher run signs many deliveries with few secrets. */
export class Signer {
  private readonly keys = new Map<string, Promise<CryptoKey>>();

  private key(secret: string): Promise<CryptoKey> {
    let key = this.keys.get(secret);
    if (!key) {
      key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      this.keys.set(secret, key);
    }
    return key;
  }

  /** The X-Service-Signature value for `body` sent at `unixSeconds`. */
  async header(secret: string, body: string, unixSeconds: number): Promise<string> {
    const mac = await crypto.subtle.sign('HMAC', await this.key(secret), encoder.encode(`${unixSeconds}.${body}`));
    const hex = Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, '0')).join('');
    return `t=${unixSeconds},v1=${hex}`;
  }
}
