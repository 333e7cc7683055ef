// A test file's own data folder (documents), made in the system's temporary directory and removed
// when the file is done (tests/setup/env.ts), so that runs leave nothing behind.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const prefix = 'hps-claims-';

export const makeTemporaryDataDir = () => mkdtemp(join(tmpdir(), prefix));

/** Removes `dir` if it is a folder makeTemporaryDataDir made; anything else is left as it is. */
export async function removeTemporaryDataDir(dir: string | undefined): Promise<void> {
  if (dir && dirname(dir) === tmpdir() && basename(dir).startsWith(prefix)) await rm(dir, { recursive: true, force: true });
}
