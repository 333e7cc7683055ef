import { afterAll, inject } from 'vitest';
import { removeTemporaryDataDir } from './data-dir.ts';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.LOG_LEVEL ??= 'silent';
// Every event a test raises is checked against the registry's payload schema (see shared/events/outbox.ts).
process.env.STRICT_EVENT_PAYLOADS = 'true';
// Every JSON answer is checked against the schema its route documents (see shared/http/routes.ts).
process.env.STRICT_RESPONSES = 'true';

// The temporary data folder a test file made for its documents (tests/claims/fixtures.ts) goes
// when the file is done.
afterAll(() => removeTemporaryDataDir(process.env.DATA_DIR));
