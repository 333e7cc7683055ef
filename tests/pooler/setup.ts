// vitest globalSetup of `npm run test:pooler`: a throw-away embedded PostgreSQL, migrated on its
// direct URL (as migrations must be: see docs/operations.md), and a PgBouncer in transaction mode in
// front of it. The test files get the pooler's URL as DATABASE_URL, so every connection they and
// the functions open goes through the pooler.
import type { TestProject } from 'vitest/node';
import { startScratchDatabase } from '../../scripts/lib/scratch.ts';
import { pgbouncerBin, startPooler } from './pgbouncer.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    directDatabaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const bin = pgbouncerBin();
  // vitest.pooler.config.ts has already stopped the run with the install line; this is a backstop.
  if (!bin) throw new Error('pgbouncer is not installed: apt-get install pgbouncer');
  const database = await startScratchDatabase('hps-pooler-');
  const pooler = await startPooler(bin, database.url).catch(async (error) => {
    await database.stop();
    throw error;
  });
  project.provide('databaseUrl', pooler.url);
  project.provide('directDatabaseUrl', database.url);
  return async () => {
    await pooler.stop();
    await database.stop();
  };
}
