import { CallbackRejected, type EmailPort, type ESignaturePort, type PaymentsPort } from './types.ts';

// Sandbox adapters: nobody is contacted. A contract or message gets a reference of its own so the
// records read like live ones; the household's and landlord's answers arrive through the sandbox
// counterpart helpers (POST /sandbox/claims/...), never through a provider callback.

export const sandboxESignature: ESignaturePort = {
  kind: 'sandbox',
  send: () => Promise.resolve({ providerRef: `sandbox_contract_${crypto.randomUUID()}` }),
  withdraw: () => Promise.resolve(),
  readCallback: () => Promise.reject(new CallbackRejected('sandbox contracts have no provider callbacks')),
};

export const sandboxEmail: EmailPort = {
  kind: 'sandbox',
  send: () => Promise.resolve({ providerRef: `sandbox_message_${crypto.randomUUID()}` }),
};

/**
 * Sandbox payments: no processor is contacted. The pay page offers "pay" and "decline" itself and
 * the sandbox `payment` helper does the same, so no checkout or notification exists; refunds get a
 * reference of their own and settle at once.
 */
export const sandboxPayments: PaymentsPort = {
  kind: 'sandbox',
  createCheckout: () => Promise.reject(new Error('sandbox payments are made on the pay page itself, without a checkout')),
  refund: () => Promise.resolve({ providerRef: `sandbox_refund_${crypto.randomUUID()}`, status: 'succeeded' }),
  accountLink: (request) =>
    Promise.resolve({ connectedAccount: request.connectedAccount ?? `sandbox_acct_${crypto.randomUUID()}`, url: request.returnUrl }),
  readNotification: () => Promise.reject(new CallbackRejected('sandbox payments have no processor notifications')),
};
