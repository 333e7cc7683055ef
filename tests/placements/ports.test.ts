// The placement's live adapters (Documenso for e-signatures, Resend for email) against a stand-in
// transport: the exact requests they send, how they read answers and failures, callback
// verification, and that sandbox never reaches a transport whatever is configured.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { placementPorts } from '../../shared/placements/ports/index.ts';
import { documensoESignature } from '../../shared/placements/ports/documenso.ts';
import { emailIdempotencyKey, resendEmail } from '../../shared/placements/ports/resend.ts';
import { CallbackRejected, type ContractRequest, type EmailMessage } from '../../shared/placements/ports/types.ts';

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

type Reply = Response | Error | ((call: Sent) => Response);

/** A stand-in fetch: records every request and answers from `replies` by "METHOD path", in order. */
function standIn(replies: Record<string, Reply[]>) {
  const calls: Sent[] = [];
  const transport = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    const call: Sent = {
      method: init?.method ?? 'GET',
      url,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const reply = replies[`${call.method} ${new URL(url).pathname}`]?.shift();
    if (!reply) throw new Error(`stand-in: no reply for ${call.method} ${url}`);
    if (reply instanceof Error) throw reply;
    return typeof reply === 'function' ? reply(call) : reply;
  });
  return { transport: transport as unknown as typeof fetch, calls, mock: transport };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const apiUrl = 'https://sign.example.test/api/v2';

const contract: ContractRequest = {
  leaseId: '6f1c2e8a-6c1d-4f43-9a51-0d0b8f0e1a11',
  title: 'Lease: Maple House (REQ-ABC234)',
  language: 'en',
  fields: { reference: 'REQ-ABC234', property: 'Maple House', move_in: '2026-12-01', move_out: '2027-03-01', tenant: 'Ada Lovelace' },
  // Given landlord first on purpose: the adapter orders the signers itself.
  signers: [
    { role: 'landlord', name: 'Maple Homes', email: 'owner@maple.example' },
    { role: 'tenant', name: 'Ada Lovelace', email: 'ada@household.example' },
  ],
};

const template = {
  id: 42,
  recipients: [
    { id: 902, role: 'SIGNER', signingOrder: 2 },
    { id: 901, role: 'SIGNER', signingOrder: 1 },
    { id: 903, role: 'CC', signingOrder: 3 },
  ],
  fields: [
    { id: 11, type: 'TEXT', fieldMeta: { type: 'text', label: 'move_in' } },
    { id: 12, type: 'TEXT', fieldMeta: { type: 'text', label: 'tenant' } },
    { id: 13, type: 'SIGNATURE', fieldMeta: { type: 'signature', label: 'move_out' } },
    { id: 14, type: 'TEXT', fieldMeta: { type: 'text', label: 'not_a_field' } },
  ],
};

const esign = (transport: typeof fetch, overrides: Partial<Parameters<typeof documensoESignature>[0]> = {}) =>
  documensoESignature({ apiUrl, apiKey: 'api_test_key', templateId: '42', callbackSecret: 'whsec-documenso', fetch: transport, ...overrides });

describe('Documenso e-signature adapter: re-reading who signed', () => {
  it('reads the document again and answers from its recipients in signing order', async () => {
    const document = { id: 5150, recipients: [
      { id: 2, role: 'SIGNER', signingOrder: 2, signingStatus: 'NOT_SIGNED' },
      { id: 1, role: 'SIGNER', signingOrder: 1, signingStatus: 'SIGNED' },
    ] };
    const { transport, calls } = standIn({ 'GET /api/v2/document/5150': [json(200, document), json(200, document)] });
    expect(await esign(transport).hasSigned('5150', 'tenant')).toBe(true);
    expect(await esign(transport).hasSigned('5150', 'landlord')).toBe(false);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([`GET ${apiUrl}/document/5150`, `GET ${apiUrl}/document/5150`]);
    expect(await esign(transport).hasSigned('not-a-number', 'tenant')).toBe(false);
  });
});

describe('Documenso e-signature adapter: the signed document', () => {
  it('downloads the signed version as bytes, with the API key; a provider error names the call', async () => {
    const pdf = new TextEncoder().encode('%PDF-1.7 signed');
    const { transport, calls } = standIn({
      'GET /api/v2/document/5150/download': [new Response(pdf, { status: 200, headers: { 'content-type': 'application/pdf' } }), json(404, { message: 'Document not found' })],
    });
    expect(new TextDecoder().decode(await esign(transport).signedDocument('5150'))).toBe('%PDF-1.7 signed');
    expect(calls[0]).toMatchObject({ method: 'GET', url: `${apiUrl}/document/5150/download?version=signed`, headers: { authorization: 'api_test_key' } });
    await expect(esign(transport).signedDocument('5150')).rejects.toThrow(/Documenso GET \/api\/v2\/document\/5150\/download answered 404: Document not found/);
  });
});

describe('Documenso e-signature adapter: send', () => {
  it('reads the template, then creates and distributes the document with the tenant first and the landlord second', async () => {
    const { transport, calls } = standIn({
      'GET /api/v2/template/42': [json(200, template)],
      'POST /api/v2/template/use': [json(200, { id: 5150, status: 'PENDING' })],
    });
    const sent = await esign(transport).send(contract);
    expect(sent).toEqual({ providerRef: '5150' });
    expect(calls).toEqual([
      { method: 'GET', url: `${apiUrl}/template/42`, headers: { authorization: 'api_test_key', accept: 'application/json' }, body: undefined },
      {
        method: 'POST',
        url: `${apiUrl}/template/use`,
        headers: { authorization: 'api_test_key', accept: 'application/json', 'content-type': 'application/json' },
        body: {
          templateId: 42,
          externalId: contract.leaseId,
          recipients: [
            { id: 901, email: 'ada@household.example', name: 'Ada Lovelace' },
            { id: 902, email: 'owner@maple.example', name: 'Maple Homes' },
          ],
          distributeDocument: true,
          prefillFields: [
            { id: 11, type: 'text', value: '2026-12-01' },
            { id: 12, type: 'text', value: 'Ada Lovelace' },
          ],
          override: { title: contract.title, language: 'en' },
        },
      },
    ]);
  });

  it("asks Documenso for its signing emails in the household's language; one it does not speak is left to the template", async () => {
    const overrideFor = async (language: string) => {
      const { transport, calls } = standIn({ 'GET /api/v2/template/42': [json(200, template)], 'POST /api/v2/template/use': [json(200, { id: 5150 })] });
      await esign(transport).send({ ...contract, language: language as ContractRequest['language'] });
      return (calls[1].body as { override: unknown }).override;
    };
    expect(await overrideFor('es')).toEqual({ title: contract.title, language: 'es' });
    expect(await overrideFor('en')).toEqual({ title: contract.title, language: 'en' });
    // Documenso refuses a language outside its own list (400): none is sent, its template's is used.
    expect(await overrideFor('uk')).toEqual({ title: contract.title });
  });

  it('refuses a template that does not have exactly two signers, before creating anything', async () => {
    const { transport, calls } = standIn({ 'GET /api/v2/template/42': [json(200, { ...template, recipients: [template.recipients[0]] })] });
    await expect(esign(transport).send(contract)).rejects.toThrow('must have exactly two signers (tenant first, landlord second); it has 1');
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['a 4xx', json(400, { message: 'Recipients must have unique emails', code: 'BAD_REQUEST' }), 'Documenso POST /api/v2/template/use answered 400: Recipients must have unique emails'],
    ['a 5xx without JSON', new Response('upstream timed out', { status: 502 }), 'Documenso POST /api/v2/template/use answered 502: upstream timed out'],
    ['a network failure', new TypeError('fetch failed'), 'Documenso POST /api/v2/template/use failed: fetch failed'],
  ])('throws with the provider message on %s (the job retries)', async (_case, reply, message) => {
    const { transport } = standIn({ 'GET /api/v2/template/42': [json(200, template)], 'POST /api/v2/template/use': [reply] });
    await expect(esign(transport).send(contract)).rejects.toThrow(message);
  });

  it('throws "not configured" naming the missing setting, without calling the provider', async () => {
    const { transport, mock } = standIn({});
    await expect(esign(transport, { apiKey: '' }).send(contract)).rejects.toThrow('e-signature (Documenso) not configured: set ESIGN_API_KEY');
    await expect(esign(transport, { templateId: undefined }).send(contract)).rejects.toThrow('not configured: set ESIGN_TEMPLATE_ID');
    await expect(esign(transport, { apiKey: '' }).withdraw('5150', 'superseded')).rejects.toThrow('not configured: set ESIGN_API_KEY');
    expect(mock).not.toHaveBeenCalled();
  });
});

describe('Documenso e-signature adapter: withdraw', () => {
  it('cancels a pending document', async () => {
    const { transport, calls } = standIn({
      'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'PENDING' })],
      'POST /api/v2/document/delete': [json(200, { success: true })],
    });
    await esign(transport).withdraw('5150', 'dates changed');
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['GET', `${apiUrl}/document/5150`, undefined],
      ['POST', `${apiUrl}/document/delete`, { documentId: 5150 }],
    ]);
    expect(calls[1].headers.authorization).toBe('api_test_key');
  });

  it.each([
    ['already withdrawn (the document is gone)', { 'GET /api/v2/document/5150': [json(404, { message: 'Document not found' })] }],
    ['already withdrawn (deleted)', { 'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'PENDING', deletedAt: '2026-11-23T08:00:00.000Z' })] }],
    ['completed meanwhile', { 'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'COMPLETED' })] }],
    ['refused meanwhile', { 'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'REJECTED' })] }],
  ])('is done without cancelling anything when the document is %s', async (_case, replies) => {
    const { transport, calls } = standIn(replies);
    await expect(esign(transport).withdraw('5150', 'superseded')).resolves.toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('is done when the document disappears between reading and cancelling it, and repeats safely', async () => {
    const { transport, calls } = standIn({
      'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'PENDING' }), json(404, { message: 'Document not found' })],
      'POST /api/v2/document/delete': [json(404, { message: 'Document not found' })],
    });
    const port = esign(transport);
    await port.withdraw('5150', 'superseded');
    await port.withdraw('5150', 'superseded');
    expect(calls.map((c) => c.method)).toEqual(['GET', 'POST', 'GET']);
  });

  it('throws on any other failure so the job retries', async () => {
    const { transport } = standIn({
      'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'PENDING' })],
      'POST /api/v2/document/delete': [json(500, { message: 'Internal server error' })],
    });
    await expect(esign(transport).withdraw('5150', 'superseded')).rejects.toThrow('Documenso POST /api/v2/document/delete answered 500: Internal server error');
  });
});

describe('Documenso e-signature adapter: callbacks', () => {
  const recipients = (tenant: Record<string, unknown>, landlord: Record<string, unknown>) => [
    { id: 7002, email: 'owner@maple.example', role: 'SIGNER', signingOrder: 2, signingStatus: 'NOT_SIGNED', signedAt: null, ...landlord },
    { id: 7001, email: 'ada@household.example', role: 'SIGNER', signingOrder: 1, signingStatus: 'NOT_SIGNED', signedAt: null, ...tenant },
  ];
  const webhook = (event: string, payload: Record<string, unknown>) =>
    JSON.stringify({
      event,
      payload: { id: 5150, externalId: contract.leaseId, status: 'PENDING', updatedAt: '2026-11-23T09:30:00.000Z', ...payload },
      createdAt: '2026-11-23T09:30:01.000Z',
      webhookEndpoint: 'https://api.example.test/functions/v1/esign-callback',
    });
  /** The callback's headers; null: no X-Documenso-Secret header at all. */
  const headers = (secret: string | null) => new Headers(secret === null ? { 'content-type': 'application/json' } : { 'x-documenso-secret': secret });
  const read = (body: string, secret: string | null = 'whsec-documenso') => esign(standIn({}).transport).readCallback(headers(secret), body);

  it('reads only the document a signature event is about: what the body says about signers is left to the re-read', async () => {
    const signed = recipients({ signingStatus: 'SIGNED', signedAt: '2026-11-23T09:29:58.000Z' }, {});
    expect(await read(webhook('DOCUMENT_SIGNED', { recipients: signed }))).toEqual({ providerRef: '5150' });
    const both = recipients({ signingStatus: 'SIGNED' }, { signingStatus: 'SIGNED' });
    expect(await read(webhook('DOCUMENT_COMPLETED', { status: 'COMPLETED', Recipient: both }))).toEqual({ providerRef: '5150' });
    const refused = recipients({ signingStatus: 'REJECTED', rejectionReason: 'wrong dates' }, {});
    expect(await read(webhook('DOCUMENT_REJECTED', { status: 'REJECTED', recipients: refused }))).toEqual({ providerRef: '5150' });
    // No recipients at all: still a notice, since nothing in it is believed anyway.
    expect(await read(webhook('DOCUMENT_SIGNED', {}))).toEqual({ providerRef: '5150' });
  });

  it.each(['DOCUMENT_CREATED', 'DOCUMENT_SENT', 'DOCUMENT_OPENED', 'DOCUMENT_CANCELLED', 'RECIPIENT_EXPIRED'])('answers null for %s', async (event) => {
    expect(await read(webhook(event, { recipients: recipients({}, {}) }))).toBeNull();
  });

  it('answers null for a verified body it cannot read', async () => {
    expect(await read('not json')).toBeNull();
    expect(await read(JSON.stringify({ event: 'DOCUMENT_SIGNED' }))).toBeNull();
    expect(await read(JSON.stringify({ event: 'DOCUMENT_SIGNED', payload: { id: '5150' } }))).toBeNull();
  });

  it('rejects a missing, empty or wrong secret, and a secret that only shares a prefix', async () => {
    const body = webhook('DOCUMENT_SIGNED', { recipients: recipients({ signingStatus: 'SIGNED', signedAt: '2026-11-23T09:29:58.000Z' }, {}) });
    await expect(read(body, null)).rejects.toThrow(new CallbackRejected('the X-Documenso-Secret header is missing'));
    await expect(read(body, '')).rejects.toBeInstanceOf(CallbackRejected);
    await expect(read(body, 'whsec-other')).rejects.toThrow(new CallbackRejected('the X-Documenso-Secret header does not match'));
    await expect(read(body, 'whsec-documenso-and-more')).rejects.toBeInstanceOf(CallbackRejected);
  });

  it('authenticates the sender, not the body: a tampered body with the right secret names its document and nothing else (Documenso does not sign bodies)', async () => {
    const tampered = webhook('DOCUMENT_SIGNED', { id: 9999, recipients: recipients({ signingStatus: 'SIGNED', signedAt: '2026-11-23T09:29:58.000Z' }, {}) });
    expect(await read(tampered)).toEqual({ providerRef: '9999' });
    // ... and without the secret a tampered body is refused like any other.
    await expect(read(tampered, 'guess')).rejects.toBeInstanceOf(CallbackRejected);
  });

  it('throws "not configured" when no callback secret is set (never accepts an unauthenticated callback)', async () => {
    const port = esign(standIn({}).transport, { callbackSecret: '' });
    await expect(port.readCallback(headers(''), webhook('DOCUMENT_SIGNED', {}))).rejects.toThrow('not configured: set ESIGN_CALLBACK_SECRET');
  });
});

describe('Resend email adapter', () => {
  const message: EmailMessage = { to: ['ada@household.example'], subject: 'A home for you', text: 'Maple House is offered to you.', topic: 'placement.offered' };
  const email = (transport: typeof fetch, overrides: Partial<Parameters<typeof resendEmail>[0]> = {}) =>
    resendEmail({ apiUrl: 'https://mail.example.test', apiKey: 're_test_key', from: 'Placements <placements@example.test>', fetch: transport, ...overrides });

  it('sends one message with a Bearer key and an Idempotency-Key, and returns its id', async () => {
    const { transport, calls } = standIn({ 'POST /emails': [json(200, { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' })] });
    expect(await email(transport).send(message)).toEqual({ providerRef: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' });
    expect(calls).toEqual([
      {
        method: 'POST',
        url: 'https://mail.example.test/emails',
        headers: {
          authorization: 'Bearer re_test_key',
          accept: 'application/json',
          'content-type': 'application/json',
          'idempotency-key': await emailIdempotencyKey(message),
        },
        body: {
          from: 'Placements <placements@example.test>',
          to: ['ada@household.example'],
          subject: 'A home for you',
          text: 'Maple House is offered to you.',
          tags: [{ name: 'topic', value: 'placement_offered' }],
        },
      },
    ]);
  });

  it('gives a retried message the same key and a different message another one', async () => {
    const key = await emailIdempotencyKey(message);
    expect(key).toMatch(/^placement_offered\/[0-9a-f]{64}$/);
    expect(await emailIdempotencyKey({ ...message })).toBe(key);
    expect(await emailIdempotencyKey({ ...message, to: ['bob@household.example'] })).not.toBe(key);
    expect(await emailIdempotencyKey({ ...message, text: 'Another home.' })).not.toBe(key);
    expect(await emailIdempotencyKey({ ...message, topic: 'lease.sent' })).not.toBe(key);
  });

  it.each([
    ['a 4xx', json(422, { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' }), 'Resend POST /emails answered 422: Invalid `to` field.'],
    ['a 5xx', json(500, { statusCode: 500, name: 'internal_server_error', message: 'An unexpected error occurred.' }), 'Resend POST /emails answered 500: An unexpected error occurred.'],
    ['a network failure', new TypeError('getaddrinfo ENOTFOUND'), 'Resend POST /emails failed: getaddrinfo ENOTFOUND'],
    ['an answer without an id', json(200, {}), 'Resend POST /emails answered without a message id'],
  ])('throws with the provider message on %s', async (_case, reply, error) => {
    const { transport } = standIn({ 'POST /emails': [reply] });
    await expect(email(transport).send(message)).rejects.toThrow(error);
  });

  it('throws "not configured" naming the missing setting, without calling the provider', async () => {
    const { transport, mock } = standIn({});
    await expect(email(transport, { apiKey: '' }).send(message)).rejects.toThrow('email (Resend) not configured: set EMAIL_API_KEY');
    await expect(email(transport, { from: '' }).send(message)).rejects.toThrow('email (Resend) not configured: set EMAIL_FROM');
    expect(mock).not.toHaveBeenCalled();
  });
});

describe('placementPorts', () => {
  const live = {
    ESIGN_API_URL: 'https://sign.example.test/api/v2/',
    ESIGN_API_KEY: 'api_live_key',
    ESIGN_TEMPLATE_ID: '42',
    ESIGN_CALLBACK_SECRET: 'whsec-documenso',
    EMAIL_API_URL: 'https://mail.example.test',
    EMAIL_API_KEY: 're_live_key',
    EMAIL_FROM: 'placements@example.test',
  };
  beforeEach(() => {
    for (const [name, value] of Object.entries(live)) vi.stubEnv(name, value);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
  });

  it('gives sandbox the sandbox adapters, which never call any transport even with live settings present', async () => {
    const { transport, mock } = standIn({});
    const global = vi.fn();
    vi.stubGlobal('fetch', global);
    const ports = placementPorts('sandbox', { fetch: transport });
    expect([ports.esign.kind, ports.email.kind]).toEqual(['sandbox', 'sandbox']);
    const sent = await ports.esign.send(contract);
    expect(sent.providerRef).toMatch(/^sandbox_contract_/);
    await ports.esign.withdraw(sent.providerRef, 'superseded');
    await expect(ports.esign.readCallback(new Headers({ 'x-documenso-secret': live.ESIGN_CALLBACK_SECRET }), '{}')).rejects.toBeInstanceOf(CallbackRejected);
    expect((await ports.email.send({ to: ['ada@household.example'], subject: 's', text: 't', topic: 'x' })).providerRef).toMatch(/^sandbox_message_/);
    expect(mock).not.toHaveBeenCalled();
    expect(global).not.toHaveBeenCalled();
  });

  it('builds the live adapters from the settings', async () => {
    const { transport, calls } = standIn({
      'GET /api/v2/document/5150': [json(200, { id: 5150, status: 'PENDING' })],
      'POST /api/v2/document/delete': [json(200, { success: true })],
      'POST /emails': [json(200, { id: 'msg_1' })],
    });
    const ports = placementPorts('live', { fetch: transport });
    expect([ports.esign.kind, ports.email.kind]).toEqual(['live', 'live']);
    await ports.esign.withdraw('5150', 'superseded');
    await ports.email.send({ to: ['ada@household.example'], subject: 's', text: 't', topic: 'x' });
    expect(calls.map((c) => [c.url, c.headers.authorization])).toEqual([
      ['https://sign.example.test/api/v2/document/5150', 'api_live_key'],
      ['https://sign.example.test/api/v2/document/delete', 'api_live_key'],
      ['https://mail.example.test/emails', 'Bearer re_live_key'],
    ]);
    expect((calls[2].body as { from: string }).from).toBe('placements@example.test');
  });

  it('builds live adapters without settings (no crash), whose calls say which setting is missing', async () => {
    for (const name of Object.keys(live)) vi.stubEnv(name, '');
    const { transport, calls } = standIn({});
    const ports = placementPorts('live', { fetch: transport });
    await expect(ports.esign.send(contract)).rejects.toThrow('not configured: set ESIGN_TEMPLATE_ID');
    await expect(ports.esign.withdraw('5150', 'superseded')).rejects.toThrow('not configured: set ESIGN_API_KEY');
    await expect(ports.esign.readCallback(new Headers(), '{}')).rejects.toThrow('not configured: set ESIGN_CALLBACK_SECRET');
    await expect(ports.email.send({ to: ['a@b.example'], subject: 's', text: 't', topic: 'x' })).rejects.toThrow('not configured: set EMAIL_API_KEY');
    expect(calls).toEqual([]);
  });
});
