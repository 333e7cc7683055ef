import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type postgres from 'postgres';

// Applies migrations/*.sql in order, each once, recording them in the table `supabase db push`
// uses (supabase_migrations.schema_migrations), so both tools agree on what has been applied.

export const migrationsDir = new URL('../../migrations/', import.meta.url).pathname;

export async function migrate(sql: postgres.Sql, log: (message: string) => void = () => {}): Promise<string[]> {
  const files = (await readdir(migrationsDir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    // One migrator at a time, whoever starts first (server, console, tests).
    await tx`select pg_advisory_xact_lock(hashtext('housing-placement-migrations'))`;
    await tx`create schema if not exists supabase_migrations`;
    await tx`create table if not exists supabase_migrations.schema_migrations (version text primary key, statements text[], name text)`;
    const done = new Set((await tx<{ version: string }[]>`select version from supabase_migrations.schema_migrations`).map((r) => r.version));
    for (const file of files) {
      const [version, ...rest] = file.replace(/\.sql$/, '').split('_');
      if (done.has(version)) continue;
      const text = await readFile(join(migrationsDir, file), 'utf8');
      await tx.unsafe(text);
      await tx`insert into supabase_migrations.schema_migrations (version, statements, name) values (${version}, ${[text]}, ${rest.join('_')})`;
      applied.push(file);
      log(`applied migration ${file}`);
    }
  });
  return applied;
}
