// Provider-side batch endpoints over HTTP on the local server stack (node server → router →
// function → embedded PostgreSQL), against their targets:
// - POST /properties/batch with 100 homes under 300 ms;
// - POST /properties/availability with 500 blocks (replace) under 200 ms.
// Each is also compared with sending the same items one call at a time, measured in the same run.
import { serve, type ServerType } from '@hono/node-server';
import postgres from 'postgres';
import { freePort, median, startScratchDatabase } from '../lib/scratch.ts';

const rounds = 15;

function home(i: number, run: string) {
  return {
    external_id: `${run}-${i}`,
    name: `Bench ${i}`,
    address: `${i} Bench St`,
    city: 'Austin',
    state: 'TX',
    zip_code: '78701',
    monthly_rate: 2000 + i,
    bedrooms: 1 + (i % 4),
    bathrooms: 1,
    sqft: 800,
    furnished_status: 'furnished',
    available_from: '2026-12-01',
    security_deposit: 1000,
    cleaning_fee: 0,
    application_fee: 0,
    pet_fee: 0,
    image_url: `https://img.example.com/${i}.jpg`,
    description: 'A benchmark home.',
    amenities: ['wifi'],
    pet_policy: 'No pets',
  };
}

export default async function () {
  const database = await startScratchDatabase('hps-bench-');
  process.env.DATABASE_URL = database.url;
  process.env.LOG_LEVEL = 'silent';
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  let server: ServerType | undefined;
  try {
    const { route } = await import('../lib/router.ts');
    const { runCommand } = await import('../console/commands.ts');
    const { closeDb } = await import('../../shared/db/client.ts');
    const port = await freePort();
    server = serve({ hostname: '127.0.0.1', port, fetch: (request) => route(request) });

    const org = (await runCommand(admin, ['org', 'create', '--name', 'Bench provider', '--side', 'provider'])) as { data: { id: string } };
    const key = (await runCommand(admin, ['key', 'create', '--org', org.data.id, '--env', 'live'])) as { data: { id: string; key: string } };
    await admin`update app.api_keys set rate_limit_per_minute = 1000000 where id = ${key.data.id}`;

    const call = async (method: string, path: string, body: unknown) => {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/functions/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key.data.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
      return elapsed;
    };

    // Warm up connections and statement plans.
    await call('POST', '/properties/batch', { properties: Array.from({ length: 100 }, (_, i) => home(i, 'warm')) });

    // Batches: half create 100 new homes, half refresh 100 existing ones in place.
    const batchTimes: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const run = r % 2 === 0 ? `new${r}` : `new${r - 1}`;
      batchTimes.push(await call('POST', '/properties/batch', { properties: Array.from({ length: 100 }, (_, i) => home(i, run)) }));
    }
    const oneByOneStart = performance.now();
    for (let i = 0; i < 100; i++) await call('POST', '/properties', home(i, 'single'));
    const oneByOne = performance.now() - oneByOneStart;

    const homeIds = (await admin<{ id: string }[]>`select id from app.properties where org_id = ${org.data.id} order by created_at limit 100`).map((h) => h.id);
    const blocks = Array.from({ length: 500 }, (_, i) => ({
      property_id: homeIds[i % homeIds.length],
      start_date: `2027-${String(1 + (i % 12)).padStart(2, '0')}-01`,
      end_date: `2027-${String(1 + (i % 12)).padStart(2, '0')}-10`,
      reason: 'Owner stay',
    }));
    await call('POST', '/properties/availability', { replace: true, blocks });
    const syncTimes: number[] = [];
    for (let r = 0; r < rounds; r++) syncTimes.push(await call('POST', '/properties/availability', { replace: true, blocks }));
    const blocksOneByOneStart = performance.now();
    for (const block of blocks) await call('POST', `/properties/${block.property_id}/availability`, { start_date: block.start_date, end_date: block.end_date });
    const blocksOneByOne = performance.now() - blocksOneByOneStart;

    const batch = median(batchTimes);
    const sync = median(syncTimes);
    console.log(`POST /properties/batch, 100 homes: median ${batch.toFixed(1)} ms over ${rounds} calls (target 300 ms: ${(batch / 300).toFixed(2)} of target)`);
    console.log(`  100 single POST /properties in sequence: ${oneByOne.toFixed(0)} ms (batch is ${(oneByOne / batch).toFixed(1)}x faster)`);
    console.log(`POST /properties/availability, 500 blocks with replace: median ${sync.toFixed(1)} ms over ${rounds} calls (target 200 ms: ${(sync / 200).toFixed(2)} of target)`);
    console.log(`  500 single POST /properties/{id}/availability in sequence: ${blocksOneByOne.toFixed(0)} ms (bulk is ${(blocksOneByOne / sync).toFixed(1)}x faster)`);
    await closeDb();
  } finally {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await admin.end();
    await database.stop();
  }
}
