// The surge's webhook receiver: a local HTTPS endpoint (the test authority's certificate for
// 127.0.0.1, trusted by the servers through NODE_EXTRA_CA_CERTS) that answers 200 at once and keeps,
// for every event id, how many times it arrived and how long after the event was recorded. A journey
// waits here for the events a carrier's integration waits for (lease.sent), as a carrier would,
// instead of polling the API for them.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../lib/scratch.ts';

export const tls = new URL('../../tests/fixtures/tls/', import.meta.url).pathname;

export interface Receiver {
  url: string;
  /** Arrivals per event id. */
  arrivals: Map<string, number>;
  /** Event recorded to delivery answered, ms, one per event (its first arrival). */
  delays: number[];
  /**
   * Resolves true once the `nth` event of this type about this request (`data.reference`) has
   * arrived, false if it has not within `timeoutMs`.
   */
  arrived: (event: string, reference: string, nth: number, timeoutMs: number) => Promise<boolean>;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const delays: number[] = [];
  const aboutRequest = new Map<string, number>();
  const waiting = new Map<string, { nth: number; resolve: (arrived: boolean) => void }[]>();
  const seen = (key: string) => {
    const count = (aboutRequest.get(key) ?? 0) + 1;
    aboutRequest.set(key, count);
    const waiters = waiting.get(key) ?? [];
    for (const waiter of waiters.filter((w) => w.nth <= count)) waiter.resolve(true);
    waiting.set(key, waiters.filter((w) => w.nth > count));
  };
  const arrived = (event: string, reference: string, nth: number, timeoutMs: number) => {
    const key = `${event} ${reference}`;
    if ((aboutRequest.get(key) ?? 0) >= nth) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      (waiting.get(key) ?? waiting.set(key, []).get(key)!).push({ nth, resolve: (value) => (clearTimeout(timer), resolve(value)) });
    });
  };
  const server = createServer({ cert: readFileSync(join(tls, 'receiver.pem')), key: readFileSync(join(tls, 'receiver-key.pem')), keepAliveTimeout: 60_000 }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const envelope = JSON.parse(body) as { id: string; event: string; created_at: string; data?: { reference?: string } };
        const before = arrivals.get(envelope.id) ?? 0;
        arrivals.set(envelope.id, before + 1);
        if (before === 0) {
          delays.push(Date.now() - Date.parse(envelope.created_at));
          if (envelope.data?.reference) seen(`${envelope.event} ${envelope.data.reference}`);
        }
      } catch {
        // not an envelope: counts for nothing
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${port}/surge`, arrivals, delays, arrived,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
