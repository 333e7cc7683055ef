import { createServer, type Server, type Socket } from 'node:net';

// A small SMTP server that accepts every message (or refuses the recipients it is told to), for the
// local mail catcher (`npm run mail`) and the tests of the SMTP adapter. It speaks what a mail client
// sends a catcher: EHLO/HELO, AUTH PLAIN (any credentials), MAIL, RCPT, DATA, RSET, NOOP, QUIT. It
// listens on loopback only and never relays: a message ends in `onMessage`, nowhere else.

export interface Received {
  from: string;
  to: string[];
  /** The message after DATA (headers and body), without the final dot, dots unstuffed. */
  data: string;
  /** The credentials of AUTH PLAIN as sent (`\0user\0password`), when the client authenticated. */
  auth?: string;
}

export interface SmtpServerOptions {
  /** Recipients answered 550 (a mailbox that does not exist). */
  refuse?: RegExp;
  onMessage: (message: Received) => void;
  /** Largest message accepted; a larger one is answered 552 and dropped. */
  maxBytes?: number;
}

export interface Listening {
  port: number;
  stop: () => Promise<void>;
}

/** Starts listening on 127.0.0.1 (port 0: any free port) and resolves with the port it got. */
export function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

export const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

export async function startSmtpServer(port: number, options: SmtpServerOptions): Promise<Listening> {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    let buffer = '';
    let inData = false;
    let current: Received = { from: '', to: [] , data: '' };
    const say = (line: string) => socket.write(`${line}\r\n`);
    socket.setTimeout(60_000, () => socket.end());
    socket.on('error', () => socket.destroy());
    say('220 127.0.0.1 ESMTP mail catcher');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.startsWith('.\r\n') ? -2 : buffer.indexOf('\r\n.\r\n');
          if (end === -1) {
            if (buffer.length <= maxBytes) return;
            say('552 5.3.4 message too big');
            socket.end();
            return;
          }
          current.data = buffer.slice(0, Math.max(end, 0)).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          inData = false;
          options.onMessage(current);
          current = { from: '', to: [], data: '', auth: current.auth };
          say('250 2.0.0 Ok: queued as Q123');
          continue;
        }
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const verb = line.split(/[ :]/)[0].toUpperCase();
        const address = /<(.*)>/.exec(line)?.[1];
        if (verb === 'EHLO') say('250-127.0.0.1\r\n250-AUTH PLAIN\r\n250-8BITMIME\r\n250 SIZE ' + maxBytes);
        else if (verb === 'HELO') say('250 127.0.0.1');
        else if (verb === 'AUTH') {
          current.auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8');
          say('235 2.7.0 ok');
        } else if (verb === 'MAIL' && address !== undefined) { current.from = address; current.to = []; say('250 ok'); }
        else if (verb === 'RCPT' && address !== undefined) {
          if (options.refuse?.test(address)) say('550 5.1.1 no such mailbox');
          else { current.to.push(address); say('250 ok'); }
        } else if (verb === 'DATA') {
          if (current.to.length === 0) say('503 5.5.1 no recipients');
          else { inData = true; say('354 go ahead'); }
        } else if (verb === 'RSET') { current = { from: '', to: [], data: '', auth: current.auth }; say('250 ok'); }
        else if (verb === 'NOOP') say('250 ok');
        else if (verb === 'QUIT') { say('221 bye'); socket.end(); return; }
        else say('502 5.5.2 not implemented');
      }
    });
  });
  const bound = await listen(server, port);
  // Stopping ends the conversations still open (a client that never says QUIT), rather than waiting for them.
  return { port: bound, stop: () => { for (const socket of open) socket.destroy(); return closed(server); } };
}
