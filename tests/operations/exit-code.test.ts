// CI trusts the exit code of `npm test`: a failing test must fail the run. The embedded database's
// exit hook once turned every run into a success (process.exit(0) on beforeExit); this runs a
// failing test with the suite's own database set-up and checks the run fails.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the test run', () => {
  it('exits non-zero when a test fails, with the embedded database set up', () => {
    const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/operations/fixtures/exit-code.config.ts'], {
      cwd: new URL('../../', import.meta.url).pathname,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
      timeout: 120_000,
    });
    expect(run.stdout + run.stderr).toContain('fails on purpose');
    expect(run.status).toBe(1);
  }, 150_000);
});
