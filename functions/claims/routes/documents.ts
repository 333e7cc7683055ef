import type { Context } from 'hono';
import type { AppEnv } from '../../../shared/http/context.ts';
import type { DomainError } from '../../../shared/domain-errors.ts';
import { createRoutes, dataOf, jsonResponse, listOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { acceptedFormats, documentContentTypes } from '../../../shared/claims/documents.ts';
import { documentKinds } from '../../../shared/claims/values.ts';
import { toDocument } from '../documents-repository.ts';
import { documentsOfRequest, downloadDocument, fileDocument, invalidPart, type SentDocument } from '../documents.ts';
import { Document, DocumentParams, ReferenceParam } from '../schemas.ts';

// Documents filed on a request: uploaded as multipart/form-data, typed by their content, stored
// through the storage port, listed, and downloadable when they came through the caller's integration.

const formFields = ['file', 'kind', 'description'];

/**
 * The upload's parts as plain values for the command, or the refusal of the form itself (not
 * multipart, unreadable, a part unknown or sent twice, no file part), handed over as a value: the
 * command finds the request first, so an unknown request is 404 whatever the body holds.
 */
async function sentDocument(c: Context<AppEnv>): Promise<SentDocument | DomainError> {
  if (!/^multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
    return invalidPart('file', 'send the document as multipart/form-data, the file in the part named "file".');
  }
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    return invalidPart('file', 'the multipart body could not be read.');
  }
  const keys = [...form.keys()];
  const unknown = keys.find((key) => !formFields.includes(key));
  if (unknown) return invalidPart(unknown, 'is not a known field (file, kind, description).');
  // A second part of the same name would otherwise be dropped without a word: one document per call.
  const repeated = keys.find((key, i) => keys.indexOf(key) !== i);
  if (repeated) return invalidPart(repeated, 'is sent more than once; file one document per call.');
  const file = form.get('file');
  if (!(file instanceof File)) return invalidPart('file', 'is required: a file part named "file".');
  return { bytes: new Uint8Array(await file.arrayBuffer()), name: file.name, kind: form.get('kind'), description: form.get('description') };
}

const tags = ['Housing requests'];
const notFoundError = { 404: { not_found: 'no such request (or document) for this organisation in this environment.' } };

export const documentRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{reference}/documents',
      operationId: 'uploadDocument',
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
        413: { file_too_large: 'the document is over 10 MB (10,485,760 bytes); an oversized upload is refused while it is read, never read far past the limit.' },
        415: { unsupported_type: `the content is not ${acceptedFormats}.` },
      },
    }),
    async (c) => {
      const row = await fileDocument(c.get('caller'), c.req.valid('param').reference, await sentDocument(c));
      return c.json(single(toDocument(row)), 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/documents',
      operationId: 'listDocuments',
      tags,
      summary: "The request's documents, oldest first",
      description: "Includes documents filed by the service's team (via_api false), which can be listed but not downloaded.",
      scope: 'claims:read',
      request: { params: ReferenceParam },
      responses: { 200: jsonResponse(listOf(Document), 'The documents.') },
      errors: notFoundError,
    }),
    async (c) => {
      const rows = await documentsOfRequest(c.get('caller'), c.req.valid('param').reference);
      return c.json(list(rows.map(toDocument)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{reference}/documents/{documentId}',
      operationId: 'downloadDocument',
      tags,
      summary: 'Download a document uploaded through your integration',
      scope: 'claims:read',
      request: { params: DocumentParams },
      responses: {
        200: {
          description: 'The file, with the content type it was recognised as when filed.',
          content: Object.fromEntries(documentContentTypes.map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }])),
        },
      },
      errors: {
        ...notFoundError,
        403: {
          not_yours: 'the document was filed by the service\'s team, not uploaded through your integration (forbidden: scope missing).',
        },
      },
    }),
    async (c) => {
      const { reference, documentId } = c.req.valid('param');
      const { row, bytes } = await downloadDocument(c.get('caller'), reference, documentId);
      // Header values are Latin-1: an ASCII stand-in for old clients, the exact name per RFC 6266.
      const asciiName = row.filename.replace(/[^\x20-\x7e]/g, '_');
      return c.body(bytes, 200, {
        'content-type': row.content_type,
        'content-disposition': `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(row.filename)}`,
      }) as never;
    },
  );
