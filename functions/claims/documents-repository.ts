import type { z } from '@hono/zod-openapi';
import type { Tx } from '../../shared/db/client.ts';
import type { Caller } from '../../shared/db/tenant.ts';
import type { documentKinds } from '../../shared/claims/values.ts';
import type { Document } from './schemas.ts';

// The documents filed on a request: their rows and how the API shows one. Queries run inside
// withTenant; row-level security limits them to the caller's organisation and environment.

export interface DocumentRow {
  id: string;
  kind: (typeof documentKinds)[number];
  description: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  uploaded_via: 'api' | 'service';
  storage_key: string;
  created_at: Date;
}

const documentColumns = 'id, kind, description, filename, content_type, size_bytes, uploaded_via, storage_key, created_at';

/** A document uploaded through the API, whose bytes are already stored under `storageKey`. */
export interface NewDocument {
  id: string;
  claimId: string;
  kind: DocumentRow['kind'];
  description: string | null;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  storageKey: string;
}

export async function insertDocument(tx: Tx, caller: Caller, document: NewDocument): Promise<DocumentRow> {
  const [row] = await tx<DocumentRow[]>`
    insert into app.claim_documents
      (id, org_id, environment, claim_id, kind, description, filename, content_type, size_bytes, sha256, storage_key, uploaded_via, api_key_id)
    values (${document.id}, ${caller.orgId}, ${caller.environment}, ${document.claimId}, ${document.kind}, ${document.description},
            ${document.filename}, ${document.contentType}, ${document.sizeBytes}, ${document.sha256}, ${document.storageKey},
            'api', ${caller.keyId})
    returning ${tx.unsafe(documentColumns)}`;
  return row;
}

/** The request's documents, oldest first. */
export function documentsOf(tx: Tx, claimId: string): Promise<DocumentRow[]> {
  return tx<DocumentRow[]>`
    select ${tx.unsafe(documentColumns)} from app.claim_documents where claim_id = ${claimId} order by created_at, id`;
}

/** One document of the request, or undefined. `documentId` must be a uuid (the caller checks). */
export async function findDocument(tx: Tx, claimId: string, documentId: string): Promise<DocumentRow | undefined> {
  const [row] = await tx<DocumentRow[]>`
    select ${tx.unsafe(documentColumns)} from app.claim_documents where claim_id = ${claimId} and id = ${documentId}::uuid`;
  return row;
}

export const toDocument = (row: DocumentRow): z.infer<typeof Document> => ({
  id: row.id,
  kind: row.kind,
  description: row.description,
  filename: row.filename,
  content_type: row.content_type,
  size_bytes: row.size_bytes,
  via_api: row.uploaded_via === 'api',
  created_at: row.created_at.toISOString(),
});
