// `npm run bench:bulk-matching`: matching right after a provider's bulk publish and calendar sync,
// before anything but the service itself has analyzed the tables (see scripts/bench/README.md,
// Matching after a bulk).
//
// One embedded PostgreSQL with autovacuum off and the periodic statistics refresh
// (app.refresh_grown_statistics, the local server's every two seconds) made a no-op in the database:
// the window right after a bulk, before either has looked (autovacuum looks at most once a minute;
// the refresh judges from row counts that reach the statistics views seconds after a commit), made
// to last the run, so that what analyzes the tables is only what the service's requests do. Over HTTP, one call at a time:
//   1. a provider publishes 2,000 homes around the loss (POST /properties/batch), a carrier opens a
//      request there (POST /claims): its matches against a read of the same request;
//   2. another provider publishes 10,000 homes in the same area and gives 50 of them 500 blocks each
//      (POST /properties/availability, 500 a call): the same two calls at once, on the same server
//      and its connections;
//   3. ANALYZE, as autovacuum would a minute later: the same two calls.
// BENCH_BULK_ANALYZE=off also makes the bulk paths' own analysis a no-op (app.analyze_grown).
// Each stage measures BENCH_BULK_PAIRS pairs (default 100) after a warm-up, the read and the matches
// in turn; prints p50 / p95 and matches over the read, and writes bench/results/bulk-matching.json.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { openDatabase } from '../../lib/database.ts';
import { migrate } from '../../lib/migrate.ts';
import { freePort } from '../../lib/scratch.ts';
import { child, stopped, waitFor } from '../../lib/processes.ts';
import { runCommand } from '../../console/commands.ts';

const root = new URL('../../../', import.meta.url).pathname;
const pairs = Number(process.env.BENCH_BULK_PAIRS || 100);
const area = { lat: 35.0, lng: -100.0 };
const started = performance.now();
const step = (message: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A home within about 15 miles of the loss, published through the API. */
const home = (tag: string, i: number) => ({
  external_id: `${tag}-${i}`, name: `Bulk ${tag} ${i}`, address: `${i} Bulk St`, city: 'Amarillo', state: 'TX', zip_code: '79101',
  latitude: area.lat + (Math.random() - 0.5) * 0.4, longitude: area.lng + (Math.random() - 0.5) * 0.5,
  monthly_rate: 1500 + (i % 200) * 5, bedrooms: 1 + (i % 4), bathrooms: 1, sqft: 900, furnished_status: 'furnished', available_from: inDays(0),
  security_deposit: 1000, cleaning_fee: 0, application_fee: 0, pet_fee: 0, image_url: 'https://img.example.com/bulk.jpg',
  description: 'A home of the bulk.', amenities: ['wifi'], pet_policy: 'No pets',
});

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)];
};

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'hps-bulk-matching-'));
  // Autovacuum off: the stale window of a bulk is the minute before autovacuum's next look.
  const database = await openDatabase({ dataDir, port: await freePort(), settings: { autovacuum: 'off' } });
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  let server: ChildProcess | undefined;
  try {
    await migrate(sql);
    // The periodic statistics refresh (a table that doubled, every few seconds) made a no-op, so that
    // the run stays in the window before it looks.
    await sql`create or replace function app.refresh_grown_statistics(p_min_rows integer default 200) returns text[]
              language sql as $$ select '{}'::text[] $$`;
    // BENCH_BULK_ANALYZE=off: the bulk paths' own analysis (app.analyze_grown) made a no-op too, so
    // that the run shows matching's plan holding on statistics as stale as they get.
    const bulkAnalyze = process.env.BENCH_BULK_ANALYZE !== 'off';
    if (!bulkAnalyze) {
      await sql`create or replace function app.analyze_grown(p_tables text[], p_min_pages integer default 8) returns text[]
                language sql as $$ select '{}'::text[] $$`;
    }
    const data = async <T>(...argv: string[]) => ((await runCommand(sql, argv)) as { data: T }).data;
    const newKey = async (orgId: string) => {
      const key = await data<{ id: string; key: string }>('key', 'create', '--org', orgId, '--env', 'live');
      await data('key', 'limit', '--id', key.id, '--per-minute', '100000');
      return key.key;
    };
    const carrier = (await data<{ id: string }>('org', 'create', '--name', 'Bulk carrier', '--side', 'carrier')).id;
    const first = (await data<{ id: string }>('org', 'create', '--name', 'First provider', '--side', 'provider')).id;
    const second = (await data<{ id: string }>('org', 'create', '--name', 'Bulk provider', '--side', 'provider')).id;
    await sql`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      select p, 'live', true, true, true, 'complete' from unnest(${[first, second]}::uuid[]) p`;
    const keys = { carrier: await newKey(carrier), first: await newKey(first), second: await newKey(second) };

    const port = await freePort();
    server = child('scripts/server.ts', { DATABASE_URL: database.url, PORT: String(port), MIGRATE: 'false' });
    server.stdout!.resume();
    const base = `http://127.0.0.1:${port}/functions/v1`;
    await waitFor(`${base}/health`, 120_000);
    const api = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await response.json()) as any;
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json;
    };
    const publish = async (key: string, tag: string, count: number) => {
      for (let at = 0; at < count; at += 100) {
        await api(key, 'POST', '/properties/batch', { properties: Array.from({ length: Math.min(100, count - at) }, (_, i) => home(tag, at + i)) });
      }
    };

    step('stage 1: 2,000 homes published, a request opened');
    await publish(keys.first, 'first', 2_000);
    const request = (await api(keys.carrier, 'POST', '/claims', {
      loss_address: '1 Bulk Rd', loss_city: 'Amarillo', loss_state: 'TX', loss_zip: '79101', loss_lat: area.lat, loss_lng: area.lng,
      target_move_in: inDays(30), est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, property_type: 'apartment',
      furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'carrier', max_budget: 2500,
    })).data;
    const calls = { read: `/claims/${request.claim_ref}`, matches: `/claims/${request.claim_ref}/matches` };
    const timed = async (path: string) => {
      const at = performance.now();
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${keys.carrier}` } });
      const body = (await response.json()) as { data: unknown[] };
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      return { ms: performance.now() - at, body };
    };
    const stage = async (name: string) => {
      for (let i = 0; i < 10; i++) await timed(calls.read), await timed(calls.matches);
      const read: number[] = [];
      const matches: number[] = [];
      let found = 0;
      for (let i = 0; i < pairs; i++) {
        const order = i % 2 ? ['read', 'matches'] as const : ['matches', 'read'] as const;
        for (const call of order) {
          const { ms, body } = await timed(calls[call]);
          (call === 'read' ? read : matches).push(ms);
          if (call === 'matches') found = body.data.length;
        }
      }
      const figure = {
        stage: name, read: { p50: percentile(read, 0.5), p95: percentile(read, 0.95) }, matches: { p50: percentile(matches, 0.5), p95: percentile(matches, 0.95) },
        ratio: percentile(matches, 0.5) / percentile(read, 0.5), found,
      };
      step(`  ${name}: matches p50 ${figure.matches.p50.toFixed(1)} ms, read ${figure.read.p50.toFixed(1)} ms: ${figure.ratio.toFixed(2)}x`);
      return figure;
    };
    const figures = [await stage('2,000 homes, fresh database')];

    step('stage 2: 10,000 homes of another provider published, 50 of them given 500 blocks each');
    const bulkAt = performance.now();
    await publish(keys.second, 'second', 10_000);
    const blocked = (await sql<{ id: string }[]>`
      select id from app.properties where org_id = ${second} and environment = 'live' order by created_at limit 50`).map((r) => r.id);
    for (const id of blocked) {
      // A channel's calendar: 500 stays of two nights a week apart, half of them past, one over the move-in date.
      const blocks = Array.from({ length: 500 }, (_, k) => ({ property_id: id, start_date: inDays(-1750 + k * 7), end_date: inDays(-1749 + k * 7) }));
      blocks[254] = { property_id: id, start_date: inDays(29), end_date: inDays(31) };
      await api(keys.second, 'POST', '/properties/availability', { replace: false, blocks });
    }
    const bulkSeconds = (performance.now() - bulkAt) / 1000;
    const [analyzed] = await sql<{ tables: string }[]>`
      select string_agg(relname || ' ' || coalesce(analyze_count, 0), ', ' order by relname) as tables
        from pg_stat_user_tables where schemaname = 'app' and relname in ('properties', 'availability_blocks')`;
    figures.push(await stage('right after the bulk (not analyzed by autovacuum)'));

    step('stage 3: ANALYZE');
    await sql`analyze app.properties, app.availability_blocks`;
    figures.push(await stage('after ANALYZE'));

    const f = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
    const header = ['stage', 'read p50 / p95 ms', 'matches p50 / p95 ms', 'matches / read (p50)', 'target', ''];
    const rows = figures.map((figure, i) => [
      figure.stage, `${f(figure.read.p50)} / ${f(figure.read.p95)}`, `${f(figure.matches.p50)} / ${f(figure.matches.p95)}`, figure.ratio.toFixed(2),
      i === 1 ? '<= 3x the read' : 'reported', i === 1 ? (figure.ratio <= 3 ? 'met' : 'MISSED') : '',
    ]);
    const widths = header.map((_, i) => Math.max(header[i].length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
    process.stdout.write(`\n${[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')}\n` +
      `the bulk: 10,000 homes in 100 batches and 25,000 blocks in 50 syncs, ${bulkSeconds.toFixed(1)} s; analyses by then: ${analyzed.tables}` +
      `${bulkAnalyze ? '' : ' (the bulk paths\' analysis off)'}; ` +
      `${pairs} pairs a stage, one call at a time; each stage's matches returned ${figures.map((x) => x.found).join(' / ')} homes.\n`);
    await mkdir(join(root, 'bench/results'), { recursive: true });
    await writeFile(join(root, 'bench/results/bulk-matching.json'), `${JSON.stringify({ at: new Date().toISOString(), pairs, bulkAnalyze, bulkSeconds, analyzed: analyzed.tables, figures }, null, 2)}\n`);
  } finally {
    if (server) await stopped(server);
    await sql.end();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
