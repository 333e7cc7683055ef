import type { EmailMessage, EmailPort } from './types.ts';
import { callProvider, required, sha256Hex, type Transport } from './provider.ts';

// Live email adapter: Resend's REST API, `POST {EMAIL_API_URL}/emails` (default
// https://api.resend.com) with `Authorization: Bearer <EMAIL_API_KEY>`; the answer is `{ id }`.
// Every message carries an `Idempotency-Key` derived from its content (topic, recipients, subject,
// text): a job retried after a timeout or a crash sends the same request with the same key, and
// Resend answers it with the first message's id instead of sending it again (for 24 hours, Resend's
// idempotency window). Two different messages never share a key; the same message to the same
// people within a day is sent once.

export interface ResendOptions {
  /** The API's base (EMAIL_API_URL), default https://api.resend.com. */
  apiUrl: string;
  apiKey?: string;
  /** The sender, e.g. `Placements <placements@example.com>` (EMAIL_FROM), on a domain verified at Resend. */
  from?: string;
  fetch?: Transport;
}

const what = 'email (Resend)';

/** The Idempotency-Key of a message (at most 256 characters, Resend's limit). */
export async function emailIdempotencyKey(message: EmailMessage): Promise<string> {
  const digest = await sha256Hex(JSON.stringify([message.topic, message.to, message.subject, message.text]));
  return `${tagValue(message.topic).slice(0, 64)}/${digest}`;
}

/** Resend tags take ASCII letters, digits, underscores and dashes only. */
const tagValue = (value: string) => value.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 256);

export function resendEmail(options: ResendOptions): EmailPort {
  const base = options.apiUrl.replace(/\/+$/, '');
  return {
    kind: 'live',
    async send(message) {
      const authorization = `Bearer ${required(options.apiKey, what, 'EMAIL_API_KEY')}`;
      const from = required(options.from, what, 'EMAIL_FROM');
      const answer = await callProvider('Resend', options.fetch, {
        method: 'POST',
        url: `${base}/emails`,
        headers: { authorization, accept: 'application/json', 'idempotency-key': await emailIdempotencyKey(message) },
        body: {
          from, to: message.to, subject: message.subject, text: message.text, ...(message.html ? { html: message.html } : {}),
          tags: [{ name: 'topic', value: tagValue(message.topic) }],
        },
      });
      const id = (answer as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') throw new Error('Resend POST /emails answered without a message id');
      return { providerRef: id };
    },
  };
}
