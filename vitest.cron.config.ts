import { defineConfig } from 'vitest/config';

// `npm run test:cron`: the test that runs a real pg_cron (tests/cron), kept out of `npm test`
// because `npm ci` cannot install a PostgreSQL extension. It makes its own database cluster.
export default defineConfig({
  test: {
    include: ['tests/cron/**/*.cron.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
