import type { Context } from 'hono';
import { withTenant } from '../../shared/db/tenant.ts';
import type { AppEnv, Caller } from '../../shared/http/context.ts';
import { invalid as invalidInput, notFound, refused } from '../../shared/domain-errors.ts';
import { maxBodyBytes as maxDocumentBytes } from '../../shared/http/middleware/body.ts';
import { hasNoNul } from '../../shared/http/text.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { isUuid } from '../../shared/ids.ts';
import { acceptedFormats, detectDocumentType } from '../../shared/claims/documents.ts';
import { documentStorage } from '../../shared/claims/storage.ts';
import { documentKinds } from '../../shared/claims/values.ts';
import { documentsOf, findDocument, insertDocument, type DocumentRow } from './documents-repository.ts';
import { findClaim, type ClaimRow } from '../../shared/claims/repository.ts';

// Filing and downloading a request's documents: the bytes go through the storage port, the row
// through the documents repository. The upload is multipart/form-data, read and checked here part
// by part (a zod schema cannot see inside it), so that every refusal names its field.

const formFields = ['file', 'kind', 'description'];
const invalid = (field: string, message: string) => invalidInput('invalid_field', `${field}: ${message}`, field);

/** The upload's parts, checked: the file with its detected type, an optional kind and description. */
export async function readUpload(c: Context<AppEnv>) {
  if (!/^multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
    throw invalid('file', 'send the document as multipart/form-data, the file in the part named "file".');
  }
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw invalid('file', 'the multipart body could not be read.');
  }
  const keys = [...form.keys()];
  const unknown = keys.find((key) => !formFields.includes(key));
  if (unknown) throw invalid(unknown, 'is not a known field (file, kind, description).');
  // A second part of the same name would otherwise be dropped without a word: one document per call.
  const repeated = keys.find((key, i) => keys.indexOf(key) !== i);
  if (repeated) throw invalid(repeated, 'is sent more than once; file one document per call.');
  const file = form.get('file');
  if (!(file instanceof File)) throw invalid('file', 'is required: a file part named "file".');
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes.length === 0) throw invalid('file', 'is empty.');
  // The body was read no further than this limit plus the multipart framing; the document itself may be 10 MB exactly.
  if (bytes.length > maxDocumentBytes) {
    throw invalidInput('file_too_large', `The document is ${bytes.length} bytes; at most ${maxDocumentBytes} (10 MB) are accepted.`, 'file');
  }
  const kind = form.get('kind') ?? 'other';
  if (typeof kind !== 'string' || !(documentKinds as readonly string[]).includes(kind)) {
    throw invalid('kind', `must be one of ${documentKinds.join(', ')}.`);
  }
  const description = form.get('description');
  if (description !== null && (typeof description !== 'string' || description.length > 500 || !hasNoNul(description))) {
    throw invalid('description', 'must be text of at most 500 characters, without the NUL character.');
  }
  const type = detectDocumentType(bytes);
  if (!type) throw invalidInput('unsupported_type', `The file is not a document the service accepts (${acceptedFormats}); its content was checked, not only its name.`, 'file');
  // The caller's name, cleaned of paths and control characters, with the extension of what it really is.
  const base = (file.name || 'document').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f"]/g, '').replace(/\.[^.]*$/, '').slice(0, 200) || 'document';
  return { bytes, type, kind: kind as DocumentRow['kind'], description, filename: `${base}.${type.extension}` };
}

export type Upload = Awaited<ReturnType<typeof readUpload>>;

/**
 * POST documents: the request is found first, so an unknown request is 404 whatever the body holds,
 * and only then is the upload read (`read`). The bytes are stored next, outside any transaction (the
 * storage is a third party), so a row never points at bytes that are not there; the row is written
 * last, in its own unit of work.
 */
export async function fileDocument(caller: Caller, reference: string, read: () => Promise<Upload>): Promise<DocumentRow> {
  const claim = await withTenant(caller, (tx) => findClaim(tx, reference));
  return storeAndRecord(caller, claim, await read());
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
