// `supabase db push` (the pinned CLI from the npm package) sees every migration: a dry run against an
// empty database lists them all, in order, without network access beyond that database.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { root } from './support.ts';

const database = `hps_push_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
afterAll(() => ownerSql().unsafe(`drop database if exists ${database}`));

it('supabase db push --dry-run lists every migration', async () => {
  await ownerSql().unsafe(`create database ${database}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${database}`;
  const { stdout, stderr } = await promisify(execFile)(join(root, 'node_modules/.bin/supabase'), ['db', 'push', '--db-url', String(url), '--dry-run'], {
    cwd: root,
    // The embedded database has no TLS; Supabase's has.
    env: { ...process.env, PGSSLMODE: 'disable' },
  });
  // The CLI reports progress on stderr and the outcome on stdout.
  const output = `${stderr}\n${stdout}`;
  const listed = [...output.matchAll(/^\s*•\s*(\S+\.sql)\s*$/gm)].map((match) => match[1]);
  const migrations = readdirSync(join(root, 'migrations')).filter((file) => /^\d+_.+\.sql$/.test(file)).sort();
  expect(migrations.length).toBeGreaterThan(0);
  expect(listed).toEqual(migrations);
  expect(output).toMatch(/DRY RUN/);
}, 60_000);
