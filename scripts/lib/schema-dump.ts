import { readFile, writeFile } from 'node:fs/promises';
import type postgres from 'postgres';
import { migrationsDir, readMigrations } from './migrate.ts';

// The current schema in one file: what the migrations have made of a database, read back from the
// catalogue. Each function appears once, as it is now (the migrations may define it many times), so
// a migration that changes one shows in `supabase/schema.sql` as a diff of its current definition.
//
// Read from the catalogue rather than with pg_dump: the embedded PostgreSQL ships no pg_dump, and a
// pg_dump older than the server refuses to run. The text is deterministic (every list ordered by
// name, no OIDs, no timestamps), so the same migrations always give the same file.
//
// It is a reading copy, grouped by object (a table with its constraints, indexes, triggers,
// policies, comments and grants), not a loading script: a database is built by applying
// migrations/. Left out: objects that belong to an extension, the migrator's own bookkeeping schema,
// data, and functions and triggers whose names start with `test_` (tests add them to the shared test
// database for a moment; no migration may use the prefix).

type Sql = postgres.Sql | postgres.TransactionSql;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Schemas left out: the system's and the migrator's bookkeeping (extension objects are left out one by one). */
const skippedSchemas = ['pg_catalog', 'information_schema', 'pg_toast', 'supabase_migrations'];

/** A `comment on` line, or nothing. */
const commentOn = (what: string, comment: string | null) => (comment ? [`comment on ${what} is ${literal(comment)};`] : []);

interface Acl {
  grantee: string;
  privileges: string[];
}

const privilegeOrder = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER', 'MAINTAIN', 'USAGE', 'CREATE', 'EXECUTE'];

/** `grant … on <what> to …;` lines for an ACL read with aclexplode, one line per grantee, owners' own rights left out. */
function grants(what: string, acl: Acl[], columns = '') {
  return [...acl]
    .sort((a, b) => (a.grantee < b.grantee ? -1 : a.grantee > b.grantee ? 1 : 0))
    .map(({ grantee, privileges }) => {
      const sorted = [...new Set(privileges)].sort((a, b) => privilegeOrder.indexOf(a) - privilegeOrder.indexOf(b));
      return `grant ${sorted.map((p) => p.toLowerCase() + columns).join(', ')} on ${what} to ${grantee};`;
    });
}

// aclexplode's rows as [{ grantee, privileges }], the owner's implicit rights left out; a null ACL
// (the defaults) gives none. `acl` is an SQL expression of type aclitem[]; `owner` one of type oid.
const aclJson = (acl: string, owner: string) => `
  coalesce((select json_agg(json_build_object('grantee', g.grantee, 'privileges', g.privileges) order by g.grantee)
     from (select case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end as grantee,
                  array_agg(a.privilege_type order by a.privilege_type) as privileges
             from aclexplode(${acl}) a
            where a.grantee <> ${owner}
            group by a.grantee) g), '[]'::json)`;

/** A function's default EXECUTE to PUBLIC shows only as its absence: a revoke is printed when it was taken away. */
const revokedFromPublic = (acl: Acl[] | null, hasAcl: boolean) => hasAcl && !(acl ?? []).some((a) => a.grantee === 'public');

/** Not an object an extension installed. */
const ownObject = (catalog: string, oid: string) =>
  `not exists (select 1 from pg_depend d where d.classid = '${catalog}'::regclass and d.objid = ${oid} and d.deptype = 'e')`;

export async function dumpSchema(sql: Sql): Promise<string> {
  // A name is quoted as quote_ident() would: bare when lower case and not a keyword the server reserves.
  const keywords = new Set((await sql<{ word: string }[]>`select word from pg_get_keywords() where catcode <> 'U'`).map((k) => k.word));
  const quote = (name: string) => (/^[a-z_][a-z0-9_$]*$/.test(name) && !keywords.has(name) ? name : `"${name.replace(/"/g, '""')}"`);
  const out: string[] = [
    '-- The current schema, generated from a freshly migrated database by `npm run schema:dump`.',
    '-- Do not edit: change the schema with a new file in migrations/, then regenerate this one.',
    '-- A reading copy grouped by object; a database is built by applying migrations/ in order.',
    '',
  ];
  const section = (title: string) => out.push('', `-- ${'='.repeat(94)}`, `-- ${title}`, `-- ${'='.repeat(94)}`, '');

  const skipped = skippedSchemas.map(literal).join(', ');
  const ours = `n.nspname not in (${skipped}) and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'`;

  // Extensions, by name, in the schema they were put in (their versions are the server's, not ours).
  section('Extensions');
  const extensions = await sql<{ name: string; schema: string }[]>`
    select e.extname as name, n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
     where e.extname <> 'plpgsql' order by e.extname`;
  for (const e of extensions) out.push(`create extension if not exists ${quote(e.name)} with schema ${quote(e.schema)};`);

  // Roles are the server's, not the database's: the ones the grants and policies below name, with
  // the attributes that decide what they may do.
  section('Roles (global to the server; the migrations create them when missing)');
  const roles = await sql<{ name: string; login: boolean; bypassrls: boolean; inherit: boolean; super: boolean }[]>`
    select rolname as name, rolcanlogin as login, rolbypassrls as bypassrls, rolinherit as inherit, rolsuper as super
      from pg_roles
     where rolname !~ '^pg_' and rolname <> current_user
       and (exists (select 1 from pg_class c, aclexplode(c.relacl) a where a.grantee = pg_roles.oid)
         or exists (select 1 from pg_namespace n, aclexplode(n.nspacl) a where a.grantee = pg_roles.oid)
         or exists (select 1 from pg_proc p, aclexplode(p.proacl) a where a.grantee = pg_roles.oid)
         or exists (select 1 from pg_policy p where pg_roles.oid = any (p.polroles)))
     order by rolname`;
  for (const r of roles) {
    const attributes = [r.super ? 'superuser' : 'nosuperuser', r.login ? 'login' : 'nologin', r.bypassrls ? 'bypassrls' : 'nobypassrls', r.inherit ? 'inherit' : 'noinherit'];
    out.push(`-- role ${quote(r.name)}: ${attributes.join(' ')}`);
  }

  section('Schemas');
  const schemas = await sql<{ name: string; comment: string | null; acl: Acl[]; owner: string }[]>`
    select n.nspname as name, obj_description(n.oid, 'pg_namespace') as comment, pg_get_userbyid(n.nspowner) as owner,
           ${sql.unsafe(aclJson('n.nspacl', 'n.nspowner'))} as acl
      from pg_namespace n where ${sql.unsafe(ours)} order by n.nspname`;
  for (const s of schemas) {
    if (s.name !== 'public') out.push(`create schema ${quote(s.name)};`);
    out.push(...commentOn(`schema ${quote(s.name)}`, s.name === 'public' ? null : s.comment));
    if (s.name !== 'public') out.push(...grants(`schema ${quote(s.name)}`, s.acl));
  }

  // Default privileges: what objects created later get without a grant.
  const defaults = await sql<{ line: string }[]>`
    select format('alter default privileges for role %I%s grant %s on %s to %s;',
                  pg_get_userbyid(d.defaclrole),
                  case when d.defaclnamespace = 0 then '' else ' in schema ' || quote_ident(d.defaclnamespace::regnamespace::text) end,
                  lower(string_agg(a.privilege_type, ', ' order by a.privilege_type)),
                  case d.defaclobjtype when 'r' then 'tables' when 'S' then 'sequences' when 'f' then 'functions' when 'T' then 'types' when 'n' then 'schemas' end,
                  case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end) as line
      from pg_default_acl d, aclexplode(d.defaclacl) a
     group by d.defaclrole, d.defaclnamespace, d.defaclobjtype, a.grantee
     order by 1`;
  if (defaults.length) out.push('', ...defaults.map((d) => d.line));

  section('Types');
  const types = await sql<{ name: string; kind: string; labels: string[] | null; base: string | null; notnull: boolean; default: string | null; checks: string[] | null; attributes: string[] | null; comment: string | null }[]>`
    select format('%I.%I', n.nspname, t.typname) as name, t.typtype as kind,
           (select array_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid) as labels,
           case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end as base, t.typnotnull as notnull, t.typdefault as default,
           (select array_agg(pg_get_constraintdef(c.oid) order by c.conname) from pg_constraint c where c.contypid = t.oid) as checks,
           (select array_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod)) order by a.attnum)
              from pg_attribute a where t.typtype = 'c' and a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped) as attributes,
           obj_description(t.oid, 'pg_type') as comment
      from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where ${sql.unsafe(ours)} and t.typtype in ('e', 'd', 'c', 'r')
       and (t.typtype <> 'c' or (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c')
       and ${sql.unsafe(ownObject('pg_type', 't.oid'))}
     order by 1`;
  for (const t of types) {
    if (t.kind === 'e') out.push(`create type ${t.name} as enum (${(t.labels ?? []).map(literal).join(', ')});`);
    else if (t.kind === 'd') {
      out.push(`create domain ${t.name} as ${t.base}${t.default ? ` default ${t.default}` : ''}${t.notnull ? ' not null' : ''}${(t.checks ?? []).map((c) => ` ${c}`).join('')};`);
    } else if (t.kind === 'c') out.push(`create type ${t.name} as (${(t.attributes ?? []).join(', ')});`);
    else out.push(`-- range type ${t.name}`);
    out.push(...commentOn(`type ${t.name}`, t.comment));
  }

  section('Sequences (those not behind an identity column)');
  const sequences = await sql<{ name: string; type: string; start: string; increment: string; min: string; max: string; cache: string; cycle: boolean; owned: string | null; acl: Acl[] }[]>`
    select c.oid::regclass::text as name, format_type(s.seqtypid, null) as type, s.seqstart::text as start, s.seqincrement::text as increment,
           s.seqmin::text as min, s.seqmax::text as max, s.seqcache::text as cache, s.seqcycle as cycle,
           (select format('%s.%I', d.refobjid::regclass, a.attname) from pg_depend d
              join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
             where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'a') as owned,
           ${sql.unsafe(aclJson('c.relacl', 'c.relowner'))} as acl
      from pg_sequence s join pg_class c on c.oid = s.seqrelid join pg_namespace n on n.oid = c.relnamespace
     where ${sql.unsafe(ours)} and ${sql.unsafe(ownObject('pg_class', 'c.oid'))}
       and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'i')
     order by 1`;
  for (const s of sequences) {
    out.push(`create sequence ${s.name} as ${s.type} start ${s.start} increment ${s.increment} minvalue ${s.min} maxvalue ${s.max} cache ${s.cache}${s.cycle ? ' cycle' : ''}${s.owned ? ` owned by ${s.owned}` : ''};`);
    out.push(...grants(`sequence ${s.name}`, s.acl));
  }

  section('Functions');
  const functions = await sql<{ signature: string; definition: string; comment: string | null; acl: Acl[]; hasacl: boolean; owner: string; mine: boolean }[]>`
    select p.oid::regprocedure::text as signature, pg_get_functiondef(p.oid) as definition, obj_description(p.oid, 'pg_proc') as comment,
           ${sql.unsafe(aclJson('p.proacl', 'p.proowner'))} as acl, p.proacl is not null as hasacl,
           pg_get_userbyid(p.proowner) as owner, p.proowner = (select oid from pg_roles where rolname = current_user) as mine
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where ${sql.unsafe(ours)} and p.prokind in ('f', 'p') and p.proname not like 'test\_%'
       and ${sql.unsafe(ownObject('pg_proc', 'p.oid'))}
     order by n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)`;
  for (const f of functions) {
    const kind = f.definition.startsWith('CREATE OR REPLACE PROCEDURE') ? 'procedure' : 'function';
    out.push(`${f.definition.trimEnd()};`);
    out.push(...commentOn(`${kind} ${f.signature}`, f.comment));
    if (!f.mine) out.push(`alter ${kind} ${f.signature} owner to ${quote(f.owner)};`);
    if (revokedFromPublic(f.acl, f.hasacl)) out.push(`revoke execute on ${kind} ${f.signature} from public;`);
    out.push(...grants(`${kind} ${f.signature}`, f.acl.filter((a) => a.grantee !== 'public')));
    out.push('');
  }

  section('Tables');
  const tables = await sql<{ oid: number; name: string; persistence: string; options: string[] | null; rls: boolean; forcerls: boolean; comment: string | null; acl: Acl[]; owner: string; mine: boolean }[]>`
    select c.oid::int as oid, c.oid::regclass::text as name, c.relpersistence as persistence, c.reloptions as options,
           c.relrowsecurity as rls, c.relforcerowsecurity as forcerls, obj_description(c.oid, 'pg_class') as comment,
           ${sql.unsafe(aclJson('c.relacl', 'c.relowner'))} as acl,
           pg_get_userbyid(c.relowner) as owner, c.relowner = (select oid from pg_roles where rolname = current_user) as mine
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where ${sql.unsafe(ours)} and c.relkind in ('r', 'p') and ${sql.unsafe(ownObject('pg_class', 'c.oid'))}
     order by n.nspname, c.relname`;
  for (const t of tables) {
    const columns = await sql<{ name: string; type: string; notnull: boolean; default: string | null; identity: string; generated: string; collation: string | null; comment: string | null; acl: Acl[] }[]>`
      select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull,
             pg_get_expr(d.adbin, d.adrelid) as default, a.attidentity as identity, a.attgenerated as generated,
             case when a.attcollation <> t.typcollation then (select quote_ident(collname) from pg_collation where oid = a.attcollation) end as collation,
             col_description(a.attrelid, a.attnum) as comment,
             ${sql.unsafe(aclJson('a.attacl', 'c.relowner'))} as acl
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_type t on t.oid = a.atttypid
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where a.attrelid = ${t.oid} and a.attnum > 0 and not a.attisdropped
       order by a.attnum`;
    const constraints = await sql<{ name: string; definition: string; comment: string | null }[]>`
      select quote_ident(conname) as name, pg_get_constraintdef(oid) as definition, obj_description(oid, 'pg_constraint') as comment
        from pg_constraint where conrelid = ${t.oid} and contype <> 'n'
       order by case contype when 'p' then 0 when 'u' then 1 when 'x' then 2 when 'c' then 3 when 'f' then 4 else 5 end, conname`;
    const lines = [
      ...columns.map((c) => {
        const parts = [quote(c.name), c.type];
        if (c.collation) parts.push(`collate ${c.collation}`);
        if (c.generated === 's') parts.push(`generated always as (${c.default}) stored`);
        else if (c.identity) parts.push(`generated ${c.identity === 'a' ? 'always' : 'by default'} as identity`);
        else if (c.default !== null) parts.push(`default ${c.default}`);
        if (c.notnull) parts.push('not null');
        return parts.join(' ');
      }),
      ...constraints.map((c) => `constraint ${c.name} ${c.definition}`),
    ];
    const kind = t.persistence === 'u' ? 'unlogged table' : 'table';
    out.push(`create ${kind} ${t.name} (`, lines.map((l) => `  ${l}`).join(',\n'), `)${t.options ? ` with (${t.options.join(', ')})` : ''};`);
    if (!t.mine) out.push(`alter table ${t.name} owner to ${quote(t.owner)};`);
    if (t.rls) out.push(`alter table ${t.name} enable row level security;`);
    if (t.forcerls) out.push(`alter table ${t.name} force row level security;`);
    out.push(...commentOn(`table ${t.name}`, t.comment));
    for (const c of columns) out.push(...commentOn(`column ${t.name}.${quote(c.name)}`, c.comment));
    for (const c of constraints) out.push(...commentOn(`constraint ${c.name} on ${t.name}`, c.comment));

    const indexes = await sql<{ definition: string; comment: string | null; name: string }[]>`
      select pg_get_indexdef(i.indexrelid) as definition, obj_description(i.indexrelid, 'pg_class') as comment, i.indexrelid::regclass::text as name
        from pg_index i
       where i.indrelid = ${t.oid} and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.conrelid = i.indrelid)
       order by i.indexrelid::regclass::text`;
    for (const i of indexes) out.push(`${i.definition};`, ...commentOn(`index ${i.name}`, i.comment));

    const triggers = await sql<{ definition: string; name: string; comment: string | null }[]>`
      select pg_get_triggerdef(oid) as definition, quote_ident(tgname) as name, obj_description(oid, 'pg_trigger') as comment
        from pg_trigger where tgrelid = ${t.oid} and not tgisinternal and tgname not like 'test\_%'
       order by tgname`;
    for (const g of triggers) out.push(`${g.definition};`, ...commentOn(`trigger ${g.name} on ${t.name}`, g.comment));

    const policies = await sql<{ name: string; permissive: boolean; command: string; roles: string[]; using: string | null; check: string | null; comment: string | null }[]>`
      select quote_ident(p.polname) as name, p.polpermissive as permissive, p.polcmd as command,
             (select coalesce(array_agg(case when r = 0 then 'public' else quote_ident(pg_get_userbyid(r)) end order by 1), '{}')
                from unnest(p.polroles) r) as roles,
             pg_get_expr(p.polqual, p.polrelid) as using, pg_get_expr(p.polwithcheck, p.polrelid) as check,
             obj_description(p.oid, 'pg_policy') as comment
        from pg_policy p where p.polrelid = ${t.oid} order by p.polname`;
    const commands: Record<string, string> = { r: 'select', a: 'insert', w: 'update', d: 'delete', '*': 'all' };
    for (const p of policies) {
      out.push(`create policy ${p.name} on ${t.name} as ${p.permissive ? 'permissive' : 'restrictive'} for ${commands[p.command]} to ${p.roles.join(', ')}` +
        `${p.using ? `\n  using (${p.using})` : ''}${p.check ? `\n  with check (${p.check})` : ''};`);
      out.push(...commentOn(`policy ${p.name} on ${t.name}`, p.comment));
    }

    out.push(...grants(`table ${t.name}`, t.acl));
    for (const c of columns) out.push(...grants(`table ${t.name}`, c.acl, ` (${quote(c.name)})`));
    out.push('');
  }

  section('Views');
  const views = await sql<{ oid: number; name: string; kind: string; options: string[] | null; definition: string; comment: string | null; acl: Acl[] }[]>`
    select c.oid::int as oid, c.oid::regclass::text as name, c.relkind as kind, c.reloptions as options,
           pg_get_viewdef(c.oid, true) as definition, obj_description(c.oid, 'pg_class') as comment,
           ${sql.unsafe(aclJson('c.relacl', 'c.relowner'))} as acl
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where ${sql.unsafe(ours)} and c.relkind in ('v', 'm') and ${sql.unsafe(ownObject('pg_class', 'c.oid'))}
     order by n.nspname, c.relname`;
  for (const v of views) {
    const kind = v.kind === 'm' ? 'materialized view' : 'view';
    out.push(`create ${kind} ${v.name}${v.options ? ` with (${v.options.join(', ')})` : ''} as`, `${v.definition.replace(/;\s*$/, '').trimEnd()};`);
    out.push(...commentOn(`${kind} ${v.name}`, v.comment));
    const columnComments = await sql<{ name: string; comment: string }[]>`
      select a.attname as name, col_description(a.attrelid, a.attnum) as comment from pg_attribute a
       where a.attrelid = ${v.oid} and a.attnum > 0 and col_description(a.attrelid, a.attnum) is not null order by a.attnum`;
    for (const c of columnComments) out.push(...commentOn(`column ${v.name}.${quote(c.name)}`, c.comment));
    out.push(...grants(`table ${v.name}`, v.acl));
    out.push('');
  }

  // A section with nothing in it (no types, say) is left out with its heading.
  const rule = `-- ${'='.repeat(94)}`;
  const text = out.join('\n').replace(/\n{3,}/g, '\n\n');
  const empty = new RegExp(`${rule}\n-- [^\n]*\n${rule}\n\n(?=${rule}|$)`, 'g');
  return `${text.replace(empty, '').trimEnd()}\n`;
}

/** Where the current schema is committed. */
export const schemaFile = new URL('../../supabase/schema.sql', import.meta.url).pathname;

// The released migrations, as `sha256sum` prints them (`<checksum>  <file>`, one a line, in order):
// a released file never changes, so tests/operations/schema.test.ts fails when one listed here
// differs from its checksum or is gone. The migrator refuses a changed file on a database that
// applied it; this list catches the edit before any database sees it.

/** The list of released migrations' checksums. */
export const releasedFile = `${migrationsDir}released.sha256`;

export interface Released {
  file: string;
  checksum: string;
}

export async function readReleased(path = releasedFile): Promise<Released[]> {
  const text = await readFile(path, 'utf8');
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => {
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (!match) throw new Error(`${path}: not a checksum line: ${line}`);
    return { checksum: match[1], file: match[2] };
  });
}

/** Appends the migrations not yet listed to the list, after the lines already there (which it never rewrites). */
export async function appendReleased(path = releasedFile, dir = migrationsDir): Promise<string[]> {
  const listed = await readReleased(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  const known = new Set(listed.map((r) => r.file));
  const added = (await readMigrations(dir)).filter((m) => !known.has(m.file));
  const lines = [...listed, ...added.map((m) => ({ file: m.file, checksum: m.checksum }))].map((r) => `${r.checksum}  ${r.file}\n`);
  if (added.length) await writeFile(path, lines.join(''));
  return added.map((m) => m.file);
}
