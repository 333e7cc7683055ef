import { apiGroups } from '../../functions/groups.ts';
import { app as docs } from '../../functions/docs/app.ts';
import { app as health } from '../../functions/health/app.ts';
import { app as pay } from '../../functions/pay/app.ts';
import { app as household } from '../../functions/household/app.ts';
import { app as calendar } from '../../functions/calendar/app.ts';
import { app as paymentsWebhook } from '../../functions/payments-webhook/app.ts';
import { app as webhookDispatcher } from '../../functions/webhook-dispatcher/app.ts';
import { app as esignCallback } from '../../functions/esign-callback/app.ts';
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { ApiError } from '../../shared/http/errors.ts';

// The local stand-in for Supabase's functions gateway: `/functions/v1/<name>/...` is handed to the
// function `<name>` as `/<name>/...`, exactly as deployed functions receive it.

type FetchApp = { fetch: (request: Request) => Response | Promise<Response> };

const functions: Record<string, FetchApp> = {
  health,
  docs,
  // Internal: pg_cron's target on Supabase; locally the server's timer dispatches directly.
  'webhook-dispatcher': webhookDispatcher,
  // Internal: the live e-signature provider's callbacks (verified by the adapter, no API key).
  'esign-callback': esignCallback,
  // The pay-in-app page: HTML for the payer's browser, authorised by its signed link.
  pay,
  // The household's page: HTML for the household's browser, authorised by its signed link.
  household,
  // A home's iCalendar feed for other channels: authorised by the token in its address.
  calendar,
  // Internal: the payment processor's notifications (verified by the adapter, no API key).
  'payments-webhook': paymentsWebhook,
  ...Object.fromEntries(apiGroups.map((group) => [group.name, group.app])),
};

export const basePath = '/functions/v1';

/** Where a path under the base path goes: the function's name and the path it receives, or undefined. */
function functionPath(pathname: string): { name: string; path: string } | undefined {
  // The OpenAPI document is also offered at the address the operating contract names.
  const path = pathname === `${basePath}/openapi.json` ? `${basePath}/docs/openapi.json` : pathname;
  const name = path.startsWith(`${basePath}/`) ? path.slice(basePath.length + 1).split('/')[0] : '';
  return Object.hasOwn(functions, name) ? { name, path: path.slice(basePath.length) } : undefined;
}

const notFound = (pathname: string) => Response.json(new ApiError('not_found', `No endpoint at ${pathname}.`).toBody(), { status: 404 });

/**
 * Hands a Request made in-process (tests, the typed client's fetch) to its function, in one new
 * Request: the URL without the base path and the given headers (each copy of a Request with a body
 * pipes the body through another stream). The server uses gatewayListener, which copies nothing.
 */
export async function route(request: Request, headers: Headers = request.headers): Promise<Response> {
  const url = new URL(request.url);
  const target = functionPath(url.pathname);
  if (!target) return notFound(url.pathname);
  url.pathname = target.path;
  const body = request.method === 'GET' || request.method === 'HEAD' ? null : request.body;
  return functions[target.name].fetch(new Request(url, { method: request.method, headers, body, duplex: 'half' } as RequestInit));
}

/** route() for a Request made in-process, stating the client address as the gateway does (a client cannot forge it). */
export function serverFetch(request: Request, remoteAddress: string | undefined): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set('x-forwarded-for', remoteAddress ?? 'unknown');
  return route(request, headers);
}

/** Replaces whatever X-Forwarded-For the client sent with the address of its connection. */
function stateClientAddress(incoming: IncomingMessage): void {
  const address = incoming.socket.remoteAddress ?? 'unknown';
  const raw = incoming.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i].toLowerCase() === 'x-forwarded-for') raw.splice(i, 2);
  raw.push('X-Forwarded-For', address);
  incoming.headers['x-forwarded-for'] = address;
}

/**
 * The local server's request listener. Node's adapter (getRequestListener) hands a function a
 * lightweight Request that becomes a full one only when something needs it, and streams a response
 * built from a string without copying it; so the gateway's work (the function's path, the client
 * address) is done on the incoming message before the adapter sees it, and nothing is copied on the
 * way. A method the Fetch API cannot construct a Request with (TRACE) reaches the function as itself
 * and is answered 405 like any undeclared method.
 */
const dotSegment = /\/(\.|%2e){1,2}(\/|\?|#|$)/i;

export function gatewayListener(): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  const listeners = Object.fromEntries(
    Object.entries(functions).map(([name, app]) => [name, getRequestListener((request) => app.fetch(request))]),
  );
  const unknown = getRequestListener((request) => notFound(new URL(request.url).pathname));
  return (incoming, outgoing) => {
    // A dot segment, plain or percent-encoded, would be resolved away by URL parsing and let a path
    // under one function reach another (/claims/%2e%2e/properties is /properties): no path has one.
    if (dotSegment.test(incoming.url ?? '')) return void unknown(incoming, outgoing);
    const url = new URL(incoming.url ?? '/', 'http://gateway');
    const target = functionPath(url.pathname);
    if (!target) return void unknown(incoming, outgoing);
    incoming.url = target.path + url.search;
    stateClientAddress(incoming);
    void listeners[target.name](incoming, outgoing);
  };
}

/**
 * A request Node's HTTP parser refuses before any function sees it is answered with the API's error
 * envelope, as JSON, not Node's bare 400 without a body, and with a status every route documents: a
 * header the parser cannot take (a control character in its value, headers past Node's 16 KB) is
 * 422 invalid_field on `headers`; anything else (a malformed request line, a broken chunked body)
 * is 400 invalid_json, the request could not be read. The connection then closes.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const header = /HEADER/.test(error.code ?? '');
  const problem = error.code === 'HPE_HEADER_OVERFLOW'
    ? new ApiError('invalid_field', 'The request headers are too large (at most 16 KB in all).', 'headers')
    : header
      ? new ApiError('invalid_field', 'A request header could not be read (for example a control character in its value).', 'headers')
      : new ApiError('invalid_json', 'The request could not be read: its request line or body framing is malformed.');
  const body = JSON.stringify(problem.toBody());
  socket.end(`HTTP/1.1 ${header ? '422 Unprocessable Entity' : '400 Bad Request'}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`);
}

/**
 * CONNECT, which Node hands to a 'connect' listener with the bare socket (and, without one, resets
 * the connection unanswered). A path is answered like any method its route does not declare, by the
 * function (405 with Allow, or the JSON 404): the request goes through the gateway's listener with a
 * response written to that socket. A host (`CONNECT example.com:443`, a proxy request) has no
 * resource here: 405 with an empty Allow. Nothing is tunnelled; the connection then closes.
 */
function answerConnect(listener: ReturnType<typeof gatewayListener>) {
  return (incoming: IncomingMessage, socket: Duplex): void => {
    if (incoming.url?.startsWith('/')) {
      const outgoing = new ServerResponse(incoming);
      outgoing.shouldKeepAlive = false;
      outgoing.assignSocket(socket as Socket);
      outgoing.on('finish', () => socket.end());
      listener(incoming, outgoing);
      return;
    }
    const body = JSON.stringify(new ApiError('method_not_allowed', 'CONNECT is not allowed: this server is not a proxy; call the API\'s paths under /functions/v1.').toBody());
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nallow: \r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`);
  };
}

/** The local server: the gateway's listener, and the API's envelope for requests Node cannot parse and for CONNECT. */
export function createGatewayServer(): Server {
  const listener = gatewayListener();
  const server = createServer(listener);
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect(listener));
  return server;
}
