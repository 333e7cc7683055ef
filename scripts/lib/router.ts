import { apiGroups } from '../../functions/groups.ts';
import { app as docs } from '../../functions/docs/app.ts';
import { app as health } from '../../functions/health/app.ts';
import { app as pay } from '../../functions/pay/app.ts';
import { app as paymentsWebhook } from '../../functions/payments-webhook/app.ts';
import { app as webhookDispatcher } from '../../functions/webhook-dispatcher/app.ts';
import { app as esignCallback } from '../../functions/esign-callback/app.ts';
import { ApiError } from '../../shared/http/errors.ts';

// The local stand-in for Supabase's functions gateway: `/functions/v1/<name>/...` is handed to the
// function `<name>` as `/<name>/...`, exactly as deployed functions receive it.

type FetchApp = { fetch: (request: Request, env?: { requestMethod?: string }) => Response | Promise<Response> };

const functions: Record<string, FetchApp> = {
  health,
  docs,
  // Internal: pg_cron's target on Supabase; locally the server's timer dispatches directly.
  'webhook-dispatcher': webhookDispatcher,
  // Internal: the live e-signature provider's callbacks (verified by the adapter, no API key).
  'esign-callback': esignCallback,
  // The pay-in-app page: HTML for the payer's browser, authorised by its signed link.
  pay,
  // Internal: the payment processor's notifications (verified by the adapter, no API key).
  'payments-webhook': paymentsWebhook,
  ...Object.fromEntries(apiGroups.map((group) => [group.name, group.app])),
};

export const basePath = '/functions/v1';

/** Methods a Request cannot carry (the Fetch standard forbids them): they travel as GET, the method sent beside. */
const forbidden = new Set(['TRACE', 'TRACK', 'CONNECT']);

/**
 * Hands the request to its function, in one new Request: the URL without the base path and, from the
 * server, the headers with the client address. One copy only: each copy of a Request with a body
 * pipes the body through another stream. A method a Request cannot carry (TRACE arrives from Node's
 * adapter as such) is passed on beside it, and the functions answer it 405 like any undeclared
 * method, never as the GET it travels as.
 */
export async function route(request: Request, headers: Headers = request.headers): Promise<Response> {
  const url = new URL(request.url);
  // The OpenAPI document is also offered at the address the operating contract names.
  if (url.pathname === `${basePath}/openapi.json`) url.pathname = `${basePath}/docs/openapi.json`;
  const name = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length + 1).split('/')[0] : '';
  const target = functions[name];
  if (!target) {
    const error = new ApiError('not_found', `No endpoint at ${url.pathname}.`);
    return Response.json(error.toBody(), { status: 404 });
  }
  url.pathname = url.pathname.slice(basePath.length);
  const sent = request.method;
  const method = forbidden.has(sent) ? 'GET' : sent;
  const body = method === 'GET' || method === 'HEAD' ? null : request.body;
  const handed = new Request(url, { method, headers, body, duplex: 'half', signal: request.signal } as RequestInit);
  return target.fetch(handed, method === sent ? undefined : { requestMethod: sent });
}

/** The local server's handler: as Supabase's edge does, it states the client address (a client cannot forge it). */
export function serverFetch(request: Request, remoteAddress: string | undefined): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set('x-forwarded-for', remoteAddress ?? 'unknown');
  return route(request, headers);
}
