// Errors that teach: every error carries the address of its code's entry in the reference (built from
// the configured public address, never the request's Host), the reference has an entry for every
// code, the documented table (docs/errors.md) lists every code the code and the OpenAPI document
// answer, an unknown field names the nearest known one, and a key of one environment reading an
// object of the other hears that it may be there, in words that do not say whether it is.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openApiDocument } from '../../functions/docs/app.ts';
import { errorCodes, type ErrorCode } from '../../shared/http/errors.ts';
import { statusesOf } from '../../shared/http/error-reference.ts';
import { nearestField } from '../../shared/http/routes.ts';
import type { OpenApiDocument } from '../api-types.ts';
import { call, errorOf } from '../helpers.ts';
import { carrier, claimBody } from '../claims/fixtures.ts';

const table = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** The rows of docs/errors.md's table: code and the statuses it states. */
function documentedCodes(): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  for (const line of table.split('\n')) {
    const row = line.match(/^\|\s*(?:<a id="error-([a-z_]+)"><\/a>)?`([a-z_]+)`\s*\|\s*([^|]+)\|/);
    if (!row) continue;
    expect(row[1], `the row of ${row[2]} carries its anchor`).toBe(row[2]);
    rows.set(row[2], [...row[3].matchAll(/\d{3}/g)].map((m) => Number(m[0])));
  }
  return rows;
}

/** Every code some error response of the OpenAPI document lists. */
function documentCodes(): Set<string> {
  const document = openApiDocument() as unknown as OpenApiDocument;
  const codes = new Set<string>();
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const listed = response.content?.['application/json']?.schema.allOf?.[1]?.properties?.error.properties?.code.enum as string[] | undefined;
        for (const code of listed ?? []) codes.add(code);
      }
    }
  }
  return codes;
}

describe('the error table', () => {
  it('lists every code of the code table and of the document, with its statuses, and no other', () => {
    const documented = documentedCodes();
    const answered = new Set<string>([...Object.keys(errorCodes), ...documentCodes()]);
    expect(answered.size).toBeGreaterThan(50);
    const missing = [...answered].filter((code) => !documented.has(code));
    expect(missing, 'codes the service answers that docs/errors.md does not list').toEqual([]);
    expect([...documented.keys()].filter((code) => !answered.has(code)), 'rows for codes the service never answers').toEqual([]);
    for (const code of Object.keys(errorCodes) as ErrorCode[]) expect(documented.get(code), code).toEqual(statusesOf(code));
    expect(documented.get('stay_too_short')).toEqual([422]);
  });
});

describe('doc_url', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is on every error, from PUBLIC_BASE_URL whatever Host the request names, and leads to an entry of the reference', async () => {
    vi.stubEnv('PUBLIC_BASE_URL', 'https://placements.example.com/functions/v1/');
    const unauthenticated = await call('GET', '/claims', { host: 'attacker.example' });
    expect(unauthenticated.status).toBe(401);
    expect(errorOf(unauthenticated.body).doc_url).toBe('https://placements.example.com/functions/v1/docs/errors#error-missing_key');

    const c = await carrier();
    const invalid = await call('POST', '/claims', { key: c.sandbox, body: { ...claimBody(), bedrooms: 'two' }, host: 'attacker.example' });
    expect(invalid.status).toBe(422);
    expect(errorOf(invalid.body).doc_url).toBe('https://placements.example.com/functions/v1/docs/errors#error-invalid_field');

    const unknownPath = await call('GET', '/claims/REQ-ZZZZZZ/nothing-here', { key: c.sandbox });
    expect(errorOf(unknownPath.body).doc_url).toBe('https://placements.example.com/functions/v1/docs/errors#error-not_found');

    // The document says so: the shared Error object has doc_url, required, as a URI.
    const document = openApiDocument() as unknown as { components: { schemas: Record<string, { properties: Record<string, { required?: string[]; properties: Record<string, { format?: string }> }> }> } };
    const error = document.components.schemas.Error.properties.error;
    expect(error.properties.doc_url.format).toBe('uri');
    expect(error.required).toContain('doc_url');
  });

  it('the reference page has an entry at the anchor of every code, with its status', async () => {
    const page = await call('GET', '/docs/errors');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    for (const code of Object.keys(errorCodes) as ErrorCode[]) {
      const entry = page.text.match(new RegExp(`<section class="card" id="error-${code}">([\\s\\S]*?)</section>`));
      expect(entry, code).not.toBeNull();
      expect(entry![1], code).toContain(`· ${statusesOf(code).join(' or ')}</h2>`);
    }
    // An error's doc_url, followed: the page it names has the anchor it names.
    const answer = await call('GET', '/claims');
    const url = new URL(errorOf(answer.body).doc_url as string);
    const followed = await call('GET', url.pathname.replace(/^\/functions\/v1/, '') as '/docs/errors');
    expect(followed.text).toContain(`id="${url.hash.slice(1)}"`);
  });
});

describe('an unknown field names the nearest known one', () => {
  it('in a body, a batch item, and an object inside the body', async () => {
    const c = await carrier();
    const typo = await call('POST', '/claims', { key: c.sandbox, body: { ...claimBody(), houshold_language: 'es' } });
    expect(typo.status).toBe(422);
    expect(errorOf(typo.body)).toMatchObject({
      code: 'invalid_field',
      field: 'houshold_language',
      message: 'houshold_language is not a known field; did you mean household_language?',
    });

    const batch = await call('POST', '/claims/batch', { key: c.sandbox, body: { requests: [{ ...claimBody(), bedroms: 2 }] } });
    expect(batch.status).toBe(422);
    expect((batch.body as { results: { error: { message: string; field: string } }[] }).results[0].error).toMatchObject({
      field: 'bedroms',
      message: 'bedroms is not a known field; did you mean bedrooms?',
    });

    // Inside an object of the body: the simulated event's data, checked against the event's payload.
    const nested = await call('POST', '/events/simulate', { key: c.sandbox, body: { event: 'option.declined', data: { refrence: 'REQ-TEST01' } } });
    expect(nested.status).toBe(422);
    expect(errorOf(nested.body)).toMatchObject({ field: 'data.refrence', message: 'data.refrence is not a known field; did you mean data.reference?' });

    const webhook = await call('POST', '/webhooks', { key: c.sandbox, body: { url: 'https://hooks.example.com/x', evnets: ['request.status_changed'] } });
    expect(webhook.status).toBe(422);
    expect(errorOf(webhook.body).message).toBe('evnets is not a known field; did you mean events?');

    // A name like none of the fields gets no guess.
    const unrelated = await call('POST', '/claims', { key: c.sandbox, body: { ...claimBody(), is_admin: true } });
    expect(errorOf(unrelated.body).message).toBe('is_admin is not a known field.');
  });

  it('picks the closest name, ignores case and hyphens, and guesses nothing far off', () => {
    expect(nearestField('houshold_language', ['household_email', 'household_language'])).toBe('household_language');
    expect(nearestField('Household-Language', ['household_language'])).toBe('household_language');
    expect(nearestField('moveout', ['move_out', 'move_in'])).toBe('move_out');
    expect(nearestField('xyz', ['limit', 'cursor'])).toBeUndefined();
    expect(nearestField('is_admin', ['note', 'delay_ms'])).toBeUndefined();
    expect(nearestField('a'.repeat(101), ['a'.repeat(100)])).toBeUndefined();
  });
});

describe('a key reading an object of the other environment', () => {
  it('hears it may exist there, in the same words whether it does or not, both ways', async () => {
    const c = await carrier();
    const sandboxRequest = await c.sandboxApi.post('/claims', claimBody());
    expect(sandboxRequest.status, sandboxRequest.text).toBe(201);
    const liveRequest = await c.liveApi.post('/claims', claimBody());
    expect(liveRequest.status, liveRequest.text).toBe(201);
    const refOf = (res: typeof sandboxRequest) => (res.body as { data: { claim_ref: string } }).data.claim_ref;

    const liveReadsSandbox = await c.liveApi.get(`/claims/${refOf(sandboxRequest)}`);
    const liveReadsNothing = await c.liveApi.get('/claims/REQ-ZZZZZZ');
    expect(liveReadsSandbox.status).toBe(404);
    expect(liveReadsNothing.status).toBe(404);
    expect(errorOf(liveReadsSandbox.body).message).toBe(
      'No such housing request for this organisation in live. Live and sandbox data are apart: if it was made with a sandbox key (svc_sk_), it may exist in sandbox; read it with that key.',
    );
    expect(liveReadsNothing.body).toEqual(liveReadsSandbox.body);

    const sandboxReadsLive = await c.sandboxApi.get(`/claims/${refOf(liveRequest)}`);
    const sandboxReadsNothing = await c.sandboxApi.get('/claims/REQ-ZZZZZZ');
    expect(sandboxReadsLive.status).toBe(404);
    expect(errorOf(sandboxReadsLive.body).message).toMatch(/if it was made with a live key \(svc_pk_\), it may exist in live/);
    expect(sandboxReadsNothing.body).toEqual(sandboxReadsLive.body);
  });
});
