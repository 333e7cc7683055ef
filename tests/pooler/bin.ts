// Where PgBouncer is, with no other import: the test:pooler config asks before anything starts.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The pgbouncer program on PATH or where Debian installs it (/usr/sbin, off a user's PATH), or undefined. */
export function pgbouncerBin(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'].filter(Boolean);
  return dirs.map((dir) => join(dir, 'pgbouncer')).find((file) => existsSync(file));
}
