// The third parties of the placement lifecycle, as narrow ports. Each has a live adapter (a real
// provider's API over fetch, so it runs on the Edge Runtime) and a sandbox adapter that contacts
// nobody. A sandbox key always gets the sandbox adapters (see ./index.ts): no real party is ever
// reached from sandbox.

import type { Language } from '../../i18n/index.ts';
import type { EmailMessage } from '../../jobs/kinds.ts';

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
  /**
   * The household's language (the request's household_language as a catalogue reads it; English
   * when not stated): the provider's own signing emails are in it where it can write them.
   */
  language: Language;
  /** The home, the household and the dates, as the contract template needs them. */
  fields: Record<string, string>;
  signers: Signer[];
}

export interface SentContract {
  /** The e-signature provider's own id of the envelope or document. */
  providerRef: string;
}

/**
 * What a verified callback of the e-signature provider is taken to say: that something happened to
 * this document, nothing more. Documenso authenticates its callbacks by a static secret, not by a
 * signature over the body, so a body's claims (who signed, a refusal, when) are never acted on:
 * the document is read again at the provider (hasSigned) in a durable job.
 */
export interface ContractNotice {
  providerRef: string;
}

/** The order in which a contract is signed: the first signature, then the landlord's countersignature. */
export const signingOrder: Signer['role'][] = ['tenant', 'landlord'];

export interface ESignaturePort {
  readonly kind: 'live' | 'sandbox';
  /** Creates the contract and sends it to the first signer. Throws on a provider failure (the job retries). */
  send(contract: ContractRequest): Promise<SentContract>;
  /** Withdraws an unsigned contract so its signature links stop working. Idempotent. */
  withdraw(providerRef: string, reason: string): Promise<void>;
  /**
   * Verifies a callback's sender and reads which document it is about; returns null when the
   * callback is about something the service does not act on. Throws CallbackRejected when the
   * sender does not verify.
   */
  readCallback(headers: Headers, rawBody: string): Promise<ContractNotice | null>;
  /** The signed contract as a PDF, for the household to keep. Throws on a provider failure. */
  signedDocument(providerRef: string): Promise<Uint8Array>;
  /**
   * Whether the provider's own record of the document says this signer has signed: the only source
   * of a signature the service applies. Throws on a provider failure (the re-read job retries).
   */
  hasSigned(providerRef: string, role: Signer['role']): Promise<boolean>;
}

// The message the email port sends is the send_email job's payload, declared with the job kinds.
export type { EmailMessage };

export interface EmailPort {
  readonly kind: 'live' | 'sandbox';
  /** Sends one message; returns the provider's message id. Throws on a provider failure (the job retries). */
  send(message: EmailMessage): Promise<{ providerRef: string }>;
}

/** A callback whose signature does not verify: answered 401 and never acted on. */
export class CallbackRejected extends Error {}

/**
 * One charge the payer makes in the pay page: a direct charge on the landlord's own connected
 * account, the service's fee taken as the platform (application) fee. The service never holds money.
 */
export interface CheckoutRequest {
  /** The landlord's connected account at the processor (acct_...). */
  connectedAccount: string;
  amountCents: number;
  /** ISO currency, lower or upper case. */
  currency: string;
  /** The service fee on the rent in the charge (shared/properties/earnings.ts). */
  applicationFeeCents: number;
  /** What the payer reads at the processor's checkout. */
  description: string;
  /** Where the processor sends the payer back after paying or giving up. */
  successUrl: string;
  cancelUrl: string;
  /** When the checkout stops taking payment. */
  expiresAt: Date;
  /** Carried back on every notification about the charge (the service's payment id, placement id, environment). */
  metadata: Record<string, string>;
  /** The same key creates the same checkout at most once. */
  idempotencyKey: string;
}

export interface RefundRequest {
  connectedAccount: string;
  /** The processor's id of the charge's payment (pi_...). */
  paymentRef: string;
  amountCents: number;
  /** The service fee to return with it: the platform fee on the rent refunded (nothing on deposits or fees). */
  platformFeeCents: number;
  metadata: Record<string, string>;
  idempotencyKey: string;
}

/** Where someone at the provider finishes payout setup in a browser. */
export interface AccountLinkRequest {
  /** The provider's connected account, or undefined to create one first. */
  connectedAccount?: string;
  email?: string;
  refreshUrl: string;
  returnUrl: string;
}

/** A processor notification the service acts on, once its signature is verified. */
export type ProcessorNotification = { eventId: string; connectedAccount: string | null } & (
  | {
      kind: 'payment_succeeded' | 'payment_failed';
      paymentRef: string;
      amountCents: number;
      currency: string;
      metadata: Record<string, string>;
      failureMessage?: string;
    }
  | { kind: 'refunded'; paymentRef: string; amountRefundedCents: number; metadata: Record<string, string> }
  | {
      kind: 'account_updated';
      chargesEnabled: boolean;
      payoutsEnabled: boolean;
      detailsSubmitted: boolean;
      bankAccountLast4: string | null;
    }
);

export interface PaymentsPort {
  readonly kind: 'live' | 'sandbox';
  /** Creates a hosted checkout for one charge; the payer is redirected to `url`. */
  createCheckout(request: CheckoutRequest): Promise<{ providerRef: string; url: string }>;
  /** Refunds (part of) a charge on the connected account, and returns `platformFeeCents` of its application fee. */
  refund(request: RefundRequest): Promise<{ providerRef: string; status: string }>;
  /** A one-time onboarding link, creating the connected account when there is none yet. */
  accountLink(request: AccountLinkRequest): Promise<{ connectedAccount: string; url: string }>;
  /**
   * Verifies a notification's signature over its raw body and reads it; null when the service does
   * not act on its type. Throws CallbackRejected when the signature fails.
   */
  readNotification(headers: Headers, rawBody: string): Promise<ProcessorNotification | null>;
}
