// Email over SMTP (EMAIL_TRANSPORT=smtp), as a local live deployment points it at a mail catcher: a
// tiny SMTP server in this process receives what the send job sends, through the real HTTP surface
// and the real job runner. The link the household gets goes out in the message and is stored nowhere.
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainJobs, jobsOf, scene } from './fixtures.ts';
import { isLoopback, smtpEmail } from '../../shared/placements/ports/smtp.ts';
import { startSmtpServer, type Listening, type Received } from '../../scripts/mail/smtp-server.ts';
import { startCatcher } from '../../scripts/mail/catcher.ts';

/** The decoded text of a MIME part of the given type. */
function partOf(data: string, type: string): string {
  const at = data.indexOf(`Content-Type: ${type}`);
  const body = data.slice(data.indexOf('\r\n\r\n', at) + 4).split(/\r\n--|\r\n\r\n/)[0];
  return Buffer.from(body.replace(/\r\n/g, ''), 'base64').toString('utf8');
}

// The SMTP server of the local mail catcher (`npm run mail`), refusing one mailbox.
const received: Received[] = [];
let smtp: Listening;
let port = 0;
beforeAll(async () => {
  smtp = await startSmtpServer(0, { refuse: /nobody@/, onMessage: (message) => received.push(message) });
  port = smtp.port;
});
afterAll(() => smtp.stop());
afterEach(() => vi.unstubAllEnvs());

describe('email over SMTP', () => {
  it("a live home sent to the household: its link goes out over SMTP to the catcher, and is kept nowhere", async () => {
    for (const [name, value] of Object.entries({
      EMAIL_TRANSPORT: 'smtp', SMTP_URL: `smtp://placements:secret@127.0.0.1:${port}`, EMAIL_FROM: 'Placements <placements@example.test>', EMAIL_API_KEY: '',
    })) vi.stubEnv(name, value);
    const s = await scene('live');
    const sent = await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
    expect(sent.body.data.household_link_delivery).toBe('queued');
    const before = received.length;
    await drainJobs(s.c.orgId);
    const [job] = await jobsOf(s.c.orgId, 'send_household_link');
    expect(job).toMatchObject({ status: 'succeeded', result: { to: ['family@example.com'], provider_ref: expect.stringContaining('Q123') } });
    const mail = received.slice(before).find((m) => m.to.includes('family@example.com'))!;
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
    const before = received.length;
    await email.send({ to: ['ada@example.test'], subject: 'Grüße', text: 'Hallo\n.\nnext', topic: 't' });
    const mail = received[before];
    expect(mail.data).toContain('Subject: =?UTF-8?B?');
    expect(partOf(mail.data, 'text/plain')).toBe('Hallo\n.\nnext');
  });

  it('sends nothing in clear to a host that is not loopback: no STARTTLS offered (or stripped) is refused', async () => {
    expect([isLoopback('127.0.0.1'), isLoopback('localhost'), isLoopback('::1')]).toEqual([true, true, true]);
    expect([isLoopback('smtp.example.com'), isLoopback('10.0.0.5'), isLoopback('127.example.com')]).toEqual([false, false, false]);
    const message = { to: ['ada@example.test'], subject: 'Your link', text: 'https://x.example/household/secret', topic: 't' };
    // The catcher offers no STARTTLS: on loopback the message goes out in clear ...
    const before = received.length;
    await smtpEmail({ url: `smtp://127.0.0.1:${port}`, from: 'placements@example.test' }).send(message);
    expect(received.length).toBe(before + 1);
    // ... to the same server taken for a remote one, neither credentials nor message are sent.
    const remote = smtpEmail({ url: `smtp://user:pw@127.0.0.1:${port}`, from: 'placements@example.test', loopback: () => false });
    await expect(remote.send(message)).rejects.toThrow('SMTP server 127.0.0.1 offers no STARTTLS: nothing is sent in clear');
    const anonymous = smtpEmail({ url: `smtp://127.0.0.1:${port}`, from: 'placements@example.test', loopback: () => false });
    await expect(anonymous.send(message)).rejects.toThrow('offers no STARTTLS');
    expect(received.length).toBe(before + 1);
  });

  it('a reply sent in clear after STARTTLS, before the handshake, is refused rather than read as one over TLS', async () => {
    const injector = createServer((socket) => {
      socket.write('220 mx ESMTP\r\n');
      socket.on('data', (chunk) => {
        const verb = chunk.toString('utf8').slice(0, 8).toUpperCase();
        if (verb.startsWith('EHLO')) socket.write('250-mx\r\n250 STARTTLS\r\n');
        // The 220 and, in the same packet, what a man in the middle would have the client take for the server's words over TLS.
        else if (verb.startsWith('STARTTLS')) socket.write('220 go ahead\r\n250-mx\r\n250 AUTH PLAIN\r\n');
      });
    });
    await new Promise<void>((resolve) => injector.listen(0, '127.0.0.1', resolve));
    try {
      const email = smtpEmail({ url: `smtp://127.0.0.1:${(injector.address() as { port: number }).port}`, from: 'placements@example.test', timeoutMs: 2000 });
      await expect(email.send({ to: ['ada@example.test'], subject: 's', text: 't', topic: 't' })).rejects.toThrow('SMTP server sent data before the TLS handshake');
    } finally {
      injector.close();
    }
  });

  it('the local mail catcher (`npm run mail`) shows the household its link, and its inbox runs none of a message\'s HTML', async () => {
    const catcher = await startCatcher({ smtpPort: 0, httpPort: 0, keep: 2 });
    try {
      for (const [name, value] of Object.entries({
        EMAIL_TRANSPORT: 'smtp', SMTP_URL: `smtp://127.0.0.1:${catcher.smtpPort}`, EMAIL_FROM: 'Placements <placements@example.test>', EMAIL_API_KEY: '',
      })) vi.stubEnv(name, value);
      const s = await scene('live');
      await s.api.post(`/claims/${s.ref}/options`, { property_id: s.home, action: 'send', approve_budget: true });
      await drainJobs(s.c.orgId);
      const inbox = `http://127.0.0.1:${catcher.httpPort}`;
      const listed = await fetch(`${inbox}/api/messages`);
      expect(listed.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const { data } = await listed.json() as { data: { id: string; envelope_to: string[]; from: string; subject: string; text: string; html: string; received_at: string }[] };
      const mail = data.find((m) => m.envelope_to.includes('family@example.com'))!;
      expect(mail).toMatchObject({ from: 'Placements <placements@example.test>', subject: expect.stringMatching(/^A home for you/), received_at: expect.stringMatching(/^\d{4}-/) });
      expect(mail.text).toMatch(/\/household\/[A-Za-z0-9_.-]{16,}/);
      expect(mail.html).toContain('<a href=');

      // A message whose HTML carries a script: the inbox shows it escaped, in a sandboxed frame, under a policy that runs nothing.
      await smtpEmail({ url: `smtp://127.0.0.1:${catcher.smtpPort}`, from: 'x@example.test' })
        .send({ to: ['ada@example.test'], subject: 'Grüße <b>', text: 'Hallo', html: '<p>hi</p><script>parent.document.title="owned"</script>', topic: 't' });
      const [newest] = catcher.messages;
      expect(newest.subject).toBe('Grüße <b>');
      const shown = await fetch(`${inbox}/messages/${newest.id}`);
      const html = await shown.text();
      expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(html).toContain('<iframe title="The message as HTML" sandbox srcdoc="&lt;p&gt;hi&lt;/p&gt;&lt;script&gt;');
      expect(html).not.toContain('<script');
      expect(html).toContain('Grüße &lt;b&gt;');
      const list = await (await fetch(`${inbox}/`)).text();
      expect(list).toContain(`<a href="/messages/${newest.id}">Grüße &lt;b&gt;</a>`);
      expect(list).toContain('family@example.com');

      // Bounded: the oldest message goes once `keep` newer ones arrived.
      await smtpEmail({ url: `smtp://127.0.0.1:${catcher.smtpPort}`, from: 'x@example.test' }).send({ to: ['bo@example.test'], subject: 'third', text: '.', topic: 't' });
      const kept = await (await fetch(`${inbox}/api/messages`)).json() as { data: { subject: string; text: string }[]; count: number };
      expect(kept.count).toBe(2);
      expect(kept.data.map((m) => m.subject)).toEqual(['third', 'Grüße <b>']);
      expect(kept.data[0].text).toBe('.');
      expect((await fetch(`${inbox}/messages/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
      // A page that rebound its own name to the loopback is not answered.
      const rebound = await new Promise<number>((resolve, reject) =>
        request({ host: '127.0.0.1', port: catcher.httpPort, path: '/api/messages', headers: { host: 'attacker.example' } }, (response) => resolve(response.statusCode!))
          .on('error', reject).end());
      expect(rebound).toBe(421);
    } finally {
      await catcher.stop();
    }
  });
});
