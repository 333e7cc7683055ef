// The floors of `npm run bench`: a bare node:http server issuing only the statements a scenario
// cannot do without, on a pool like the service's (same size, prepared statements) and the same
// database, in a process of its own like the service. What the service spends above a floor is
// its own overhead: routing, validation, middleware, round trips beyond the minimum.
//   GET  /claims/{reference}  a plain key lookup, then begin, tenant context, the read and commit
//                             in one pipelined write;
//   POST /claims              a plain key lookup, then begin, context, the insert, its event and
//                             commit in one pipelined write (a copy of a template request).
//   /counted/...              either of the above with the service's own authentication, the
//                             rate-limit count included (app.authenticate, one statement), and a
//                             write also queuing its job row (of a kind no runner takes): the
//                             statements of the service's own path, so that the service's ratio to
//                             it is its framework's share (and, for a write, sourcing after commit);
//   GET  /limiter/{option}    the key lookup and a rate-limit count in one statement, each way
//                             of counting weighed for app.authenticate, in one run (copies in a
//                             scratch schema, bench_limiter, that run.ts drops); `none` is the
//                             plain key lookup alone.
// Started by run.ts with DATABASE_URL, FLOOR_PORT and FLOOR_TEMPLATE (a request id to copy).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { pgTypes, connect } from '../../shared/db/client.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { newClaimRef } from '../../shared/claims/values.ts';

const sql = connect(process.env.DATABASE_URL!, { max: Number(process.env.DB_POOL_SIZE || 10), types: pgTypes });
const template = process.env.FLOOR_TEMPLATE!;
// The columns a new request copies from the template: all but its identity and the generated ones.
const copied = (await sql<{ column_name: string }[]>`
  select column_name from information_schema.columns
   where table_schema = 'app' and table_name = 'claims' and is_generated = 'NEVER'
     and column_name not in ('id', 'claim_ref', 'external_id', 'created_at', 'updated_at')`).map((c) => `"${c.column_name}"`).join(', ');
const copyRequest = `insert into app.claims (id, claim_ref, ${copied}) select $1::uuid, $2::text, ${copied} from app.claims where id = $3 returning id, claim_ref`;

interface Key {
  org_id: string;
  environment: string;
}

async function lookUp(request: IncomingMessage): Promise<Key | undefined> {
  const [row] = await sql<Key[]>`select org_id, environment from app.api_keys where key_hash = ${await presentedHash(request)} and revoked_at is null`;
  return row;
}

/** The service's own authentication statement, the rate-limit count included: the key, 'over limit', or undefined. */
async function authenticated(request: IncomingMessage): Promise<Key | 'over limit' | undefined> {
  const [row] = await sql<(Key & { key_id: string | null; rate_count: number; rate_limit: number })[]>`
    select * from app.authenticate(${await presentedHash(request)}, ${'127.0.0.1'})`;
  if (row.rate_count > row.rate_limit) return 'over limit';
  return row.key_id ? row : undefined;
}

/**
 * A creation's job row, by the service's statement (shared/jobs/queue.ts), of a kind no runner
 * claims: the floor pays for queuing the work, not for doing it.
 */
const queueJob = (tx: postgres.ReservedSql, requestId: string) => tx`
  insert into app.jobs (kind, org_id, environment, payload, dedupe_key, max_attempts)
  values ('bench_floor', app.current_org(), app.current_env(), ${tx.json({ request_ids: [requestId] })}, ${null}, ${8})
  on conflict (kind, dedupe_key) where dedupe_key is not null do nothing
  returning id`.execute();

/** The statements of `work` between begin (with the tenant context) and commit, sent in one write. */
async function pipelined<T>(key: Key, readOnly: boolean, work: (tx: postgres.ReservedSql) => Promise<T>): Promise<T> {
  const tx = await sql.reserve();
  try {
    const begin = tx.unsafe(readOnly ? 'begin read only' : 'begin').execute();
    const context = tx`select set_config('role', 'svc_api', true), set_config('app.org_id', ${key.org_id}, true), set_config('app.env', ${key.environment}, true)`.execute();
    const result = work(tx);
    const commit = tx.unsafe('commit').execute();
    const [, , value] = await Promise.all([begin, context, result, commit]);
    return value;
  } catch (error) {
    await tx.unsafe('rollback').catch(() => {});
    throw error;
  } finally {
    tx.release();
  }
}

function send(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/**
 * The options for counting a request, each as one statement doing the key lookup and the count,
 * as app.authenticate does (copies of it in a scratch schema, so that every option runs in one
 * run on the same database): the window row in a logged or an UNLOGGED table, the upsert inside a
 * PL/pgSQL exception block (a subtransaction per call) or not, PL/pgSQL or a plain SQL function; or
 * a number drawn from a sequence against a window read without a lock (sequenceOption, and as one
 * statement without a function in limiterStatements); and, to tell the function's own cost from the
 * count's, the same PL/pgSQL function without a count.
 */
const limiterOptions: Record<string, string> = {
  before: 'guarded_logged',
  logged: 'plain_logged',
  guarded_unlogged: 'guarded_unlogged',
  unlogged: 'plain_unlogged',
  sql_unlogged: 'sql_unlogged',
  sequence: 'sequence_unlogged',
  function_only: 'function_uncounted',
};

const columns = `key_id uuid, org_id uuid, side text, environment text, scopes text[],
  rate_limit integer, rate_count integer, rate_reset timestamptz, limiter_ok boolean`;
const keyLookup = (into = '') => `select a.id, a.org_id, o.side, a.environment, a.scopes,
         coalesce(a.rate_limit_per_minute, app.default_rate_limit(a.environment)) as lim ${into}
    from app.api_keys a join app.organisations o on o.id = a.org_id
   where a.key_hash = p_key_hash and a.revoked_at is null and a.user_email is null`;
const touch = `update app.api_keys a set last_used_at = now()
     where a.id = k.id and (a.last_used_at is null or a.last_used_at < now() - interval '1 minute')`;
const upsert = (table: string) => `insert into bench_limiter.${table} as w (bucket, window_start, count)
    values (v_bucket, v_window, 1)
    on conflict (bucket) do update
      set count = case when w.window_start >= excluded.window_start then w.count + 1 else 1 end,
          window_start = greatest(w.window_start, excluded.window_start)
    returning w.count into rate_count;
    limiter_ok := true;`;

/**
 * The start of each PL/pgSQL option, as app.authenticate starts: its signature, the key's record,
 * the minute's window, an asynchronous commit and the key lookup into `k`.
 */
const plpgsqlHead = (name: string, lockTimeout: boolean, declarations: string) => `create function bench_limiter.${name}(p_key_hash text, p_address text) returns table (${columns})
language plpgsql ${lockTimeout ? "set lock_timeout = '250ms'" : ''} as $$
declare
  k record;
  v_window timestamptz := date_trunc('minute', now());
  ${declarations}
begin
  perform set_config('synchronous_commit', 'off', true);
  ${keyLookup('into k')};`;

function plpgsqlOption(name: string, table: string, guarded: boolean) {
  const count = guarded
    ? `begin
    perform set_config('lock_timeout', '250ms', true);
    ${upsert(table)}
  exception when others then
    rate_count := 0;
    limiter_ok := false;
  end;`
    : upsert(table);
  return `${plpgsqlHead(name, !guarded, 'v_bucket text;')}
  if found then
    key_id := k.id; org_id := k.org_id; side := k.side; environment := k.environment;
    scopes := k.scopes; rate_limit := k.lim; v_bucket := 'key:' || k.id;
    ${touch};
  else
    rate_limit := 60; v_bucket := 'addr:' || coalesce(p_address, 'unknown');
  end if;
  rate_reset := v_window + interval '1 minute';
  ${count}
  return next;
end $$`;
}

const sqlOption = `create function bench_limiter.sql_unlogged(p_key_hash text, p_address text) returns table (${columns})
language sql set lock_timeout = '250ms' as $$
  with k as (${keyLookup()}),
  touched as (${touch.replace('where a.id = k.id', 'from k where a.id = k.id')}),
  counted as (
    insert into bench_limiter.plain_unlogged_sql as w (bucket, window_start, count)
    select coalesce('key:' || (select id from k), 'addr:' || coalesce(p_address, 'unknown')), date_trunc('minute', now()), 1
    on conflict (bucket) do update
      set count = case when w.window_start >= excluded.window_start then w.count + 1 else 1 end,
          window_start = greatest(w.window_start, excluded.window_start)
    returning w.count)
  select k.id, k.org_id, k.side, k.environment, k.scopes, coalesce(k.lim, 60), c.count,
         date_trunc('minute', now()) + interval '1 minute', set_config('synchronous_commit', 'off', true) = 'off'
    from counted c left join k on true
$$`;

/**
 * A count without a row lock: each request draws the next number of the key's sequence (nextval
 * takes no lock a concurrent request waits for, and no transaction id), and its count is that
 * number less the window's base, read without locking; only the first request of a minute writes
 * (the new base, its own number less one). At a minute's edge a request that drew its number before
 * the first of the new minute wrote the base is counted as the new minute's first: the limit can be
 * passed by the requests in flight at that instant. Weighed only: the bench has one key on the
 * limiter routes, so one sequence stands for the sequence each key would have.
 */
const sequenceOption = `${plpgsqlHead('sequence_unlogged', true, 'w record; v bigint; v_bucket text;')}
  key_id := k.id; org_id := k.org_id; side := k.side; environment := k.environment;
  scopes := k.scopes; rate_limit := k.lim; v_bucket := 'key:' || k.id;
  ${touch};
  v := nextval('bench_limiter.key_numbers');
  select s.window_start, s.base into w from bench_limiter.sequence_windows s where s.bucket = v_bucket;
  if not found or w.window_start < v_window then
    insert into bench_limiter.sequence_windows as s (bucket, window_start, base) values (v_bucket, v_window, v - 1)
    on conflict (bucket) do update set window_start = excluded.window_start, base = excluded.base
      where s.window_start < excluded.window_start
    returning s.window_start, s.base into w;
    if not found then
      select s.window_start, s.base into w from bench_limiter.sequence_windows s where s.bucket = v_bucket;
    end if;
  end if;
  rate_count := greatest(1, v - w.base);
  rate_reset := v_window + interval '1 minute';
  limiter_ok := true;
  return next;
end $$`;

/** app.authenticate's function, lookup and touch without the count: what the function costs by itself. */
const uncountedOption = `${plpgsqlHead('function_uncounted', true, '')}
  key_id := k.id; org_id := k.org_id; side := k.side; environment := k.environment;
  scopes := k.scopes; rate_limit := k.lim;
  ${touch};
  rate_count := 0;
  rate_reset := v_window + interval '1 minute';
  limiter_ok := true;
  return next;
end $$`;

/**
 * Options that are one statement of their own rather than a function. The sequence's count as one
 * prepared statement: the lookup, the touch, the number and the window read; a write only when the
 * window read is of an earlier minute.
 */
const limiterStatements: Record<string, string> = {
  sequence_statement: `
    with k as (${keyLookup().replace('p_key_hash', '$1')}),
    touched as (${touch.replace('where a.id = k.id', 'from k where a.id = k.id')}),
    n as (select nextval('bench_limiter.key_numbers') as v from k),
    w as (select s.window_start, s.base from bench_limiter.sequence_windows s, k where s.bucket = 'key:' || k.id),
    opened as (
      insert into bench_limiter.sequence_windows as s (bucket, window_start, base)
      select 'key:' || k.id, date_trunc('minute', now()), n.v - 1 from k, n
       where not exists (select 1 from w where w.window_start >= date_trunc('minute', now()))
      on conflict (bucket) do update set window_start = excluded.window_start, base = excluded.base
       where s.window_start < excluded.window_start
      returning s.base)
    select k.id as key_id, k.org_id, k.side, k.environment, k.scopes, k.lim as rate_limit,
           greatest(1, n.v - coalesce((select base from opened), (select base from w), n.v - 1))::integer as rate_count,
           date_trunc('minute', now()) + interval '1 minute' as rate_reset, true as limiter_ok, $2::text as address
      from k, n`,
};

await sql.unsafe('drop schema if exists bench_limiter cascade');
await sql.unsafe('create schema bench_limiter');
for (const [table, unlogged] of [['logged', false], ['unlogged', true], ['plain_unlogged_sql', true]] as const) {
  await sql.unsafe(`create ${unlogged ? 'unlogged' : ''} table bench_limiter.${table} (like app.rate_windows including all)`);
}
await sql.unsafe(plpgsqlOption('guarded_logged', 'logged', true));
await sql.unsafe(plpgsqlOption('plain_logged', 'logged', false));
await sql.unsafe(plpgsqlOption('guarded_unlogged', 'unlogged', true));
await sql.unsafe(plpgsqlOption('plain_unlogged', 'unlogged', false));
await sql.unsafe(sqlOption);
await sql.unsafe('create unlogged sequence bench_limiter.key_numbers');
await sql.unsafe('create unlogged table bench_limiter.sequence_windows (bucket text primary key, window_start timestamptz not null, base bigint not null)');
await sql.unsafe(sequenceOption);
await sql.unsafe(uncountedOption);


function presentedHash(request: IncomingMessage) {
  return sha256Hex(/^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '');
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const limiter = /^\/limiter\/(\w+)$/.exec(request.url ?? '');
  if (request.method === 'GET' && limiter && (limiterOptions[limiter[1]] || limiterStatements[limiter[1]])) {
    const statement = limiterStatements[limiter[1]] ?? `select * from bench_limiter.${limiterOptions[limiter[1]]}($1, $2)`;
    const [row] = await sql.unsafe(statement, [await presentedHash(request), '127.0.0.1'], { prepare: true });
    return row?.key_id ? send(response, 200, { data: { option: limiter[1], count: row.rate_count } }) : send(response, 401, { error: { code: 'invalid_key' } });
  }
  const counted = request.url?.startsWith('/counted/') ?? false;
  const path = counted ? request.url!.slice('/counted'.length) : request.url;
  const key = counted ? await authenticated(request) : await lookUp(request);
  if (!key) return send(response, 401, { error: { code: 'invalid_key' } });
  if (key === 'over limit') return send(response, 429, { error: { code: 'rate_limited' } });
  if (request.method === 'GET' && limiter?.[1] === 'none') return send(response, 200, { data: { option: 'none' } });
  const read = /^\/claims\/(REQ-[A-Z0-9]{6})$/.exec(path ?? '');
  if (request.method === 'GET' && read) {
    const [row] = await pipelined(key, true, (tx) => tx`select c.*, app.coordinator_of(c) as coordinator from app.claims c where c.claim_ref = ${read[1]}`);
    return row ? send(response, 200, { data: row }) : send(response, 404, { error: { code: 'not_found' } });
  }
  if (request.method === 'POST' && path === '/claims') {
    JSON.parse(Buffer.concat(chunks).toString() || '{}');
    // A claim_ref drawn twice is drawn again, as the service does: tens of thousands of requests
    // in one run make a collision likely.
    for (let attempt = 0; ; attempt++) {
      const id = crypto.randomUUID();
      const reference = newClaimRef();
      try {
        const [row] = await pipelined(key, false, async (tx) => {
          const inserted = tx.unsafe<{ id: string; claim_ref: string }[]>(copyRequest, [id, reference, template], { prepare: true }).execute();
          const event = tx`select app.record_event('request.status_changed', ${tx.json({ request_id: id, reference, external_id: null, status: 'housing_needs_collected', previous_status: null })})`.execute();
          const job = counted ? queueJob(tx, id) : undefined;
          const [rows] = await Promise.all([inserted, event, job]);
          return rows;
        });
        return send(response, 201, { data: row });
      } catch (error) {
        if ((error as postgres.PostgresError).constraint_name !== 'claims_claim_ref_key' || attempt === 4) throw error;
      }
    }
  }
  send(response, 404, { error: { code: 'not_found' } });
}

const server = createServer((request, response) => {
  handle(request, response).catch((error) => send(response, 500, { error: { code: 'server_error', message: String(error?.message ?? error) } }));
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.FLOOR_PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
