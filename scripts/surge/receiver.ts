// The surge's webhook receiver: a local HTTPS endpoint (the test authority's certificate for
// 127.0.0.1, trusted by the servers through NODE_EXTRA_CA_CERTS) that answers 200 at once and keeps,
// for every event id, how many times it arrived and how long after the event was recorded.
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
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const delays: number[] = [];
  const server = createServer({ cert: readFileSync(join(tls, 'receiver.pem')), key: readFileSync(join(tls, 'receiver-key.pem')), keepAliveTimeout: 60_000 }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const envelope = JSON.parse(body) as { id: string; created_at: string };
        const seen = arrivals.get(envelope.id) ?? 0;
        arrivals.set(envelope.id, seen + 1);
        if (seen === 0) delays.push(Date.now() - Date.parse(envelope.created_at));
      } catch {
        // not an envelope: counts for nothing
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${port}/surge`, arrivals, delays,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
