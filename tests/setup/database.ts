// One real PostgreSQL for the whole run: embedded, in a temporary folder, on a free port,
// migrated once. Test files share it and keep apart by creating their own organisations.
import type { TestProject } from 'vitest/node';
import { startScratchDatabase } from '../../scripts/lib/scratch.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const database = await startScratchDatabase('hps-test-');
  project.provide('databaseUrl', database.url);
  return database.stop;
}
