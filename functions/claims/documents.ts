import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { DomainError, invalid as invalidInput, notFound, refused } from '../../shared/domain-errors.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { isUuid } from '../../shared/ids.ts';
import { isStorableText, maxDocumentBytes } from '../../shared/values.ts';
import { acceptedFormats, detectDocumentType } from '../../shared/claims/documents.ts';
import { documentStorage } from '../../shared/claims/storage.ts';
import { documentKinds } from '../../shared/claims/values.ts';
import { documentsOf, findDocument, insertDocument, type DocumentRow } from './documents-repository.ts';
import { findClaim, type ClaimRow } from '../../shared/claims/repository.ts';

// Filing and downloading a request's documents: the bytes go through the storage port, the row
// through the documents repository. The route reads the multipart/form-data upload (its parts, each
// once) and hands over plain values; the document is checked here (a zod schema cannot see inside
// it), so that every refusal names its field.

/** A refusal of one part of the upload, named by its field (the route's checks of the form use it too). */
export const invalidPart = (field: string, message: string) => invalidInput('invalid_field', `${field}: ${message}`, field);

/**
 * The upload as sent: the file part's bytes and the name its sender gave it, and the `kind` and
 * `description` parts as the form held them (text, or anything else a form can hold; null when absent).
 */
export interface SentDocument {
  bytes: Uint8Array;
  name: string;
  kind: unknown;
  description: unknown;
}

/** The document checked: its bytes with their detected type, its kind and description, and the name it is stored under. */
function checkDocument(sent: SentDocument) {
  const { bytes } = sent;
  if (bytes.length === 0) throw invalidPart('file', 'is empty.');
  // The body was read no further than this limit plus the multipart framing; the document itself may be 10 MB exactly.
  if (bytes.length > maxDocumentBytes) {
    throw invalidInput('file_too_large', `The document is ${bytes.length} bytes; at most ${maxDocumentBytes} (10 MB) are accepted.`, 'file');
  }
  const kind = sent.kind ?? 'other';
  if (typeof kind !== 'string' || !(documentKinds as readonly string[]).includes(kind)) {
    throw invalidPart('kind', `must be one of ${documentKinds.join(', ')}.`);
  }
  const description = sent.description;
  if (description !== null && (typeof description !== 'string' || description.length > 500 || !isStorableText(description))) {
    throw invalidPart('description', 'must be text of at most 500 characters, without the NUL character.');
  }
  const type = detectDocumentType(bytes);
  if (!type) throw invalidInput('unsupported_type', `The file is not a document the service accepts (${acceptedFormats}); its content was checked, not only its name.`, 'file');
  // The caller's name, cleaned of paths and control characters, with the extension of what it really is.
  const base = (sent.name || 'document').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f"]/g, '').replace(/\.[^.]*$/, '').slice(0, 200) || 'document';
  return { bytes, type, kind: kind as DocumentRow['kind'], description: description as string | null, filename: `${base}.${type.extension}` };
}

type Upload = ReturnType<typeof checkDocument>;

/**
 * POST documents: the request is found first, so an unknown request is 404 whatever the body holds
 * (`sent` is the upload, or the route's refusal of its form, thrown only then). The bytes are stored
 * next, outside any transaction (the storage is a third party), so a row never points at bytes that
 * are not there; the row is written last, in its own unit of work.
 */
export async function fileDocument(caller: Caller, reference: string, sent: SentDocument | DomainError): Promise<DocumentRow> {
  const claim = await withTenant(caller, (tx) => findClaim(tx, reference));
  if (sent instanceof DomainError) throw sent;
  return storeAndRecord(caller, claim, checkDocument(sent));
}

async function storeAndRecord(caller: Caller, claim: ClaimRow, upload: Upload): Promise<DocumentRow> {
  const id = crypto.randomUUID();
  const storageKey = `${caller.orgId}/${caller.environment}/${claim.id}/${id}`;
  await documentStorage().put(storageKey, upload.bytes, upload.type.contentType);
  const sha256 = await sha256Hex(upload.bytes);
  return withTenant(caller, (tx) =>
    insertDocument(tx, caller, {
      id,
      claimId: claim.id,
      kind: upload.kind,
      description: upload.description,
      filename: upload.filename,
      contentType: upload.type.contentType,
      sizeBytes: upload.bytes.length,
      sha256,
      storageKey,
    }));
}

/** GET documents: the request's documents, oldest first. */
export const documentsOfRequest = (caller: Caller, reference: string) =>
  withTenant(caller, async (tx) => documentsOf(tx, (await findClaim(tx, reference)).id));

/** GET documents/{documentId}: only a document uploaded through the API can be downloaded. */
export async function downloadDocument(caller: Caller, reference: string, documentId: string): Promise<{ row: DocumentRow; bytes: Uint8Array<ArrayBuffer> }> {
  const row = await withTenant(caller, async (tx) => {
    const claim = await findClaim(tx, reference);
    return isUuid(documentId) ? findDocument(tx, claim.id, documentId) : undefined;
  });
  if (!row) throw notFound('document');
  if (row.uploaded_via !== 'api') {
    throw refused('not_yours', "This document was filed by the service's team, not uploaded through your integration; it can be listed but not downloaded.");
  }
  const bytes = await documentStorage().get(row.storage_key);
  if (!bytes) throw notFound('document');
  return { row, bytes };
}
