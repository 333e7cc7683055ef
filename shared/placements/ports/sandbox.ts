import { CallbackRejected, type EmailPort, type ESignaturePort, type PaymentsPort } from './types.ts';

// Sandbox adapters: nobody is contacted. A contract or message gets a reference of its own so the
// records read like live ones; the household's and landlord's answers arrive through the sandbox
// counterpart helpers (POST /sandbox/claims/...), never through a provider callback.

export const sandboxESignature: ESignaturePort = {
  kind: 'sandbox',
  send: () => Promise.resolve({ providerRef: `sandbox_contract_${crypto.randomUUID()}` }),
  withdraw: () => Promise.resolve(),
  readCallback: () => Promise.reject(new CallbackRejected('sandbox contracts have no provider callbacks')),
  // Sandbox contracts are signed through the helpers; no callback asks.
  hasSigned: () => Promise.resolve(false),
  signedDocument: (providerRef) => Promise.resolve(sandboxPdf(`Sandbox lease ${providerRef}: no real contract was signed.`)),
};

/** A one-page PDF with one line of text: the sandbox's stand-in for a signed document. */
function sandboxPdf(line: string): Uint8Array {
  const text = line.replace(/[()\\]/g, '');
  const stream = `BT /F1 12 Tf 50 750 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const at = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return at;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

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
