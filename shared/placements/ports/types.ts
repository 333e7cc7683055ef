// The third parties of the placement lifecycle, as narrow ports. Each has a live adapter (a real
// provider's API over fetch, so it runs on the Edge Runtime) and a sandbox adapter that contacts
// nobody. A sandbox key always gets the sandbox adapters (see ./index.ts): no real party is ever
// reached from sandbox.

/** One party asked to sign a contract, in signing order. */
export interface Signer {
  role: 'tenant' | 'landlord';
  name: string;
  email: string;
}

/** What the service sends for signature: one contract version of one placement. */
export interface ContractRequest {
  /** The service's id of this contract version (the lease agreement); the provider's callbacks carry it back. */
  leaseId: string;
  title: string;
  /** The home, the household and the dates, as the contract template needs them. */
  fields: Record<string, string>;
  signers: Signer[];
}

export interface SentContract {
  /** The e-signature provider's own id of the envelope or document. */
  providerRef: string;
}

/** A signature or refusal reported by the e-signature provider's callback, once verified. */
export interface SignatureCallback {
  providerRef: string;
  /** The service's lease id, when the provider echoes it back. */
  leaseId?: string;
  kind: 'signed' | 'declined';
  role: Signer['role'];
  at: Date;
}

export interface ESignaturePort {
  readonly kind: 'live' | 'sandbox';
  /** Creates the contract and sends it to the first signer. Throws on a provider failure (the job retries). */
  send(contract: ContractRequest): Promise<SentContract>;
  /** Withdraws an unsigned contract so its signature links stop working. Idempotent. */
  withdraw(providerRef: string, reason: string): Promise<void>;
  /**
   * Verifies a callback's signature over its raw body and reads it; returns null when the callback
   * is about something the service does not act on. Throws CallbackRejected when the signature fails.
   */
  readCallback(headers: Headers, rawBody: string): Promise<SignatureCallback | null>;
}

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  /** Why the message was sent (placement.offered, lease.sent, booking.cancelled, ...), for the record. */
  topic: string;
}

export interface EmailPort {
  readonly kind: 'live' | 'sandbox';
  /** Sends one message; returns the provider's message id. Throws on a provider failure (the job retries). */
  send(message: EmailMessage): Promise<{ providerRef: string }>;
}

/** A callback whose signature does not verify: answered 401 and never acted on. */
export class CallbackRejected extends Error {}
