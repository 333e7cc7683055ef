import { createRoutes, dataOf, defineRoute, jsonResponse, listOf } from '../../../shared/http/routes.ts';
import { list, single } from '../../../shared/http/envelope.ts';
import { acceptedFormats, documentContentTypes } from '../../../shared/claims/documents.ts';
import { documentKinds } from '../../../shared/claims/values.ts';
import { toDocument } from '../documents-repository.ts';
import { documentsOfRequest, downloadDocument, fileDocument, readUpload } from '../documents.ts';
import { Document, DocumentParams, ReferenceParam } from '../schemas.ts';

// Documents filed on a request: uploaded as multipart/form-data, typed by their content, stored
// through the storage port, listed, and downloadable when they came through the caller's integration.

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
      // The request first (fileDocument reads the upload after finding it): an unknown request is 404 whatever the body holds.
      const row = await fileDocument(c.get('caller'), c.req.valid('param').reference, () => readUpload(c));
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
