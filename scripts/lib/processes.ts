import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// Child processes of the scripts that drive a whole server (the bench, the browser checks): a
// script of this project run with tsx, waiting for an address to answer, and stopping.

const root = new URL('../../', import.meta.url).pathname;

/**
 * Runs a script of the project (relative to its root) with tsx, LOG_LEVEL=warn unless `env` says
 * otherwise. `ownGroup` starts it in a process group of its own (its id is the child's pid), with
 * everything it starts, so the group can be killed at once without the caller.
 */
export function child(script: string, env: Record<string, string | undefined>, options: { ownGroup?: boolean } = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(root, script)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: options.ownGroup ?? false,
  });
}

/** Waits until `url` answers 2xx, or one of `alsoAnswered` (an address that needs a key answers 401 once it listens). */
export async function waitFor(url: string, timeoutMs: number, alsoAnswered: number[] = []) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok || alsoAnswered.includes(response.status)) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stops a child (SIGTERM) and waits for it to exit. */
export const stopped = (running: ChildProcess) => new Promise<void>((resolve) => {
  if (running.exitCode !== null) return resolve();
  running.once('exit', () => resolve());
  running.kill('SIGTERM');
});
