import { defineConfig } from 'vitest/config';
import { pgbouncerBin } from './tests/pooler/bin.ts';

// `npm run test:pooler`: the parts of the suite that lean on connection state, run through a real
// PgBouncer in transaction mode (tests/pooler/setup.ts), as Supabase serves the functions. Kept out
// of `npm test` because `npm ci` cannot install PgBouncer.
if (!pgbouncerBin()) {
  process.stderr.write('npm run test:pooler: pgbouncer is not installed: apt-get install pgbouncer (Debian, Ubuntu), then run it again\n');
  process.exit(1);
}

export default defineConfig({
  test: {
    include: [
      // The pooler URL itself (`?pgbouncer=true`) connects, for the server and the console.
      'tests/pooler/**/*.pooler.ts',
      // Idempotency keys and their replays.
      'tests/foundation/idempotency.test.ts',
      // Rate windows.
      'tests/foundation/rate-limit.test.ts',
      // Tenant isolation: the row-level security context is set per transaction.
      'tests/foundation/isolation.test.ts',
      // Racing placements and payments.
      'tests/placements/races.domain.test.ts',
      'tests/placements/payments-races.domain.test.ts',
      // The job runner's claims and leases.
      'tests/placements/jobs.domain.test.ts',
      // The webhook dispatcher: leases, two dispatchers at once, the function's time box.
      'tests/webhooks/dispatcher.test.ts',
      'tests/webhooks/dispatcher-function.test.ts',
      // The calendar import's row lock (two fetches of one feed at once).
      'tests/properties/calendar-import.test.ts',
    ],
    globalSetup: ['tests/pooler/setup.ts', 'tests/fixtures/tls/trust.ts'],
    setupFiles: ['tests/setup/env.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
