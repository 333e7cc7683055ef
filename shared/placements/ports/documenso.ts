import { CallbackRejected, signingOrder, type ContractNotice, type ContractRequest, type ESignaturePort, type Signer } from './types.ts';
import { callProvider, fetchProviderFile, ProviderError, required, sameSecret, type Transport } from './provider.ts';

// Live e-signature adapter: Documenso's public REST API v2 (base `https://app.documenso.com/api/v2`,
// or a self-hosted instance's `/api/v2`), authenticated with the team API token sent as-is in
// `Authorization`. It follows these v2 endpoints:
//   GET  /template/{templateId}       the lease template's signer placeholders and text fields
//   POST /template/use                creates the document from the template and distributes it
//                                     (body: templateId, externalId, recipients[{id,email,name}],
//                                     distributeDocument, prefillFields[{id,type,value}],
//                                     override.title, override.language)
//   GET  /document/{documentId}       the document's status (DRAFT, PENDING, COMPLETED, REJECTED)
//   POST /document/delete             { documentId }: a pending document is cancelled and its
//                                     recipients told; its signing links stop working
// and Documenso's webhooks: a JSON POST `{ event, payload, createdAt, webhookEndpoint }` where
// `payload` is the document (id, externalId, status, recipients[] with role, signingOrder,
// signingStatus, signedAt), carrying the webhook's secret verbatim in `X-Documenso-Secret`.
// Documenso does not sign the body (no HMAC), so the callback is authenticated by that shared
// secret, compared in constant time; the body is trusted only once the secret matches.
//
// The template (ESIGN_TEMPLATE_ID) holds the lease PDF with exactly two SIGNER placeholders in a
// sequential signing order: the first signs for the tenant (the household or the named signer),
// the second for the landlord. Its text fields whose label is a key of ContractRequest.fields
// (reference, property, address, move_in, move_out, tenant) are prefilled.

export interface DocumensoOptions {
  /** The API's base, e.g. https://app.documenso.com/api/v2 (ESIGN_API_URL). */
  apiUrl: string;
  apiKey?: string;
  templateId?: string;
  callbackSecret?: string;
  fetch?: Transport;
}

const what = 'e-signature (Documenso)';

/**
 * The languages Documenso writes its emails to recipients in: its SUPPORTED_LANGUAGE_CODES
 * (packages/lib/constants/i18n.ts), the enum `override.language` of POST /template/use accepts; a
 * code outside it is refused with 400. Documenso sets one language per document, for every
 * recipient: the landlord's signing email is in the household's language too.
 */
const documensoLanguages: readonly string[] = ['de', 'en', 'fr', 'es', 'it', 'pl', 'ja'];

interface DocumensoRecipient {
  id: number;
  role?: string;
  signingOrder?: number | null;
  signingStatus?: string;
  signedAt?: string | null;
}

interface DocumensoField {
  id: number;
  fieldMeta?: { type?: string; label?: string } | null;
}

interface DocumensoDocument {
  id: number;
  externalId?: string | null;
  status?: string;
  updatedAt?: string;
  completedAt?: string | null;
  deletedAt?: string | null;
  recipients?: DocumensoRecipient[];
  /** The name of the recipients in webhook payloads of older Documenso versions. */
  Recipient?: DocumensoRecipient[];
  fields?: DocumensoField[];
}

/** The signers of a document or template in signing order (the first is the tenant, the second the landlord). */
function signersInOrder(recipients: DocumensoRecipient[] | undefined): DocumensoRecipient[] {
  return (recipients ?? [])
    .filter((r) => (r.role ?? 'SIGNER') === 'SIGNER')
    .sort((a, b) => (a.signingOrder ?? Infinity) - (b.signingOrder ?? Infinity) || a.id - b.id);
}

export function documensoESignature(options: DocumensoOptions): ESignaturePort {
  const base = options.apiUrl.replace(/\/+$/, '');
  const api = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
    callProvider('Documenso', options.fetch, {
      method,
      url: `${base}${path}`,
      headers: { authorization: required(options.apiKey, what, 'ESIGN_API_KEY'), accept: 'application/json' },
      body,
    }) as Promise<T>;

  return {
    kind: 'live',

    async send(contract: ContractRequest) {
      const templateId = Number(required(options.templateId, what, 'ESIGN_TEMPLATE_ID'));
      if (!Number.isInteger(templateId)) throw new Error('ESIGN_TEMPLATE_ID must be the numeric id of a Documenso template');
      const template = await api<DocumensoDocument>('GET', `/template/${templateId}`);
      const placeholders = signersInOrder(template.recipients);
      if (placeholders.length !== 2) {
        throw new Error(`Documenso template ${templateId} must have exactly two signers (tenant first, landlord second); it has ${placeholders.length}`);
      }
      const recipients = signingOrder.map((role, index) => {
        const signer = contract.signers.find((s) => s.role === role);
        if (!signer) throw new Error(`the contract has no ${role} signer`);
        return { id: placeholders[index].id, email: signer.email, name: signer.name };
      });
      const prefillFields = (template.fields ?? []).flatMap((field) => {
        const label = field.fieldMeta?.label;
        return field.fieldMeta?.type === 'text' && label && Object.hasOwn(contract.fields, label)
          ? [{ id: field.id, type: 'text', value: contract.fields[label] }]
          : [];
      });
      const document = await api<DocumensoDocument>('POST', '/template/use', {
        templateId,
        externalId: contract.leaseId,
        recipients,
        distributeDocument: true,
        ...(prefillFields.length ? { prefillFields } : {}),
        // A language Documenso does not write in is left out, so the template's own is used.
        override: { title: contract.title, ...(documensoLanguages.includes(contract.language) ? { language: contract.language } : {}) },
      });
      if (typeof document?.id !== 'number') throw new ProviderError('Documenso POST /template/use answered without a document id');
      return { providerRef: String(document.id) };
    },

    async withdraw(providerRef: string) {
      // Documenso's cancellation takes no reason; the recipients get its "document cancelled" email.
      const documentId = Number(providerRef);
      if (!Number.isInteger(documentId)) throw new Error(`not a Documenso document id: ${providerRef}`);
      const gone = (error: unknown) => {
        if (error instanceof ProviderError && error.status === 404) return undefined;
        throw error;
      };
      const document = await api<DocumensoDocument>('GET', `/document/${documentId}`).catch(gone);
      // Already withdrawn (deleted), or finished: nothing is left to stop, and a signed or refused
      // contract is kept at the provider as it is.
      if (!document || document.deletedAt || document.status === 'COMPLETED' || document.status === 'REJECTED') return;
      await api('POST', '/document/delete', { documentId }).catch(gone);
    },

    async hasSigned(providerRef: string, role: Signer['role']) {
      const documentId = Number(providerRef);
      if (!Number.isInteger(documentId)) return false;
      const document = await api<DocumensoDocument>('GET', `/document/${documentId}`);
      const signer = signersInOrder(document.recipients)[signingOrder.indexOf(role)];
      return signer?.signingStatus === 'SIGNED';
    },

    signedDocument(providerRef: string) {
      const documentId = Number(providerRef);
      if (!Number.isInteger(documentId)) throw new Error(`not a Documenso document id: ${providerRef}`);
      return fetchProviderFile('Documenso', options.fetch, {
        url: `${base}/document/${documentId}/download?version=signed`,
        headers: { authorization: required(options.apiKey, what, 'ESIGN_API_KEY'), accept: 'application/pdf' },
      });
    },

    async readCallback(headers: Headers, rawBody: string): Promise<ContractNotice | null> {
      const secret = required(options.callbackSecret, what, 'ESIGN_CALLBACK_SECRET');
      const given = headers.get('x-documenso-secret');
      if (!given) throw new CallbackRejected('the X-Documenso-Secret header is missing');
      if (!(await sameSecret(given, secret))) throw new CallbackRejected('the X-Documenso-Secret header does not match');
      return readEvent(rawBody);
    },
  };
}

/** The events about a document's signatures, on which the service reads the document again. */
const signatureEvents = new Set(['DOCUMENT_SIGNED', 'DOCUMENT_COMPLETED', 'DOCUMENT_REJECTED']);

/**
 * The document a verified Documenso webhook is about, or null when the service does not act on it.
 * Only the document's id is read: the secret authenticates the sender, not the body, so who the
 * body says signed is left to the re-read of the document.
 */
function readEvent(rawBody: string): ContractNotice | null {
  let body: { event?: unknown; payload?: { id?: unknown } };
  try {
    body = JSON.parse(rawBody);
  } catch {
    return null;
  }
  const id = body?.payload?.id;
  if (typeof body?.event !== 'string' || !signatureEvents.has(body.event) || typeof id !== 'number' || !Number.isInteger(id)) return null;
  return { providerRef: String(id) };
}
