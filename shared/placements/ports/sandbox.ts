import { CallbackRejected, type EmailPort, type ESignaturePort } from './types.ts';

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
