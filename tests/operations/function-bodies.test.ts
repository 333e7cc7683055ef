// A database function's body is text, resolved when it runs: a table renamed or dropped by a
// migration leaves every function that names it failing on its first call, not when the migration
// applies (when the options' table took its name, app.claim_options, eight functions had to be
// created again).
// Every app.<name> or staff.<name> a SQL or PL/pgSQL body names must therefore exist now.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';

type Sql = ReturnType<typeof ownerSql>;

/** `function: app.name` for each name a function body uses that is no relation, function or type of its schema. */
async function unresolvedNames(sql: Sql): Promise<string[]> {
  const rows = await sql<{ fn: string; name: string }[]>`
    with bodies as (
      select p.oid::regprocedure::text as fn, p.prosrc as body
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
       where n.nspname in ('app', 'staff') and l.lanname in ('sql', 'plpgsql')),
    -- A name in quotes is a setting ('app.org_id') or a message, not an object.
    used as (
      select distinct b.fn, m[1] as schema, m[2] as name
        from bodies b, regexp_matches(b.body, '(?<![''a-z0-9_."])(app|staff)\\.([a-z_][a-z0-9_]*)(?!'')', 'g') as m)
    select u.fn, u.schema || '.' || u.name as name
      from used u
     where not exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = u.schema and c.relname = u.name)
       and not exists (select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = u.schema and p.proname = u.name)
       and not exists (select 1 from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = u.schema and t.typname = u.name)
     order by 1, 2`;
  return rows.map((r) => `${r.fn}: ${r.name}`);
}

describe('database functions', () => {
  it('name only tables, views, functions and types that exist', async () => {
    expect(await unresolvedNames(ownerSql()), 'functions naming what is gone: create them again in the migration that renamed or dropped it').toEqual([]);
  });

  it('the check finds a function naming a table that is gone', async () => {
    const rolledBack = new Error('rolled back');
    let found: string[] = [];
    await ownerSql().begin(async (tx) => {
      await tx`create function app.names_a_gone_table() returns integer language plpgsql as $$
        begin return (select count(*) from app.a_table_renamed_since); end $$`;
      found = await unresolvedNames(tx as unknown as Sql);
      throw rolledBack;
    }).catch((e) => expect(e).toBe(rolledBack));
    expect(found).toEqual(['app.names_a_gone_table(): app.a_table_renamed_since']);
  });
});
