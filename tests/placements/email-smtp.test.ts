// Email over SMTP (EMAIL_TRANSPORT=smtp), as a local live deployment points it at a mail catcher: a
// tiny SMTP server in this process receives what the send job sends, through the real HTTP surface
// and the real job runner. The link the household gets goes out in the message and is stored nowhere.
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainJobs, jobsOf, scene } from './fixtures.ts';
import { smtpEmail } from '../../shared/placements/ports/smtp.ts';

interface Received {
  from: string;
  to: string[];
  data: string;
  auth?: string;
}

/** An SMTP server that accepts everything (or refuses recipients matching `refuse`), and keeps what it got. */
function catcher(refuse?: RegExp) {
  const received: Received[] = [];
  const server: Server = createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current: Received = { from: '', to: [], data: '' };
    const say = (line: string) => socket.write(`${line}\r\n`);
    say('220 catcher ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(current);
          current = { from: '', to: [], data: '' };
          say('250 2.0.0 Ok: queued as Q123');
          continue;
        }
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const verb = line.split(/[ :]/)[0].toUpperCase();
        if (verb === 'EHLO') say('250-catcher\r\n250-AUTH PLAIN\r\n250 8BITMIME');
        else if (verb === 'AUTH') { current.auth = Buffer.from(line.split(' ')[2], 'base64').toString('utf8'); say('235 2.7.0 ok'); }
        else if (verb === 'MAIL') { current.from = /<(.*)>/.exec(line)![1]; say('250 ok'); }
        else if (verb === 'RCPT') {
          const to = /<(.*)>/.exec(line)![1];
          if (refuse?.test(to)) say('550 5.1.1 no such mailbox');
          else { current.to.push(to); say('250 ok'); }
        } else if (verb === 'DATA') { inData = true; say('354 go ahead'); }
        else if (verb === 'QUIT') { say('221 bye'); socket.end(); }
        else say('502 not implemented');
      }
    });
  });
  return {
    received,
    start: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port))),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The decoded text of a MIME part of the given type. */
function partOf(data: string, type: string): string {
  const at = data.indexOf(`Content-Type: ${type}`);
  const body = data.slice(data.indexOf('\r\n\r\n', at) + 4).split(/\r\n--|\r\n\r\n/)[0];
  return Buffer.from(body.replace(/\r\n/g, ''), 'base64').toString('utf8');
}

const server = catcher(/nobody@/);
let port = 0;
beforeAll(async () => {
  port = await server.start();
});
afterAll(() => server.stop());
afterEach(() => vi.unstubAllEnvs());

describe('email over SMTP', () => {
  it("a live home sent to the household: its link goes out over SMTP to the catcher, and is kept nowhere", async () => {
    for (const [name, value] of Object.entries({
      EMAIL_TRANSPORT: 'smtp', SMTP_URL: `smtp://placements:secret@127.0.0.1:${port}`, EMAIL_FROM: 'Placements <placements@example.test>', EMAIL_API_KEY: '',
    })) vi.stubEnv(name, value);
    const s = await scene('live');
    const sent = await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    expect(sent.body.data.household_link_delivery).toBe('queued');
    const before = server.received.length;
    await drainJobs(s.c.orgId);
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    expect(job).toMatchObject({ status: 'succeeded', result: { to: ['family@example.com'], provider_ref: expect.stringContaining('Q123') } });
    const mail = server.received.slice(before).find((m) => m.to.includes('family@example.com'))!;
    expect(mail).toMatchObject({ from: 'placements@example.test', auth: '\0placements\0secret' });
    expect(mail.data).toContain('Subject: A home for you');
    expect(mail.data).toContain('From: Placements <placements@example.test>');
    const text = partOf(mail.data, 'text/plain');
    expect(text).toMatch(/\/household\/[A-Za-z0-9_.-]+/);
    expect(partOf(mail.data, 'text/html')).toContain('<a href=');
    // The link went out in the message and nowhere else.
    const link = /\/household\/[A-Za-z0-9_.-]+/.exec(text)![0];
    expect(JSON.stringify(await jobsOf(s.c.orgId))).not.toContain(link);
  });

  it('says what the server refused, and which setting is missing', async () => {
    const email = smtpEmail({ url: `smtp://127.0.0.1:${port}`, from: 'placements@example.test' });
    await expect(email.send({ to: ['nobody@example.test'], subject: 'Grüße', text: 'x', topic: 't' })).rejects.toThrow('SMTP RCPT TO answered 550: 5.1.1 no such mailbox');
    await expect(smtpEmail({ from: 'a@b.example' }).send({ to: ['a@b.example'], subject: 's', text: 't', topic: 't' })).rejects.toThrow('email (SMTP) not configured: set SMTP_URL');
    await expect(smtpEmail({ url: 'smtp://127.0.0.1:9', from: 'a@b.example' }).send({ to: ['a@b.example'], subject: 's', text: 't', topic: 't' })).rejects.toThrow('SMTP connection to 127.0.0.1:9 failed');
    const before = server.received.length;
    await email.send({ to: ['ada@example.test'], subject: 'Grüße', text: 'Hallo\n.\nnext', topic: 't' });
    const mail = server.received[before];
    expect(mail.data).toContain('Subject: =?UTF-8?B?');
    expect(partOf(mail.data, 'text/plain')).toBe('Hallo\n.\nnext');
  });
});
