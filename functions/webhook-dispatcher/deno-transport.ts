// The Edge Runtime's webhook transport: the connection goes to the very address that was checked.
// fetch would resolve the host again to connect, after the dispatcher's check resolved it, and a
// name that changes its answer in between (DNS rebinding) would reach an address the check refused;
// Deno's fetch has no hook for its lookup. So this transport resolves once, refuses a blocked answer,
// opens TCP to that address (Deno.connect) and only then TLS with the host name (Deno.startTls, which
// verifies the certificate for it), the two calls postgres.js itself makes on this runtime. It speaks
// just the HTTP/1.1 a delivery needs: one POST, Connection: close, the status, the headers and the
// start of the answer (the dispatcher keeps 1 KB of it). Deno only: index.ts passes it in; the
// local server has its own (scripts/lib/pinned-transport.ts).
import { connectableAddresses, systemResolver, type HostResolver } from '../../shared/webhooks/destination.ts';
import type { WebhookTransport } from '../../shared/webhooks/dispatcher.ts';
import { log } from '../../shared/log.ts';

/** What a runtime throws when it will not let this code open a socket itself (Deno 2 says NotCapable). */
const refusedByRuntime = ['NotCapable', 'PermissionDenied', 'NotSupported'];

/** How much of an answer is read by default: its head and the start of its body, never the rest. */
const defaultAnswerBytes = 64 * 1024;

const isAddress = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

/** The head of an HTTP/1.1 answer and the bytes of body after it. */
function parseAnswer(bytes: Uint8Array): Response {
  const text = new TextDecoder('latin1').decode(bytes);
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error('the answer ended before its headers did');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!(status >= 200 && status <= 599)) throw new Error('the answer has no HTTP/1.1 status line');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let body = bytes.subarray(end + 4);
  // A chunked answer: the start of its data without the chunk sizes (only an excerpt is kept).
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const parts: Uint8Array[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = new TextDecoder('latin1').decode(body.subarray(at, at + 20)).indexOf('\r\n');
      const size = lineEnd < 0 ? NaN : parseInt(new TextDecoder('latin1').decode(body.subarray(at, at + lineEnd)), 16);
      if (!(size > 0)) break;
      parts.push(body.subarray(at + lineEnd + 2, at + lineEnd + 2 + size));
      at += lineEnd + 2 + size + 2;
    }
    body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((offset, part) => (body.set(part, offset), offset + part.length), 0);
  }
  headers.delete('transfer-encoding');
  headers.delete('content-length');
  return new Response([204, 205, 304].includes(status) ? null : body.slice(), { status, headers });
}

/** `maxAnswerBytes`: more than a delivery's excerpt for a caller that reads the whole answer (a calendar feed). */
export function pinnedTransport(options: { allowPrivate: boolean; resolve?: HostResolver; caCerts?: string[]; maxAnswerBytes?: number }): WebhookTransport {
  const resolve = options.resolve ?? systemResolver;
  const maxAnswerBytes = options.maxAnswerBytes ?? defaultAnswerBytes;
  return async (url, init) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = connectableAddresses(host, isAddress(host) ? [host] : await resolve(host), options.allowPrivate);
    let tcp: Deno.TcpConn;
    try {
      tcp = await Deno.connect({ hostname: addresses[0], port: Number(url.port || 443) });
    } catch (error) {
      // A runtime that does not let a function open sockets itself: deliveries still go, through
      // fetch (checked just before, as before this transport), and the log says the window is open.
      if (!refusedByRuntime.includes((error as Error).name)) throw error;
      log.error('webhook connections fall back to fetch: this runtime refuses Deno.connect', { error: (error as Error).message });
      return fetch(url, init);
    }
    // The TCP connection until TLS takes it over, then the TLS one.
    let connection: { close(): void } = tcp;
    const closeOnAbort = () => {
      try {
        connection.close();
      } catch {
        // closed already
      }
    };
    init.signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      const tls = await Deno.startTls(tcp, { hostname: host, caCerts: options.caCerts });
      connection = tls;
      const body = new TextEncoder().encode(String(init.body ?? ''));
      const head = [`${init.method ?? 'POST'} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, `Content-Length: ${body.byteLength}`, 'Connection: close'];
      for (const [name, value] of new Headers(init.headers).entries()) head.push(`${name}: ${value}`);
      const request = new Uint8Array([...new TextEncoder().encode(`${head.join('\r\n')}\r\n\r\n`), ...body]);
      for (let written = 0; written < request.byteLength; ) written += await tls.write(request.subarray(written));
      const chunks: Uint8Array[] = [];
      let size = 0;
      const buffer = new Uint8Array(16 * 1024);
      while (size < maxAnswerBytes) {
        const read = await tls.read(buffer);
        if (read === null) break;
        chunks.push(buffer.slice(0, read));
        size += read;
      }
      const all = new Uint8Array(size);
      chunks.reduce((offset, chunk) => (all.set(chunk, offset), offset + chunk.length), 0);
      return parseAnswer(all);
    } catch (error) {
      if (init.signal.aborted) throw init.signal.reason;
      throw error;
    } finally {
      init.signal.removeEventListener('abort', closeOnAbort);
      closeOnAbort();
    }
  };
}
