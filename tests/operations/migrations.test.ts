import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MigrationError, checksumOf, isValidVersion, migrate, readMigrations } from '../../scripts/lib/migrate.ts';
import { ownerSql } from '../helpers.ts';
import { scratchDatabase } from './scratch-db.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function migrationsFolder(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'hps-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  return dir;
}

async function refusal(promise: Promise<unknown>): Promise<MigrationError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(MigrationError);
  return error as MigrationError;
}

describe('migrations are append-only', () => {
  it('every migration in the repository has a valid UTC timestamp, and the test database recorded each with its checksum', async () => {
    const files = await readMigrations();
    expect(files.length).toBeGreaterThan(1);
    expect(files[0].file).toBe('20261120000000_baseline.sql');
    const rows = await ownerSql()<{ version: string; name: string; checksum: string }[]>`
      select version, name, checksum from supabase_migrations.schema_migrations order by version`;
    expect(rows).toEqual(files.map((f) => ({ version: f.version, name: f.name, checksum: checksumOf(f.text) })));
  });

  it('a checkout with Windows line endings is not an edit; any other byte is', () => {
    expect(checksumOf('select 1;\r\nselect 2;\r\n')).toBe(checksumOf('select 1;\nselect 2;\n'));
    expect(checksumOf('select 1;\nselect 2;\n')).not.toBe(checksumOf('select 1;\nselect 3;\n'));
  });

  it('validates versions as UTC instants', () => {
    expect(isValidVersion('20261123100000')).toBe(true);
    expect(isValidVersion('20240229235959')).toBe(true);
    for (const bad of ['20261121300000', '20261131000000', '20230229000000', '20261121006000', '2026112100000', 'x0261121000000']) {
      expect(isValidVersion(bad), bad).toBe(false);
    }
  });

  it('applies each file once, then refuses to run when an applied file was changed, removed or renamed, naming it', async () => {
    const db = await scratchDatabase(ownerSql());
    cleanups.push(db.drop);
    const dir = await migrationsFolder({
      '20260101000000_first.sql': 'create table first_table (id int);',
      '20260101000100_second.sql': 'create table second_table (id int);',
    });
    expect(await migrate(db.sql, () => {}, { dir })).toEqual(['20260101000000_first.sql', '20260101000100_second.sql']);
    expect(await migrate(db.sql, () => {}, { dir })).toEqual([]);

    // Edited in place, with a new migration alongside: refused, and the new one is not applied either.
    await writeFile(join(dir, '20260101000000_first.sql'), 'create table first_table (id int, extra text);');
    await writeFile(join(dir, '20260101000200_third.sql'), 'create table third_table (id int);');
    const edited = await refusal(migrate(db.sql, () => {}, { dir }));
    expect(edited.file).toBe('20260101000000_first.sql');
    expect(edited.message).toMatch(/^migration 20260101000000_first\.sql was changed after it was applied .*new migration/);
    const [{ third }] = await db.sql<{ third: string | null }[]>`select to_regclass('third_table')::text as third`;
    expect(third).toBeNull();

    // Restored: the history agrees again and the new file is applied.
    await writeFile(join(dir, '20260101000000_first.sql'), 'create table first_table (id int);');
    expect(await migrate(db.sql, () => {}, { dir })).toEqual(['20260101000200_third.sql']);

    await rename(join(dir, '20260101000100_second.sql'), join(dir, '20260101000100_renamed.sql'));
    const renamed = await refusal(migrate(db.sql, () => {}, { dir }));
    expect(renamed.message).toContain('20260101000100_second.sql was renamed to 20260101000100_renamed.sql');

    await rm(join(dir, '20260101000100_renamed.sql'));
    const removed = await refusal(migrate(db.sql, () => {}, { dir }));
    expect(removed.message).toContain('applied migration 20260101000100_second.sql is no longer in migrations/');
  });

  it('refuses a file whose version is not a valid UTC timestamp, before applying anything', async () => {
    const db = await scratchDatabase(ownerSql());
    cleanups.push(db.drop);
    const dir = await migrationsFolder({ '20260101000000_ok.sql': 'create table ok_table (id int);', '20261121300000_hour_thirty.sql': 'select 1;' });
    const error = await refusal(migrate(db.sql, () => {}, { dir }));
    expect(error.message).toContain('20261121300000_hour_thirty.sql');
    const [{ ok }] = await db.sql<{ ok: string | null }[]>`select to_regclass('ok_table')::text as ok`;
    expect(ok).toBeNull();
  });

  it('records the checksum of a migration `supabase db push` applied, and verifies it from then on', async () => {
    const db = await scratchDatabase(ownerSql());
    cleanups.push(db.drop);
    const text = 'create table pushed_table (id int);';
    const dir = await migrationsFolder({ '20260101000000_pushed.sql': text });
    // What the supabase CLI writes: its own columns, no checksum.
    await db.sql.unsafe(`create schema supabase_migrations;
      create table supabase_migrations.schema_migrations (version text primary key, statements text[], name text);
      create table pushed_table (id int);
      insert into supabase_migrations.schema_migrations values ('20260101000000', array['create table pushed_table (id int)'], 'pushed');`);
    expect(await migrate(db.sql, () => {}, { dir })).toEqual([]);
    const [row] = await db.sql`select checksum from supabase_migrations.schema_migrations`;
    expect(row.checksum).toBe(checksumOf(text));
    await writeFile(join(dir, '20260101000000_pushed.sql'), text + '\ncreate index on pushed_table (id);');
    expect((await refusal(migrate(db.sql, () => {}, { dir }))).file).toBe('20260101000000_pushed.sql');
  });
});
