import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { escapeHtml } from '../../shared/http/page.ts';
import { closed, listen, startSmtpServer } from './smtp-server.ts';
import { parseMessage, type ParsedMessage } from './message.ts';

// The local mail catcher (`npm run mail`): an SMTP server and a web inbox, both on loopback, the
// ports Mailpit uses (1025, 8025). What arrives is kept in memory, the newest `keep` messages, and
// gone when the catcher stops; a live household link in a caught message is the operator's own test.
//
// The inbox shows a message's HTML in an iframe with `sandbox` (no scripts, an opaque origin) and
// `srcdoc`, under a Content-Security-Policy that lets nothing load: a message cannot run code in the
// inbox's origin or reach the network. Everything else it shows is escaped text.

export interface CaughtMessage extends ParsedMessage {
  id: string;
  envelope_from: string;
  envelope_to: string[];
  received_at: string;
  size: number;
}

export interface CatcherOptions {
  smtpPort?: number;
  httpPort?: number;
  /** How many messages are kept; older ones are dropped. */
  keep?: number;
}


const security = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const style = `body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1a1a1a}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.5rem;border-bottom:1px solid #ccc;vertical-align:top}
a{color:#0645ad;display:inline-block;min-height:44px;line-height:44px}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:1rem}
iframe{width:100%;height:32rem;border:1px solid #888}dt{font-weight:600}dd{margin:0 0 .5rem}`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${escapeHtml(title)}</title><style>${style}</style></head><body><main>${body}</main></body></html>`;

function listPage(messages: CaughtMessage[], smtpPort: number): string {
  const rows = messages.map((m) =>
    `<tr><td><a href="/messages/${m.id}">${escapeHtml(m.subject || '(no subject)')}</a></td><td>${escapeHtml(m.from)}</td>` +
    `<td>${escapeHtml(m.envelope_to.join(', '))}</td><td><time datetime="${m.received_at}">${escapeHtml(m.received_at.replace('T', ' ').slice(0, 19))} UTC</time></td></tr>`).join('');
  return page('Mail catcher', `<h1>Mail catcher</h1><p>Messages sent to SMTP on 127.0.0.1:${smtpPort}, newest first (${messages.length}). ` +
    `Reload to see new ones; <a href="/api/messages">as JSON</a>.</p>` +
    (messages.length
      ? `<table><caption>Caught messages</caption><thead><tr><th scope="col">Subject</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Received</th></tr></thead><tbody>${rows}</tbody></table>`
      : '<p>No message yet.</p>'));
}

function messagePage(m: CaughtMessage): string {
  return page(m.subject || '(no subject)', `<p><a href="/">All messages</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1><dl>` +
    `<dt>From</dt><dd>${escapeHtml(m.from)}</dd><dt>To</dt><dd>${escapeHtml(m.to || m.envelope_to.join(', '))}</dd>` +
    `<dt>Received</dt><dd><time datetime="${m.received_at}">${escapeHtml(m.received_at)}</time></dd></dl>` +
    (m.html === null ? '' : `<h2>HTML</h2><iframe title="The message as HTML" sandbox srcdoc="${escapeHtml(m.html)}"></iframe>`) +
    (m.text === null ? '' : `<h2>Text</h2><pre>${escapeHtml(m.text)}</pre>`));
}

export async function startCatcher(options: CatcherOptions = {}) {
  const keep = options.keep ?? 500;
  const messages: CaughtMessage[] = [];
  const smtp = await startSmtpServer(options.smtpPort ?? 1025, {
    onMessage(received) {
      messages.unshift({
        id: randomUUID(), envelope_from: received.from, envelope_to: received.to, received_at: new Date().toISOString(),
        size: Buffer.byteLength(received.data), ...parseMessage(received.data),
      });
      messages.splice(keep);
    },
  });
  const http = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': `${type}; charset=utf-8`, ...security });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    // A web page elsewhere could rebind its own name to 127.0.0.1 and read the inbox (live links included):
    // only requests addressed to the loopback by address or as localhost are answered.
    if (!/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i.test(request.headers.host ?? '')) return send(421, 'text/plain', 'address the inbox as 127.0.0.1 or localhost\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'text/plain', 'only GET\n');
    const id = /^\/(?:api\/)?messages\/([0-9a-f-]{36})$/.exec(path)?.[1];
    const found = id ? messages.find((m) => m.id === id) : undefined;
    if (path === '/') return send(200, 'text/html', listPage(messages, smtp.port));
    if (path === '/api/messages') return send(200, 'application/json', JSON.stringify({ data: messages, count: messages.length }));
    if (found && path.startsWith('/api/')) return send(200, 'application/json', JSON.stringify({ data: found }));
    if (found) return send(200, 'text/html', messagePage(found));
    return send(404, 'text/html', page('Not found', '<h1>Not found</h1><p><a href="/">All messages</a></p>'));
  });
  const httpPort = await listen(http, options.httpPort ?? 8025).catch(async (error) => {
    await smtp.stop();
    throw error;
  });
  return {
    smtpPort: smtp.port,
    httpPort,
    messages,
    stop: async () => {
      http.closeAllConnections();
      await Promise.all([smtp.stop(), closed(http)]);
    },
  };
}
