// Operator console: `npm run --silent admin -- <command>`. Prints one JSON object on stdout;
// a bad command or argument exits non-zero with {"error":{"code","message"}} on stderr.
// `help`, `--help` (also after a command) or no command print the usage text and exit 0.
import { openDatabase } from './lib/database.ts';
import { migrate } from './lib/migrate.ts';
import { helpRequest, runCommand } from './console/commands.ts';
import { ConsoleError } from './console/options.ts';
import { setting } from '../shared/config.ts';
import { connect, pgTypes } from '../shared/db/client.ts';

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
const sql = connect(database.url, { max: 1, types: pgTypes });
let exitCode = 0;
try {
  // A console used before the first server start still finds the schema in place.
  if (setting('MIGRATE', 'true') !== 'false') await migrate(sql);
  const result = await runCommand(sql, process.argv.slice(2));
  process.stdout.write(JSON.stringify(result) + '\n');
} catch (error) {
  const known = error instanceof ConsoleError;
  process.stderr.write(JSON.stringify({ error: { code: known ? error.code : 'failed', message: (error as Error).message } }) + '\n');
  exitCode = 1;
} finally {
  await sql.end();
  await database.stop();
}
process.exit(exitCode);
