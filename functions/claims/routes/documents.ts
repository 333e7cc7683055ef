import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createRoutes, dataOf, defineRoute, jsonResponse } from '../../../shared/http/routes.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { ApiError, notFound } from '../../../shared/http/errors.ts';
import type { AppEnv } from '../../../shared/http/context.ts';
import { maxBodyBytes as maxDocumentBytes } from '../../../shared/http/middleware/body.ts';
import { withTenant } from '../../../shared/db/tenant.ts';
import { sha256Hex } from '../../../shared/keys.ts';
import { acceptedFormats, detectDocumentType } from '../../../shared/claims/documents.ts';
import { documentStorage } from '../../../shared/claims/storage.ts';
import { documentKinds } from '../../../shared/claims/values.ts';
import { isUuid } from '../../../shared/ids.ts';
import { findClaim } from '../repository.ts';
import { documentsOf, findDocument, insertDocument, toDocument, type DocumentRow } from '../documents-repository.ts';
import { hasNoNul } from '../../../shared/http/text.ts';
import { Document, DocumentParams, ReferenceParam } from '../schemas.ts';

// Documents filed on a request: uploaded as multipart/form-data, typed by their content, stored
// through the storage port, listed, and downloadable when they came through the caller's integration.

const tags = ['Housing requests'];
const notFoundError = { 404: 'not_found: no such request (or document) for this organisation in this environment.' };

const formFields = ['file', 'kind', 'description'];
const invalid = (field: string, message: string) => new ApiError('invalid_field', `${field}: ${message}`, field);

/** The upload's parts, checked: the file with its detected type, an optional kind and description. */
async function readUpload(c: Context<AppEnv>) {
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
    throw new ApiError('file_too_large', `The document is ${bytes.length} bytes; at most ${maxDocumentBytes} (10 MB) are accepted.`, 'file');
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
  if (!type) throw new ApiError('unsupported_type', `The file is not a document the service accepts (${acceptedFormats}); its content was checked, not only its name.`, 'file');
  // The caller's name, cleaned of paths and control characters, with the extension of what it really is.
  const base = (file.name || 'document').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f"]/g, '').replace(/\.[^.]*$/, '').slice(0, 200) || 'document';
  return { bytes, type, kind: kind as DocumentRow['kind'], description, filename: `${base}.${type.extension}` };
}

export const documentRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/documents',
      tags,
      summary: 'File a document on the request',
      description:
        `multipart/form-data with the part \`file\` (required) and optional \`kind\` (${documentKinds.join(', ')}; default other) and ` +
        `\`description\` (up to 500 characters). Accepted: ${acceptedFormats}, recognised by their content. The document may be ` +
        'at most 10 MB (10,485,760 bytes). Each call files a new document: send an Idempotency-Key to make retries safe.',
      scope: 'claims:write',
      request: {
        params: ReferenceParam,
        // Read by the handler (not a zod schema), so that every refusal names its field.
        body: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: {
                  file: { type: 'string', format: 'binary' },
                  kind: { type: 'string', enum: [...documentKinds] },
                  description: { type: 'string', maxLength: 500 },
                },
              },
            },
          },
        },
      },
      responses: { 201: jsonResponse(dataOf(Document), 'The document is filed.') },
      errors: {
        ...notFoundError,
        413: 'file_too_large: the document is over 10 MB (10,485,760 bytes); an oversized upload is refused while it is read, never read far past the limit.',
        415: `unsupported_type: the content is not ${acceptedFormats}.`,
      },
    }),
    async (c) => {
      const caller = c.get('caller');
      const claim = await withTenant(caller, (tx) => findClaim(tx, c.req.valid('param').reference));
      const upload = await readUpload(c);
      const id = crypto.randomUUID();
      const storageKey = `${caller.orgId}/${caller.environment}/${claim.id}/${id}`;
      // Stored first: a row never points at bytes that are not there.
      await documentStorage().put(storageKey, upload.bytes, upload.type.contentType);
      const sha256 = await sha256Hex(upload.bytes);
      const row = await withTenant(caller, (tx) =>
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
      return c.json(single(toDocument(row)), 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/documents',
      tags,
      summary: "The request's documents, oldest first",
      description: "Includes documents filed by the service's team (via_api false), which can be listed but not downloaded.",
      scope: 'claims:read',
      request: { params: ReferenceParam },
      responses: { 200: jsonResponse(z.object({ data: z.array(Document), count: z.number().int() }), 'The documents.') },
      errors: notFoundError,
    }),
    async (c) => {
      const rows = await withTenant(c.get('caller'), async (tx) => {
        const claim = await findClaim(tx, c.req.valid('param').reference);
        return documentsOf(tx, claim.id);
      });
      return c.json(list(rows.map(toDocument)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/documents/{documentId}',
      tags,
      summary: 'Download a document uploaded through your integration',
      scope: 'claims:read',
      request: { params: DocumentParams },
      responses: {
        200: { description: 'The file, with its Content-Type.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      },
      errors: {
        ...notFoundError,
        403: "not_yours: the document was filed by the service's team, not uploaded through your integration (forbidden: scope missing).",
      },
    }),
    async (c) => {
      const { reference, documentId } = c.req.valid('param');
      const row = await withTenant(c.get('caller'), async (tx) => {
        const claim = await findClaim(tx, reference);
        return isUuid(documentId) ? findDocument(tx, claim.id, documentId) : undefined;
      });
      if (!row) throw notFound('document');
      if (row.uploaded_via !== 'api') {
        throw new ApiError('not_yours', "This document was filed by the service's team, not uploaded through your integration; it can be listed but not downloaded.");
      }
      const bytes = await documentStorage().get(row.storage_key);
      if (!bytes) throw notFound('document');
      // Header values are Latin-1: an ASCII stand-in for old clients, the exact name per RFC 6266.
      const asciiName = row.filename.replace(/[^\x20-\x7e]/g, '_');
      return c.body(bytes, 200, {
        'content-type': row.content_type,
        'content-disposition': `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(row.filename)}`,
      }) as never;
    },
  );
