// `npm run schema:dump`, after adding a migration: appends the new migration's checksum to
// migrations/released.sha256, then migrates a new embedded PostgreSQL from nothing and writes what
// it holds to supabase/schema.sql, the current schema in one file. Commit the three files together;
// tests/operations/schema.test.ts fails while either file differs from the migrations.
import { writeFile } from 'node:fs/promises';
import postgres from 'postgres';
import { appendReleased, dumpSchema, schemaFile } from '../lib/schema-dump.ts';
import { startScratchDatabase } from '../lib/scratch.ts';

for (const file of await appendReleased()) console.log(`listed ${file} in migrations/released.sha256`);

const database = await startScratchDatabase('hps-schema-');
try {
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await writeFile(schemaFile, await dumpSchema(sql));
  } finally {
    await sql.end();
  }
} finally {
  await database.stop();
}
console.log('wrote supabase/schema.sql');
