import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/app.ts';
import { call, ownerSql } from '../helpers.ts';
import { route } from '../../scripts/lib/router.ts';
import { at, carrier, openClaim, pdfBytes, pngBytes, spot, upload, useTemporaryDataDir } from './fixtures.ts';

const here = spot(4, 0);
let dataDir: string;
beforeAll(async () => {
  dataDir = await useTemporaryDataDir();
});

/** A minimal Word 2007+ package: a ZIP whose first part is word/document.xml. */
const docxBytes = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode('\u0014\u0000\u0000\u0000word/document.xml<w:document/>')]);

describe('POST /claims/{reference}/documents', () => {
  it('files a PDF (201), stores it under DATA_DIR, lists it and serves it back', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const res = await c.liveApi.post(`/claims/${made.claim_ref}/documents`, upload(pdfBytes, 'loss-report.pdf', { kind: 'loss_report', description: 'Fire report' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String), kind: 'loss_report', description: 'Fire report', filename: 'loss-report.pdf', content_type: 'application/pdf',
      size_bytes: pdfBytes.length, via_api: true, created_at: expect.any(String),
    });
    const [row] = await ownerSql()`select storage_key, sha256 from app.claim_documents where id = ${res.body.data.id}`;
    expect(row.storage_key).toBe(`${c.orgId}/live/${made.id}/${res.body.data.id}`);
    expect(new Uint8Array(await readFile(join(dataDir, 'documents', row.storage_key)))).toEqual(pdfBytes);

    const listed = await c.liveApi.get(`/claims/${made.id}/documents`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [res.body.data], count: 1 });

    const download = await c.liveApi.get(`/claims/${made.id}/documents/${res.body.data.id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="loss-report.pdf"; filename*=UTF-8''loss-report.pdf`);
    expect(download.text).toBe(new TextDecoder().decode(pdfBytes));
  });

  it('types documents by their content: an image named .pdf is a PNG, a Word file is accepted, kind defaults to other, any file name survives', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const png = await c.liveApi.post(`/claims/${made.id}/documents`, upload(pngBytes, 'scan.pdf'));
    expect(png.status).toBe(201);
    expect(png.body.data).toMatchObject({ content_type: 'image/png', filename: 'scan.png', kind: 'other', description: null });
    const docx = await c.liveApi.post(`/claims/${made.id}/documents`, upload(docxBytes, '租约 "final".docx', { kind: 'lease' }));
    expect(docx.status).toBe(201);
    expect(docx.body.data).toMatchObject({
      content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', filename: '租约 final.docx',
    });
    const download = await c.liveApi.get(`/claims/${made.id}/documents/${docx.body.data.id}`);
    expect(download.status).toBe(200);
    // Served with the type it was filed as, which the document's download response declares.
    const documented = Object.keys((openApiDocument() as any).paths['/claims/{reference}/documents/{documentId}'].get.responses['200'].content);
    for (const type of [download.headers.get('content-type'), png.body.data.content_type, 'application/pdf']) expect(documented).toContain(type);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="__ final.docx"; filename*=UTF-8''${encodeURIComponent('租约 final.docx')}`);
  });

  it('refuses what is not a PDF, image or Word document, whatever its name (415 unsupported_type)', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    for (const [bytes, name] of [['#!/bin/sh\necho hi\n', 'report.pdf'], ['PK\u0003\u0004xl/workbook.xml', 'sheet.docx'], ['plain text', 'notes.txt']] as const) {
      const res = await c.liveApi.post(`/claims/${made.id}/documents`, upload(bytes, name));
      expect(res.status).toBe(415);
      expect(res.body.error).toMatchObject({ code: 'unsupported_type', field: 'file' });
    }
    expect((await c.liveApi.get(`/claims/${made.id}/documents`)).body.count).toBe(0);
  });

  it('files a document of exactly 10 MB; one byte more is 413 file_too_large and files nothing', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const limit = 10 * 1024 * 1024;
    const full = new Uint8Array(limit);
    full.set(pdfBytes);
    const accepted = await c.liveApi.post(`/claims/${made.id}/documents`, upload(full, 'full.pdf', { description: 'exactly at the limit' }));
    expect(accepted.status).toBe(201);
    expect(accepted.body.data.size_bytes).toBe(limit);
    const over = new Uint8Array(limit + 1);
    over.set(pdfBytes);
    const res = await c.liveApi.post(`/claims/${made.id}/documents`, upload(over, 'big.pdf'));
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'file_too_large', field: 'file' });
    expect((await c.liveApi.get(`/claims/${made.id}/documents`)).body.count).toBe(1);
  });

  it('refuses a larger upload while reading it, never reading far past the limit (413 file_too_large)', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const chunk = new Uint8Array(64 * 1024);
    /** A 40 MB multipart body made on demand, counting the bytes the server pulls. */
    const stream = () => {
      const counter = { pulled: 0 };
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (counter.pulled >= 40 * 1024 * 1024) return controller.close();
          counter.pulled += chunk.length;
          controller.enqueue(counter.pulled === chunk.length ? new TextEncoder().encode('--b\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-') : chunk);
        },
      });
      return { counter, body };
    };
    const send = (body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
      route(new Request(`http://localhost/functions/v1/claims/${made.id}/documents`, {
        method: 'POST', body, duplex: 'half',
        headers: { authorization: `Bearer ${c.live}`, 'content-type': 'multipart/form-data; boundary=b', ...headers },
      } as RequestInit));

    const undeclared = stream();
    const res = await send(undeclared.body);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('file_too_large');
    expect(undeclared.counter.pulled).toBeLessThan(11 * 1024 * 1024);

    const declared = stream();
    const early = await send(declared.body, { 'content-length': String(40 * 1024 * 1024) });
    expect(early.status).toBe(413);
    expect(declared.counter.pulled).toBeLessThanOrEqual(chunk.length);
    expect((await c.liveApi.get(`/claims/${made.id}/documents`)).body.count).toBe(0);
  });

  it.each([
    ['no file part', () => { const f = new FormData(); f.set('kind', 'policy'); return f; }, 'file'],
    ['an empty file', () => upload(new Uint8Array(0), 'empty.pdf'), 'file'],
    ['a kind outside its set', () => upload(pdfBytes, 'a.pdf', { kind: 'selfie' }), 'kind'],
    ['a description over 500 characters', () => upload(pdfBytes, 'a.pdf', { description: 'x'.repeat(501) }), 'description'],
    ['a description with a NUL character', () => upload(pdfBytes, 'a.pdf', { description: 'fire\u0000report' }), 'description'],
    ['an unknown part', () => upload(pdfBytes, 'a.pdf', { owner: 'me' }), 'owner'],
    ['a file sent as a text field', () => { const f = new FormData(); f.set('file', 'not a file'); return f; }, 'file'],
    ['two files in one call', () => { const f = upload(pdfBytes, 'a.pdf'); f.append('file', new Blob([pngBytes]), 'b.png'); return f; }, 'file'],
    ['a kind sent twice', () => { const f = upload(pdfBytes, 'a.pdf', { kind: 'policy' }); f.append('kind', 'lease'); return f; }, 'kind'],
  ])('refuses %s with 422 invalid_field, and files nothing', async (_name, body, field) => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const res = await c.liveApi.post(`/claims/${made.id}/documents`, body());
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field });
    expect((await c.liveApi.get(`/claims/${made.id}/documents`)).body.count).toBe(0);
  });

  it('refuses a body that is not multipart/form-data (422 on file)', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const res = await call('POST', `/claims/${made.id}/documents`, { key: c.live, body: { file: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_field', field: 'file' });
  });

  it('answers 404 for an unknown request', async () => {
    const c = await carrier();
    const res = await c.liveApi.post('/claims/REQ-ZZZZZZ/documents', upload(pdfBytes, 'a.pdf'));
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });

  it('is not idempotent by nature: each call files a document; an Idempotency-Key replays the first, whatever multipart boundary a retry draws', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const form = upload(pdfBytes, 'a.pdf');
    const first = await c.liveApi.post(`/claims/${made.id}/documents`, form, { 'Idempotency-Key': `doc-${made.id}` });
    const replay = await c.liveApi.post(`/claims/${made.id}/documents`, form, { 'Idempotency-Key': `doc-${made.id}` });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const otherFile = await c.liveApi.post(`/claims/${made.id}/documents`, upload(pngBytes, 'a.pdf'), { 'Idempotency-Key': `doc-${made.id}` });
    expect(otherFile.status).toBe(409);
    expect(otherFile.body.error?.code).toBe('idempotency_key_reused');
    await c.liveApi.post(`/claims/${made.id}/documents`, form);
    expect((await c.liveApi.get(`/claims/${made.id}/documents`)).body.count).toBe(2);
  });
});

describe('documents filed by the service', () => {
  it('are listed with via_api false, but downloading them is 403 not_yours', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const [doc] = await ownerSql()<{ id: string }[]>`
      insert into app.claim_documents (org_id, environment, claim_id, kind, filename, content_type, size_bytes, sha256, storage_key, uploaded_via)
      values (${c.orgId}, 'live', ${made.id}, 'correspondence', 'letter.pdf', 'application/pdf', 10, ${'0'.repeat(64)},
              ${`service/${made.id}/letter`}, 'service')
      returning id`;
    const listed = await c.liveApi.get(`/claims/${made.id}/documents`);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: doc.id, via_api: false, filename: 'letter.pdf' })]);
    const res = await c.liveApi.get(`/claims/${made.id}/documents/${doc.id}`);
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('not_yours');

    const timeline = await c.liveApi.get(`/claims/${made.id}/timeline`);
    expect(timeline.body.data.find((e: any) => e.type === 'document.added')).toMatchObject({
      detail: { document_id: doc.id, kind: 'correspondence', filename: 'letter.pdf', via_api: false },
    });
  });

  it('answers 404 for a document that is not on the request', async () => {
    const c = await carrier();
    const made = await openClaim(c.liveApi, at(here));
    const other = await openClaim(c.liveApi, at(here));
    const filed = await c.liveApi.post(`/claims/${other.id}/documents`, upload(pdfBytes, 'a.pdf'));
    for (const id of [filed.body.data.id, 'not-an-id']) {
      const res = await c.liveApi.get(`/claims/${made.id}/documents/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error?.code).toBe('not_found');
    }
  });
});
