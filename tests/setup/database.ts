// One real PostgreSQL for the whole run: embedded, in a temporary folder, on a free port,
// migrated once. Test files share it and keep apart by creating their own organisations.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../scripts/lib/database.ts';
import { migrate } from '../../scripts/lib/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(join(tmpdir(), 'hps-test-'));
  const previous = process.env.DATABASE_URL;
  // Tests always use their own embedded database, never a DATABASE_URL from the environment.
  delete process.env.DATABASE_URL;
  const database = await openDatabase({ dataDir, port: await freePort() });
  if (previous !== undefined) process.env.DATABASE_URL = previous;
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  await migrate(sql);
  await sql.end();
  project.provide('databaseUrl', database.url);
  return async () => {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
