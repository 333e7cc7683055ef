import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { afterAll, inject } from 'vitest';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.LOG_LEVEL ??= 'silent';
// Every event a test raises is checked against the registry's payload schema (see shared/events/outbox.ts).
process.env.STRICT_EVENT_PAYLOADS = 'true';
// Every JSON answer is checked against the schema its route documents (see shared/http/routes.ts).
process.env.STRICT_RESPONSES = 'true';

// The temporary data folder a test file made for its documents (tests/claims/fixtures.ts) goes
// when the file is done, so that runs leave nothing in the system's temporary directory.
afterAll(async () => {
  const dir = process.env.DATA_DIR;
  if (dir && dirname(dir) === tmpdir() && basename(dir).startsWith('hps-claims-')) await rm(dir, { recursive: true, force: true });
});
