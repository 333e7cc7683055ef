// `npm run mail`: the local mail catcher, without Docker. SMTP on 127.0.0.1:1025 and the inbox on
// http://127.0.0.1:8025 (Mailpit's ports); `--smtp-port N` and `--http-port N` choose others (0: any
// free port). Point a local deployment at it with EMAIL_TRANSPORT=smtp SMTP_URL=smtp://127.0.0.1:1025.
import { parseArgs } from 'node:util';
import { startCatcher } from './catcher.ts';

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const port = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    console.error(`mail: --${name} must be a port number from 0 to 65535`);
    process.exit(2);
  }
  return port;
}

const { values } = parseArgs({ options: { 'smtp-port': { type: 'string' }, 'http-port': { type: 'string' } } });
try {
  const catcher = await startCatcher({
    smtpPort: port(values['smtp-port'], 1025, 'smtp-port'),
    httpPort: port(values['http-port'], 8025, 'http-port'),
  });
  console.log(`mail catcher: SMTP on 127.0.0.1:${catcher.smtpPort} (SMTP_URL=smtp://127.0.0.1:${catcher.smtpPort}), inbox at http://127.0.0.1:${catcher.httpPort}/ (JSON: /api/messages); messages stay in memory, the newest 500`);
  const stop = () => void catcher.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  console.error(`mail: could not listen: ${(error as Error).message}`);
  process.exit(1);
}
