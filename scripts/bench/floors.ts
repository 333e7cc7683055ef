// The floors of `npm run bench`: a bare node:http server issuing only the statements a scenario
// cannot do without, on a pool like the service's (same size, prepared statements) and the same
// database, in a process of its own like the service. What the service spends above a floor is
// its own overhead: routing, validation, middleware, round trips beyond the minimum.
//   GET  /claims/{reference}  a plain key lookup, then begin, tenant context, the read and commit
//                             in one pipelined write;
//   POST /claims              a plain key lookup, then begin, context, the insert, its event and
//                             commit in one pipelined write (a copy of a template request).
//   GET  /limiter/{option}    the key lookup and a rate-limit count, each option of counting
//                             (the options weighed for the service's limiter, in one run):
//                             none; one window row per key committed synchronously (before);
//                             the same asynchronously (chosen); eight rows per key (shards).
// Started by run.ts with DATABASE_URL, FLOOR_PORT and FLOOR_TEMPLATE (a request id to copy).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { pgTypes } from '../../shared/db/client.ts';
import { sha256Hex } from '../../shared/keys.ts';
import { newClaimRef } from '../../shared/claims/values.ts';

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DB_POOL_SIZE || 10), onnotice: () => {}, types: pgTypes });
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
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const [row] = await sql<Key[]>`select org_id, environment from app.api_keys where key_hash = ${await sha256Hex(key)} and revoked_at is null`;
  return row;
}

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

/** One count in a key's window, as each option would take it (the statements as app.authenticate runs them). */
const limiterOptions: Record<string, (tx: postgres.Sql, bucket: string) => Promise<unknown>> = {
  none: async () => undefined,
  synchronous: (tx, bucket) => windowCount(tx, bucket),
  asynchronous: (tx, bucket) => inTransaction(tx, (t) => [t`select set_config('synchronous_commit', 'off', true)`.execute(), windowCount(t, bucket)]),
  sharded: (tx, bucket) => inTransaction(tx, (t) => [
    t`select set_config('synchronous_commit', 'off', true)`.execute(),
    windowCount(t, `${bucket}:${Math.floor(Math.random() * 8)}`),
    t`select sum(count) from app.rate_windows where bucket like ${`${bucket}:%`}`.execute(),
  ]),
};

function windowCount(tx: postgres.Sql, bucket: string) {
  return tx`
    insert into app.rate_windows as w (bucket, window_start, count) values (${bucket}, date_trunc('minute', now()), 1)
    on conflict (bucket) do update
      set count = case when w.window_start = excluded.window_start then w.count + 1 else 1 end, window_start = excluded.window_start
    returning w.count`.execute();
}

/** begin, the statements and commit in one write on one connection. */
async function inTransaction(pool: postgres.Sql, statements: (tx: postgres.ReservedSql) => Promise<unknown>[]) {
  const tx = await pool.reserve();
  try {
    await Promise.all([tx.unsafe('begin').execute(), ...statements(tx), tx.unsafe('commit').execute()]);
  } finally {
    tx.release();
  }
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const key = await lookUp(request);
  if (!key) return send(response, 401, { error: { code: 'invalid_key' } });
  const limiter = /^\/limiter\/(\w+)$/.exec(request.url ?? '');
  if (request.method === 'GET' && limiter && limiterOptions[limiter[1]]) {
    await limiterOptions[limiter[1]](sql, `bench:${key.org_id}`);
    return send(response, 200, { data: { option: limiter[1] } });
  }
  const read = /^\/claims\/(REQ-[A-Z0-9]{6})$/.exec(request.url ?? '');
  if (request.method === 'GET' && read) {
    const [row] = await pipelined(key, true, (tx) => tx`select c.*, app.coordinator_of(c) as coordinator from app.claims c where c.claim_ref = ${read[1]}`);
    return row ? send(response, 200, { data: row }) : send(response, 404, { error: { code: 'not_found' } });
  }
  if (request.method === 'POST' && request.url === '/claims') {
    JSON.parse(Buffer.concat(chunks).toString() || '{}');
    const id = crypto.randomUUID();
    const reference = newClaimRef();
    const [row] = await pipelined(key, false, async (tx) => {
      const inserted = tx.unsafe<{ id: string; claim_ref: string }[]>(copyRequest, [id, reference, template], { prepare: true }).execute();
      const event = tx`select app.record_event('request.status_changed', ${tx.json({ request_id: id, reference, external_id: null, status: 'housing_needs_collected', previous_status: null })})`.execute();
      const [rows] = await Promise.all([inserted, event]);
      return rows;
    });
    return send(response, 201, { data: row });
  }
  send(response, 404, { error: { code: 'not_found' } });
}

const server = createServer((request, response) => {
  handle(request, response).catch((error) => send(response, 500, { error: { code: 'server_error', message: String(error?.message ?? error) } }));
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.FLOOR_PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
