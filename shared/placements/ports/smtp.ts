import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { EmailMessage, EmailPort } from './types.ts';
import { required, sha256Hex } from './provider.ts';

// Live email adapter over SMTP (EMAIL_TRANSPORT=smtp): any mail server or relay, and the mail catchers
// a local deployment points at (Mailpit, which `supabase start` ships: its inbox on port 54324, SMTP on
// 54325 once the stack's config opens it; or, without Docker, the catcher `npm run mail` starts). A
// small client over node:net and node:tls, which Node and Deno (the Edge Runtime) both provide, so no
// package is needed and the adapter runs on both; a package (nodemailer) would pull in Node-only
// modules the Edge Runtime cannot load.
//
// SMTP_URL: smtp://[user:password@]host[:port] (default port 587, upgraded with STARTTLS), or
// smtps://... (TLS from the first byte, default port 465). The household's link in the message is a
// credential: to any host but a loopback one (a local catcher) nothing is sent, credentials or
// message, unless the connection is TLS; a server that does not offer STARTTLS (or whose offer a
// man in the middle stripped) is refused rather than spoken to in clear. SMTP has no idempotency key: a job retried after
// the server accepted the message but before the answer arrived sends it again; the Message-ID, derived
// from the message like Resend's Idempotency-Key, is the same on both, so a mail client shows one.

export interface SmtpOptions {
  /** SMTP_URL. */
  url?: string;
  /** EMAIL_FROM: `Name <address>` or a bare address. */
  from?: string;
  /** How long each step of the conversation may take. */
  timeoutMs?: number;
  /** Which hosts may be spoken to without TLS (default: loopback addresses only). */
  loopback?: (host: string) => boolean;
}

const what = 'email (SMTP)';

/** The envelope address of `Name <address>` or of a bare address. */
export const addressOf = (mailbox: string) => (/<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();

/** A header value, RFC 2047 encoded when it is not plain ASCII. */
const headerText = (value: string) =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${base64(new TextEncoder().encode(value))}?=`;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A UTF-8 body part in base64, lines of 76 characters: no line of the text can end the DATA. */
const part = (type: string, text: string) =>
  `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64(new TextEncoder().encode(text)).replace(/.{76}/g, '$&\r\n')}\r\n`;

/** The message as sent after DATA (RFC 5322, MIME), without the final dot. */
export async function formatMessage(message: EmailMessage, from: string, now = new Date()): Promise<{ data: string; messageId: string }> {
  const digest = await sha256Hex(JSON.stringify([message.topic, message.to, message.subject, message.text]));
  const messageId = `<${digest.slice(0, 32)}@${addressOf(from).split('@')[1] ?? 'localhost'}>`;
  const headers = [
    `From: ${headerText(from)}`,
    `To: ${message.to.join(', ')}`,
    `Subject: ${headerText(message.subject)}`,
    `Date: ${now.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: ${messageId}`,
    `X-Message-Topic: ${message.topic.replace(/[^\x21-\x7e]/g, '_')}`,
    'MIME-Version: 1.0',
  ];
  if (!message.html) return { data: `${headers.join('\r\n')}\r\n${part('text/plain', message.text)}`, messageId };
  const boundary = `=_${digest.slice(32, 56)}`;
  const body = `--${boundary}\r\n${part('text/plain', message.text)}--${boundary}\r\n${part('text/html', message.html)}--${boundary}--\r\n`;
  return { data: `${headers.join('\r\n')}\r\nContent-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n${body}`, messageId };
}

/** One SMTP conversation: replies read line by line, each command checked against the codes it may get. */
class Conversation {
  private buffer = '';
  private waiting: ((line: string | Error) => void) | undefined;
  private lines: (string | Error)[] = [];

  constructor(private socket: Socket, private timeoutMs: number) {
    this.listen(socket);
  }

  private listen(socket: Socket) {
    socket.setEncoding('utf8');
    socket.setTimeout(this.timeoutMs, () => socket.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end;
      while ((end = this.buffer.indexOf('\n')) >= 0) {
        this.push(this.buffer.slice(0, end).replace(/\r$/, ''));
        this.buffer = this.buffer.slice(end + 1);
      }
    });
    socket.on('error', (error: Error) => this.push(error));
    socket.on('close', () => this.push(new Error('the server closed the connection')));
  }

  private push(line: string | Error) {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(line);
    else this.lines.push(line);
  }

  private nextLine(): Promise<string> {
    const line = this.lines.shift();
    const settle = (value: string | Error) => (value instanceof Error ? Promise.reject(value) : Promise.resolve(value));
    if (line !== undefined) return settle(line);
    return new Promise<string | Error>((resolve) => (this.waiting = resolve)).then(settle);
  }

  /** Reads one reply (all its lines); throws unless its code is one of `expected`. */
  async reply(command: string, expected: number[]): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    for (;;) {
      const line = await this.nextLine();
      lines.push(line.slice(4));
      if (line[3] !== '-') {
        const code = Number(line.slice(0, 3));
        if (!expected.includes(code)) throw new Error(`SMTP ${command} answered ${line.slice(0, 3)}: ${lines.join(' ').trim()}`);
        return { code, lines };
      }
    }
  }

  async send(command: string, expected: number[], shown = command.split(' ')[0]) {
    this.socket.write(`${command}\r\n`);
    return this.reply(shown, expected);
  }

  /**
   * Upgrades the connection to TLS (after STARTTLS's 220). Anything the server sent after that 220
   * arrived in clear, before the handshake, so could have been injected: it is refused rather than
   * read as a reply over TLS.
   */
  async upgrade(host: string): Promise<void> {
    this.socket.removeAllListeners('data').removeAllListeners('close').removeAllListeners('error');
    if (this.buffer !== '' || this.lines.length > 0) throw new Error('SMTP server sent data before the TLS handshake: refused');
    const secure = tlsConnect({ socket: this.socket, servername: host });
    await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    this.socket = secure;
    this.listen(secure);
  }

  close() {
    this.socket.destroy();
  }
}

/** Whether a host is this machine, which may be spoken to in clear (a local catcher). */
export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

export function smtpEmail(options: SmtpOptions): EmailPort {
  return {
    kind: 'live',
    async send(message) {
      const url = new URL(required(options.url, what, 'SMTP_URL'));
      const from = required(options.from, what, 'EMAIL_FROM');
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('SMTP_URL must start smtp:// or smtps://');
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const implicitTls = url.protocol === 'smtps:';
      const port = Number(url.port || (implicitTls ? 465 : 587));
      const timeoutMs = options.timeoutMs ?? 15_000;
      const clearAllowed = (options.loopback ?? isLoopback)(host);
      const { data, messageId } = await formatMessage(message, from);

      const socket = await new Promise<Socket>((resolve, reject) => {
        const opened: Socket = implicitTls
          ? tlsConnect({ host, port, servername: host }, () => resolve(opened))
          : netConnect({ host, port }, () => resolve(opened));
        opened.once('error', (error) => reject(new Error(`SMTP connection to ${host}:${port} failed: ${error.message}`)));
        opened.setTimeout(timeoutMs, () => opened.destroy(new Error(`no connection within ${timeoutMs} ms`)));
      });
      const smtp = new Conversation(socket, timeoutMs);
      try {
        await smtp.reply('greeting', [220]);
        let hello = await smtp.send('EHLO housing-placement.local', [250], 'EHLO');
        let secure = implicitTls;
        if (!secure && hello.lines.some((line) => /^STARTTLS\b/i.test(line))) {
          await smtp.send('STARTTLS', [220]);
          await smtp.upgrade(host);
          secure = true;
          hello = await smtp.send('EHLO housing-placement.local', [250], 'EHLO');
        }
        if (!secure && !clearAllowed) throw new Error(`SMTP server ${host} offers no STARTTLS: nothing is sent in clear (use a server that offers it, or smtps://)`);
        if (url.username) {
          const credentials = base64(new TextEncoder().encode(`\0${decodeURIComponent(url.username)}\0${decodeURIComponent(url.password)}`));
          await smtp.send(`AUTH PLAIN ${credentials}`, [235], 'AUTH');
        }
        await smtp.send(`MAIL FROM:<${addressOf(from)}>`, [250], 'MAIL FROM');
        for (const to of message.to) await smtp.send(`RCPT TO:<${addressOf(to)}>`, [250, 251], 'RCPT TO');
        await smtp.send('DATA', [354]);
        // Every body line is base64 or a header, so none starts with a dot; the dot ends the message.
        const accepted = await smtp.send(`${data}.`, [250], 'DATA (message)');
        await smtp.send('QUIT', [221]).catch(() => undefined);
        // The server's queue id when it names one ("Ok: queued as 4C1F..."), else our Message-ID.
        const queued = /queued as\s+(\S+)/i.exec(accepted.lines.join(' '))?.[1];
        return { providerRef: queued ? `${messageId} ${queued}` : messageId };
      } finally {
        smtp.close();
      }
    },
  };
}
