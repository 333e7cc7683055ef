// Matching (GET /claims/{reference}/matches), server time through the whole function stack
// (router → auth and rate limit → tenant transaction → app.match_candidates → scoring), against
// its target: with 10,000 homes in the area no more than 3x slower than with 1,000, and under 50 ms.
//
// Two layouts, measured in one run on one database:
// - dense: every home of the area lies within the request's 25-mile radius (1,000 around one loss,
//   10,000 around another; both areas are in the table at once);
// - spread: the same numbers of homes scattered over a region 600 miles across, a loss in its middle.
// About a tenth of the homes are blocked on the move-in date and some are marked unavailable, so the
// filters do real work.
import postgres from 'postgres';
import { median, startScratchDatabase } from '../lib/scratch.ts';

const rounds = 40;

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)];

interface Area {
  name: string;
  homes: number;
  lat: number;
  lng: number;
  /** Half-width of the square the homes are scattered over, in degrees of latitude. */
  spreadDegrees: number;
}

// 25 miles is 0.36 degrees of latitude: a square of half-width 0.2 degrees keeps every home in reach.
const areas: Area[] = [
  { name: 'dense 1,000', homes: 1_000, lat: 35, lng: -100, spreadDegrees: 0.2 },
  { name: 'dense 10,000', homes: 10_000, lat: 40, lng: -100, spreadDegrees: 0.2 },
  { name: 'spread 1,000', homes: 1_000, lat: 35, lng: -85, spreadDegrees: 4.3 },
  { name: 'spread 10,000', homes: 10_000, lat: 42, lng: -85, spreadDegrees: 4.3 },
];

export default async function () {
  const database = await startScratchDatabase('hps-bench-');
  process.env.DATABASE_URL = database.url;
  process.env.LOG_LEVEL = 'silent';
  process.env.DATA_DIR = database.dataDir;
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const { route } = await import('../lib/router.ts');
    const { runCommand } = await import('../console/commands.ts');
    const { closeDb } = await import('../../shared/db/client.ts');

    const providerOrg = ((await runCommand(admin, ['org', 'create', '--name', 'Bench provider', '--side', 'provider'])) as { data: { id: string } }).data.id;
    await admin`
      insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
      values (${providerOrg}, 'live', true, true, true, 'complete')`;
    const carrierOrg = ((await runCommand(admin, ['org', 'create', '--name', 'Bench carrier', '--side', 'carrier'])) as { data: { id: string } }).data.id;
    const key = (await runCommand(admin, ['key', 'create', '--org', carrierOrg, '--env', 'live'])) as { data: { id: string; key: string } };
    await admin`update app.api_keys set rate_limit_per_minute = 1000000 where id = ${key.data.id}`;

    const moveIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    for (const area of areas) {
      const lngSpread = area.spreadDegrees / Math.cos((area.lat * Math.PI) / 180);
      await admin`
        insert into app.properties (
          org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
          bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
          application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status)
        select ${providerOrg}, 'live', 'Bench ' || i, i || ' Bench St', 'Bench', 'TX', '78701',
               ${area.lat} + (random() * 2 - 1) * ${area.spreadDegrees}, ${area.lng} + (random() * 2 - 1) * ${lngSpread},
               150000 + (random() * 200000)::int, 1 + (i % 4), 1 + (i % 2), 600 + (i % 10) * 100,
               (array['furnished', 'partial', 'unfurnished'])[1 + i % 3], current_date, 100000, 0, 0, 0,
               array['https://img.example.com/a.jpg'], 'A benchmark home.', array['wifi', 'washer_dryer'],
               case when i % 5 = 0 then 'No pets' else 'Pets welcome' end,
               case when i % 20 = 0 then 'unavailable' else 'available' end
          from generate_series(1, ${area.homes}) i`;
    }
    // A tenth of the homes are taken on the move-in date.
    await admin`
      insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source)
      select id, org_id, environment, ${moveIn}::date - 5, ${moveIn}::date + 60, 'provider'
        from app.properties where random() < 0.1`;
    await admin`analyze`;

    const headers = { authorization: `Bearer ${key.data.key}`, 'x-forwarded-for': '10.0.0.1' };
    const call = async (method: string, path: string, body?: unknown) => {
      const started = performance.now();
      const response = await route(new Request(`http://localhost/functions/v1${path}`, {
        method,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        body: body ? JSON.stringify(body) : undefined,
      }));
      const json = (await response.json()) as { data: any; count?: number };
      return { ms: performance.now() - started, status: response.status, json };
    };

    const results: Record<string, { median: number; p95: number; count: number }> = {};
    for (const area of areas) {
      const created = await call('POST', '/claims', {
        loss_address: '1 Bench Rd', loss_city: 'Bench', loss_state: 'TX', loss_zip: '78701', loss_lat: area.lat, loss_lng: area.lng,
        target_move_in: moveIn, est_length_months: 3, bedrooms: 2, bathrooms: 1, sqft: 900, adults: 2, property_type: 'apartment',
        furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'carrier', max_budget: 2500, has_pets: true, number_of_pets: 1,
        pet_details: 'a cat', pet_breeds: ['tabby'],
      });
      if (created.status !== 201) throw new Error(`request not created: ${JSON.stringify(created.json)}`);
      const path = `/claims/${created.json.data.claim_ref}/matches`;
      for (let i = 0; i < 5; i++) await call('GET', path); // warm-up: pool, plans, caches
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < rounds; i++) {
        const res = await call('GET', path);
        if (res.status !== 200) throw new Error(`matches failed: ${JSON.stringify(res.json)}`);
        times.push(res.ms);
        count = res.json.count ?? 0;
      }
      results[area.name] = { median: median(times), p95: p95(times), count };
    }

    const format = (ms: number) => `${ms.toFixed(1)} ms`;
    for (const [name, r] of Object.entries(results)) {
      console.log(`${name.padEnd(14)} homes: median ${format(r.median)}, p95 ${format(r.p95)} (${r.count} matches returned)`);
    }
    for (const layout of ['dense', 'spread']) {
      const small = results[`${layout} 1,000`];
      const large = results[`${layout} 10,000`];
      const ratio = large.median / small.median;
      const verdict = ratio <= 3 && large.median < 50 ? 'meets' : 'MISSES';
      console.log(`${layout}: 10,000 vs 1,000 homes in the area = ${ratio.toFixed(2)}x, ${format(large.median)} at 10,000 (target <= 3x and < 50 ms: ${verdict})`);
    }
    await closeDb();
  } finally {
    await admin.end();
    await database.stop();
  }
}
