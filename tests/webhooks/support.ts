// Support for the webhook tests: a real HTTPS receiver on loopback (certificate signed by the test
// authority that tests/fixtures/tls/trust.ts makes the workers trust), and dispatcher runs limited
// to a test's own organisations so that test files running side by side never take each other's rows.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { receiverCertificate, receiverKey } from '../fixtures/tls/trust.ts';
import { dispatchDue, type DispatchOptions } from '../../shared/webhooks/dispatcher.ts';
import { createKey, createTenant, ownerSql } from '../helpers.ts';
import { verifyWebhookSignature as typescriptHelper } from '../../shared/webhooks/verify-signature.ts';
import { verifyWebhookSignature as javascriptHelper } from '../../shared/webhooks/verify-signature.mjs';

/**
 * Verifies a delivery with both helpers the guides give, the TypeScript one and its plain JavaScript
 * copy: they must agree on every real delivery the tests receive.
 */
export async function verifyWebhookSignature(...args: Parameters<typeof typescriptHelper>): Promise<boolean> {
  const [typescript, javascript] = await Promise.all([typescriptHelper(...args), javascriptHelper(...args)]);
  expect(javascript).toBe(typescript);
  return typescript;
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body's bytes, exactly as sent. */
  raw: Buffer;
  /** The body as UTF-8 text. */
  body: string;
  json: any;
}

export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer only after this long (a receiver too slow for the time-out). */
  delayMs?: number;
}

export class Receiver {
  readonly received: Received[] = [];
  private readonly answers = new Map<string, Answer | ((request: Received) => Answer)>();
  private server?: Server;
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer({ cert: readFileSync(receiverCertificate), key: readFileSync(receiverKey) }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = raw.toString('utf8');
        const path = request.url ?? '/';
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const entry: Received = { path, headers: request.headers, raw, body, json };
        this.received.push(entry);
        const configured = this.answers.get(path) ?? {};
        const answer = typeof configured === 'function' ? configured(entry) : configured;
        const reply = () => {
          if (response.destroyed) return;
          response.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
          response.end(answer.body ?? 'ok');
        };
        if (answer.delayMs) setTimeout(reply, answer.delayMs).unref();
        else reply();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  /** The https URL of `path` on this receiver. */
  url(path: string): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  /** How `path` answers from now on (default 200 "ok"). */
  answer(path: string, answer: Answer | ((request: Received) => Answer)): void {
    this.answers.set(path, answer);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/**
 * One receiver for the test file, started before its tests. Deliveries to loopback are allowed
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS), as in local development.
 */
export function useReceiver(): Receiver {
  const receiver = new Receiver();
  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });
  return receiver;
}

/** A dispatcher run over these organisations' deliveries only. */
export function dispatchFor(organisations: string[], options: Omit<DispatchOptions, 'organisations'> = {}) {
  return dispatchDue({ concurrency: 20, ...options, organisations });
}

/** Time passes for these organisations: every pending delivery is due now. */
export async function makeDue(organisations: string[]): Promise<void> {
  await ownerSql()`
    update app.webhook_deliveries set next_attempt_at = now()
     where org_id = any (${organisations}::uuid[]) and status = 'pending'`;
}

/** Records an event as an operation of the service would (app.record_event), filed under the org. */
export async function recordEvent(orgId: string, environment: 'live' | 'sandbox', event: string, payload: Record<string, unknown>): Promise<string> {
  const [row] = await ownerSql()<{ id: string }[]>`
    select app.record_event(${event}, ${ownerSql().json(payload as never)}, ${orgId}, ${environment}) as id`;
  return row.id;
}

/**
 * What the security suites of events and webhooks start from: an owner and a stranger carrier (each
 * with a live and a sandbox key) and owner keys with a read scope only and with a write scope only.
 * Suites record their events after creating their endpoints, so that the events fan out to them. Endpoints resolving to private addresses are refused, as in production.
 */
export async function securityFixture() {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
  const owner = await createTenant('carrier');
  const stranger = await createTenant('carrier');
  return {
    owner,
    stranger,
    readOnlyKey: (await createKey(owner.orgId, 'live', { scopes: ['claims:read'] })).key,
    writeOnlyKey: (await createKey(owner.orgId, 'live', { scopes: ['claims:write'] })).key,
  };
}

/** Asserts an error answer of the specification's shape: status, code, a message, and the field when given. */
export function expectError(res: { status: number; body: any }, status: number, code: string, field?: string): void {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, message: expect.any(String) });
  if (field !== undefined) expect(res.body.error.field).toBe(field);
}

/** Waits until `condition` holds, checking every 20 ms; fails after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
