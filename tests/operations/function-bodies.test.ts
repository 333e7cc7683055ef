// A database function's body is text, resolved when it runs: a table or column renamed or dropped by
// a migration leaves every function that names it failing on its first call, not when the migration
// applies (when the options' table took its name, app.claim_options, eight functions had to be
// created again; when the columns pointing at an option took theirs, claim_option_id, two).
// Every app.<name> or staff.<name> a SQL or PL/pgSQL body names must therefore exist now, and so
// must every column it names where the body says which table it is of.
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

/** Column names renamed away: no body may say them, even unqualified, where the checks below cannot tell the table. */
const retiredColumns = ['claim_home_id'];

/** The body as code: comments and quoted or dollar-quoted text (messages, settings, dynamic SQL) become a space. */
function codeOf(body: string): string {
  return body
    .replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|(\$[a-z_]*\$)[\s\S]*?\1/gi, ' ')
    .toLowerCase();
}

// Words that can follow a table where an alias would stand.
const notAliases = new Set(('where join left right inner full cross natural on using set group order limit offset returning values ' +
  'select union except intersect for having window lateral and or not then end when into do from with as tablesample only').split(' '));

/**
 * Which tables of app and staff the body binds to which alias (`from app.payments p`, `join
 * app.ledger_entries l`, `update app.claim_options h`, or the table's own name without an alias),
 * leaving out any alias the body also binds to something else (a subquery, a WITH query, a function,
 * another schema's table, a loop variable): its columns cannot be told.
 */
function aliasesOf(code: string): Map<string, string[]> {
  const bound = new Map<string, string[]>();
  for (const m of code.matchAll(/(?:\bfrom|\bjoin|\bupdate|\binto|,)\s+(app|staff)\.([a-z_][a-z0-9_]*)\b(?!\s*\()(?:\s+(?:as\s+)?([a-z_][a-z0-9_]*))?/g)) {
    const table = `${m[1]}.${m[2]}`;
    const alias = m[3] && !notAliases.has(m[3]) ? m[3] : m[2];
    bound.set(alias, [...(bound.get(alias) ?? []), table]);
  }
  for (const alias of [...bound.keys()]) {
    const elsewhere = [
      new RegExp(`\\)\\s+(?:as\\s+)?${alias}\\b`),
      new RegExp(`\\b${alias}\\s+as\\s+(?:not\\s+)?(?:materialized\\s+)?\\(`),
      new RegExp(`(?:\\bfrom|\\bjoin|,)\\s+(?!app\\.|staff\\.)[a-z_][a-z0-9_.]*\\s+(?:as\\s+)?${alias}\\b`),
      new RegExp(`\\bfor\\s+${alias}\\s+in\\b`),
      new RegExp(`\\b${alias}\\s+(?:record|app\\.[a-z0-9_]+%rowtype)\\b`),
    ];
    if (elsewhere.some((re) => re.test(code))) bound.delete(alias);
  }
  return bound;
}

/**
 * `function: table.column` for each column a function body names and its table does not have:
 * `alias.column` where the alias is one of app's or staff's tables or views, the column list of an
 * insert into one, `new.column` and `old.column` in a trigger function (the column must be in one of
 * the tables it fires on), and any retired column name anywhere.
 */
async function unresolvedColumns(sql: Sql): Promise<string[]> {
  const bodies = await sql<{ fn: string; body: string; fires_on: string[] }[]>`
    select p.oid::regprocedure::text as fn, p.prosrc as body,
           array(select t.tgrelid::regclass::text from pg_trigger t where t.tgfoid = p.oid and not t.tgisinternal) as fires_on
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
     where n.nspname in ('app', 'staff') and l.lanname in ('sql', 'plpgsql')`;
  const columnRows = await sql<{ relation: string; columns: string[] }[]>`
    select n.nspname || '.' || c.relname as relation, array_agg(a.attname::text) as columns
      from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid
     where n.nspname in ('app', 'staff') and c.relkind in ('r', 'p', 'v', 'm', 'f') and not a.attisdropped
     group by 1`;
  const columns = new Map(columnRows.map((r) => [r.relation, new Set(r.columns)]));
  const has = (relation: string, column: string) => columns.get(relation)?.has(column) ?? true;
  const found = new Set<string>();
  for (const { fn, body, fires_on } of bodies) {
    const code = codeOf(body);
    const aliases = aliasesOf(code);
    for (const m of code.matchAll(/(?<![a-z0-9_.])([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\b(?!\s*\()/g)) {
      const [, alias, column] = m;
      if ((alias === 'new' || alias === 'old') && fires_on.length > 0) {
        if (!fires_on.some((t) => has(t, column))) found.add(`${fn}: ${fires_on.join(' or ')}.${column}`);
        continue;
      }
      const tables = aliases.get(alias);
      if (tables && !tables.some((t) => has(t, column))) found.add(`${fn}: ${tables.join(' or ')}.${column}`);
    }
    for (const m of code.matchAll(/\binsert\s+into\s+((?:app|staff)\.[a-z_][a-z0-9_]*)\s*\(([^)]*)\)/g)) {
      for (const column of m[2].split(',').map((c) => c.trim().replace(/^"|"$/g, ''))) {
        if (!has(m[1], column)) found.add(`${fn}: ${m[1]}.${column}`);
      }
    }
    for (const column of retiredColumns) if (new RegExp(`\\b${column}\\b`).test(code)) found.add(`${fn}: ${column}`);
  }
  return [...found].sort();
}

/** Runs `make` in a transaction that is rolled back, and returns what `check` found meanwhile. */
async function inRolledBack(make: (tx: Sql) => Promise<unknown>, check: (tx: Sql) => Promise<string[]>): Promise<string[]> {
  const rolledBack = new Error('rolled back');
  let found: string[] = [];
  await ownerSql().begin(async (tx) => {
    await make(tx as unknown as Sql);
    found = await check(tx as unknown as Sql);
    throw rolledBack;
  }).catch((e) => expect(e).toBe(rolledBack));
  return found;
}

describe('database functions', () => {
  it('name only tables, views, functions and types that exist', async () => {
    expect(await unresolvedNames(ownerSql()), 'functions naming what is gone: create them again in the migration that renamed or dropped it').toEqual([]);
  });

  it('the check finds a function naming a table that is gone', async () => {
    const found = await inRolledBack(
      (tx) => tx`create function app.names_a_gone_table() returns integer language plpgsql as $$
        begin return (select count(*) from app.a_table_renamed_since); end $$`,
      unresolvedNames,
    );
    expect(found).toEqual(['app.names_a_gone_table(): app.a_table_renamed_since']);
  });

  it('name only columns that exist', async () => {
    expect(await unresolvedColumns(ownerSql()), 'functions naming a column that is gone: create them again in the migration that renamed or dropped it').toEqual([]);
  });

  it('the check finds a function naming a column that is gone, by alias, in an insert, on new and by a retired name', async () => {
    const found = await inRolledBack(async (tx) => {
      // PL/pgSQL bodies are resolved only when they run, so these are created as a rename would leave them.
      await tx`create function app.names_gone_columns() returns bigint language plpgsql as $$
        begin
          insert into app.stay_changes (org_id, a_column_renamed_since) values (null, null);
          return (select sum(l.amount_cents) from app.ledger_entries l join app.payments p on p.id = l.payment_id
                   where l.claim_option_id = p.gone_column and l.id = 'l.not_a_column');
        end $$`;
      await tx`create function app.names_a_retired_column() returns bigint language plpgsql as $$
        begin return (select count(*) from app.payments where claim_home_id is not null); end $$`;
      // A table of its own to fire on: a trigger on a table the other tests write would hold them up.
      await tx`create table app.fires_a_trigger (id integer)`;
      await tx`create function app.trigger_names_a_gone_column() returns trigger language plpgsql as $$
        begin perform new.id, new.gone_on_new; return new; end $$`;
      await tx`create trigger names_a_gone_column before insert on app.fires_a_trigger for each row execute function app.trigger_names_a_gone_column()`;
    }, unresolvedColumns);
    expect(found).toEqual([
      'app.names_a_retired_column(): claim_home_id',
      'app.names_gone_columns(): app.payments.gone_column',
      'app.names_gone_columns(): app.stay_changes.a_column_renamed_since',
      'app.trigger_names_a_gone_column(): app.fires_a_trigger.gone_on_new',
    ]);
  });
});
