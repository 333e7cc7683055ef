// The local server's webhook transport: an HTTPS request whose connection is made to addresses
// checked at the moment of connecting. The dispatcher's check (shared/webhooks/destination.ts)
// resolves the host before the attempt; fetch would resolve it again to connect, and a name that
// changes its answer in between (DNS rebinding) would reach an address the check refused. Here the
// connection's own lookup refuses such an answer, so no second answer is ever used. TLS still
// verifies the certificate against the host name. Node only (node:https); the Edge Runtime uses fetch.
import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { connectableAddresses } from '../../shared/webhooks/destination.ts';
import type { WebhookTransport } from '../../shared/webhooks/dispatcher.ts';

/** Resolves a host to its addresses, as the connection will use them (replaceable in tests). */
export type AddressLookup = (hostname: string) => Promise<LookupAddress[]>;

const systemAddresses: AddressLookup = (hostname) =>
  new Promise((resolve, reject) => systemLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** Statuses whose answer has no body (the Response constructor refuses one). */
const bodiless = new Set([101, 204, 205, 304]);

function toResponse(incoming: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  const status = incoming.statusCode ?? 502;
  const body = bodiless.has(status) ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: incoming.statusMessage, headers });
}

export function pinnedTransport(options: { allowPrivate: boolean; lookup?: AddressLookup }): WebhookTransport {
  const addressesOf = options.lookup ?? systemAddresses;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    addressesOf(hostname).then((resolved) => {
      const addresses = connectableAddresses(hostname, resolved, options.allowPrivate);
      if (lookupOptions.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    }).catch((error: Error) => (callback as (error: Error) => void)(error));
  };
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const outgoing = request(url, { method: init.method, headers: init.headers as Record<string, string>, signal: init.signal, lookup }, (incoming) => resolve(toResponse(incoming)));
      outgoing.on('error', reject);
      outgoing.end(init.body as string | undefined);
    });
}
