import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type postgres from 'postgres';

// Applies migrations/*.sql in order, each once, recording them in the table `supabase db push`
// uses (supabase_migrations.schema_migrations), so both tools agree on what has been applied.
//
// Migrations are append-only. Each applied file's SHA-256 is recorded beside it (a `checksum`
// column this migrator adds; `supabase db push` ignores it), and the migrator refuses to run when an
// applied file has changed, is gone, or was renamed: on a database that applied the first version,
// an edited file would otherwise silently never run. Fix a released migration with a NEW file.

export const migrationsDir = new URL('../../migrations/', import.meta.url).pathname;

export class MigrationError extends Error {
  constructor(readonly file: string, message: string) {
    super(message);
  }
}

/** SHA-256 of a migration's text, with line endings normalised (a Windows checkout is not an edit). */
export const checksumOf = (text: string) => createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');

/** `YYYYMMDDHHMMSS`, a real UTC instant (`20261121300000` has hour 30 and is refused). */
export function isValidVersion(version: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d &&
    t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === s;
}

interface MigrationFile {
  file: string;
  version: string;
  name: string;
  text: string;
  checksum: string;
}

export async function readMigrations(dir = migrationsDir): Promise<MigrationFile[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const seen = new Map<string, string>();
  const out: MigrationFile[] = [];
  for (const file of files) {
    // The supabase CLI's pattern: a version, an underscore, any name.
    const match = /^(\d{14})_(.+)\.sql$/.exec(file);
    if (!match || !isValidVersion(match[1])) {
      throw new MigrationError(file, `migration ${file}: the name must be YYYYMMDDHHMMSS_name.sql with a valid UTC timestamp (the supabase CLI reads the version as a time)`);
    }
    const [, version, name] = match;
    if (seen.has(version)) throw new MigrationError(file, `migrations ${seen.get(version)} and ${file} share the version ${version}`);
    seen.set(version, file);
    const text = await readFile(join(dir, file), 'utf8');
    out.push({ file, version, name, text, checksum: checksumOf(text) });
  }
  return out;
}

interface AppliedRow {
  version: string;
  name: string | null;
  checksum: string | null;
}

export async function migrate(
  sql: postgres.Sql,
  log: (message: string) => void = () => {},
  options: { dir?: string } = {},
): Promise<string[]> {
  const files = await readMigrations(options.dir);
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    // One migrator at a time, whoever starts first (server, console, tests).
    await tx`select pg_advisory_xact_lock(hashtext('housing-placement-migrations'))`;
    await tx`create schema if not exists supabase_migrations`;
    await tx`create table if not exists supabase_migrations.schema_migrations (version text primary key, statements text[], name text)`;
    await tx`alter table supabase_migrations.schema_migrations add column if not exists checksum text`;
    const rows = await tx<AppliedRow[]>`select version, name, checksum from supabase_migrations.schema_migrations order by version`;
    const byVersion = new Map(files.map((f) => [f.version, f]));

    // Verify the history first: nothing is applied on top of a history that differs from the files.
    for (const row of rows) {
      const file = byVersion.get(row.version);
      const recorded = `${row.version}_${row.name ?? ''}.sql`;
      if (!file) {
        throw new MigrationError(recorded, `applied migration ${recorded} is no longer in migrations/: applied migrations are never removed or renamed (a database created before the baseline squash must be recreated; see docs/operating.md, "Migrations")`);
      }
      if (row.name !== null && row.name !== file.name) {
        throw new MigrationError(file.file, `applied migration ${recorded} was renamed to ${file.file}: applied migrations are never renamed`);
      }
      // A row without a checksum was written by `supabase db push`: its checksum is recorded now.
      if (row.checksum !== null && row.checksum !== file.checksum) {
        throw new MigrationError(file.file, `migration ${file.file} was changed after it was applied (checksum ${row.checksum.slice(0, 12)} applied, ${file.checksum.slice(0, 12)} now): restore the file and put the change in a new migration`);
      }
      if (row.checksum === null) {
        await tx`update supabase_migrations.schema_migrations set checksum = ${file.checksum} where version = ${row.version}`;
      }
    }

    const done = new Set(rows.map((r) => r.version));
    for (const file of files) {
      if (done.has(file.version)) continue;
      await tx.unsafe(file.text);
      await tx`insert into supabase_migrations.schema_migrations (version, statements, name, checksum)
               values (${file.version}, ${[file.text]}, ${file.name}, ${file.checksum})`;
      applied.push(file.file);
      log(`applied migration ${file.file}`);
    }
  });
  return applied;
}
