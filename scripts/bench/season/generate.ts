// A season's volume, generated in SQL to the shape of the service's rows: what 90 days of a
// catastrophe leave in the database, at a chosen scale (1 = the figures of the issue that asked for
// it: 2,000,000 events, 3,200,000 deliveries, 100,000 requests, 200,000 homes with 2,020,000
// availability blocks, 20,000 placements' bookings with 29,500 payments, 150,000 jobs, 500,000
// Idempotency-Keys). Each table is loaded by one statement and analyzed at once, before the tables
// that refer to it are loaded: a foreign-key check planned against a table without statistics reads
// an organisation's rows along its tenant index for every row checked (quadratic: a load at scale 1
// was still running after 66 s), as a restore that analyzes at the end would not.
import type postgres from 'postgres';

export interface SeasonOrganisations {
  /** The large carrier every measured call is made for (30 % of the events, deliveries and requests). */
  carrier: string;
  /** The provider of the measured request's homes. */
  provider: string;
}

/** Where the measured request's loss lies: a tenth of the homes are within its reach. */
export const area = { lat: 35.0, lng: -100.0 };

/** Carrier event names; the large carrier is sent none of the last (the rare type of the measurement). */
const names = ['request.status_changed', 'option.saved', 'option.declined', 'lease.sent', 'lease.first_signed', 'lease.signed',
  'booking.confirmed', 'booking.dates_changed', 'payment.succeeded', 'payment.failed', 'dates.proposed', 'payment.refund_failed'];

/** A reference of the service's shape (REQ- and six letters of its alphabet) from a number. */
const reference = (n: string) =>
  `'REQ-' || (select string_agg(substr('ABCDEFGHJKMNPQRSTUVWXYZ23456789', ((${n} / (31::bigint ^ i)::bigint) % 31)::int + 1, 1), '' order by i) from generate_series(0, 5) i)`;

export interface Volume { events: number; deliveries: number; requests: number; homes: number; blocks: number; placements: number; jobs: number; keys: number }

/**
 * The volume at a scale. Below a thousandth of the season, each kind keeps the least that fills
 * every measured page on the small database (the large carrier's first page of 100 requests, of
 * 250 events, the provider's 100 homes), so that a ratio compares the same page, not a shorter one.
 */
export const volumeAt = (scale: number): Volume => ({
  events: Math.max(2_000, Math.round(2_000_000 * scale)),
  deliveries: Math.max(3_200, Math.round(3_200_000 * scale)),
  requests: Math.max(1_000, Math.round(100_000 * scale)),
  homes: Math.max(2_000, Math.round(200_000 * scale)),
  blocks: Math.max(20_200, Math.round(2_020_000 * scale)),
  placements: Math.max(20, Math.round(20_000 * scale)),
  jobs: Math.max(150, Math.round(150_000 * scale)),
  keys: Math.max(500, Math.round(500_000 * scale)),
});

/**
 * Loads a season at `scale` for the given organisations, plus nine other carriers and nine other
 * providers to share the tables with. Returns the volume loaded.
 */
export async function generateSeason(sql: postgres.Sql, scale: number, orgs: SeasonOrganisations, say: (message: string) => void): Promise<Volume> {
  const v = volumeAt(scale);
  const timed = async (what: string, statement: () => Promise<unknown>, analyze: string) => {
    const at = performance.now();
    await statement();
    await sql.unsafe(`analyze ${analyze}`);
    say(`  ${what}: ${((performance.now() - at) / 1000).toFixed(1)} s`);
  };
  const carriers = [orgs.carrier, ...(await sql<{ id: string }[]>`
    insert into app.organisations (name, side) select 'Season carrier ' || g, 'carrier' from generate_series(1, 9) g returning id`).map((o) => o.id)];
  const providers = [orgs.provider, ...(await sql<{ id: string }[]>`
    insert into app.organisations (name, side) select 'Season provider ' || g, 'provider' from generate_series(1, 9) g returning id`).map((o) => o.id)];
  await sql`
    insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
    select p, e, true, true, true, 'complete' from unnest(${providers}::uuid[]) p, unnest(array['live', 'sandbox']) e
    on conflict do nothing`;
  // The large carrier is the first of the ten: 30 % of what carriers have, the rest shared by nine.
  const carrierOf = (g: string) => `($1::uuid[])[case when ${g} % 10 < 3 then 1 else 2 + ${g} % 9 end]`;

  await timed(`${v.homes.toLocaleString('en-US')} homes`, () => sql.unsafe(`
    insert into app.properties (
      org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents, bedrooms,
      bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
      application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status, external_id)
    select ($1::uuid[])[1 + g % 10], 'live', 'Season home ' || g, g || ' Season St', 'Season', 'TX', '78701',
           -- A tenth within about 20 miles of the measured loss, the rest spread over the country.
           case when g % 10 = 0 then ${area.lat} + (random() - 0.5) * 0.5 else 26 + random() * 22 end,
           case when g % 10 = 0 then ${area.lng} + (random() - 0.5) * 0.6 else -122 + random() * 50 end,
           150000 + (g % 200) * 500, 1 + g % 4, 1, 900, 'furnished', current_date, 100000, 0, 0, 0,
           array['https://img.example.com/season.jpg'], 'A home of the season.', array['wifi'], 'No pets', 'available', 'SEASON-' || g
      from generate_series(1, $2::int) g`, [providers, v.homes]), 'app.properties');

  await timed(`${v.blocks.toLocaleString('en-US')} availability blocks`, () => sql.unsafe(`
    insert into app.availability_blocks (org_id, environment, property_id, source, start_date, end_date, reason)
    select p.org_id, 'live', p.id, 'provider', current_date + k * 20 + (p.n % 7)::int, current_date + k * 20 + (p.n % 7)::int + 5, 'Owner stay'
      from (select id, org_id, row_number() over () as n from app.properties where environment = 'live' and name like 'Season home %') p,
           generate_series(0, ($1::int / greatest(1, $2::int)) - 1) k`, [v.blocks, v.homes]), 'app.availability_blocks');

  await timed(`${v.requests.toLocaleString('en-US')} requests`, () => sql.unsafe(`
    insert into app.claims (org_id, environment, claim_ref, loss_address, loss_city, loss_state, loss_zip, origin_lat, origin_lng,
                            target_move_in, est_length_months, rent_payer, deposit_payer, bedrooms, bathrooms, sqft, adults,
                            property_type, furnishing, external_id, created_at, updated_at)
    select ${carrierOf('g')}, 'live', ${reference('(500000000::bigint + g)')}, g || ' Loss Rd', 'Season', 'TX', '78701',
           26 + random() * 22, -122 + random() * 50, current_date + 30, 3, 'carrier', 'carrier', 2, 1, 900, 2, 'apartment', 'furnished',
           'SEASON-' || g, now() - make_interval(secs => (90 * 86400.0 * g / $2)::int), now() - make_interval(secs => (90 * 86400.0 * g / $2)::int)
      from generate_series(1, $2::int) g`, [carriers, v.requests]), 'app.claims');

  // Placements: a booking and one or two payments each, on the large carrier's requests. In the
  // sandbox, where the measured request is placed through the sandbox helpers.
  await timed(`${v.placements.toLocaleString('en-US')} placements' bookings and payments`, () => sql.unsafe(`
    with c as (
      select id, row_number() over (order by created_at desc) as n from app.claims where org_id = $1 and environment = 'live'
       order by created_at desc limit $2),
    homes as (select id, org_id, row_number() over () as n from app.properties where name like 'Season home %' and org_id = $3 limit 1000),
    b as (
      insert into app.bookings (org_id, environment, property_id, carrier_org_id, claim_id, check_in, check_out, created_at)
      select h.org_id, 'sandbox', h.id, $1, c.id, current_date - 60, current_date + 30, now() - make_interval(days => (c.n % 90)::int)
        from c join homes h on h.n = 1 + c.n % 1000
      returning id, org_id, property_id, claim_id, created_at)
    insert into app.payments (org_id, environment, property_id, booking_id, carrier_org_id, claim_id, charge_type, status, payer,
                              rent_cents, paid_at, created_at)
    select b.org_id, 'sandbox', b.property_id, b.id, $1, b.claim_id, 'rent', 'succeeded', 'carrier', 200000, b.created_at + make_interval(days => k * 30), b.created_at
      from b, generate_series(0, 1) k
     where k = 0 or abs(hashtext(b.id::text)) % 100 < 48`, [orgs.carrier, v.placements, orgs.provider]), 'app.bookings, app.payments');

  await timed(`${v.events.toLocaleString('en-US')} events`, () => sql.unsafe(`
    insert into app.events (org_id, environment, event, payload, created_at)
    select ${carrierOf('g')}, 'live',
           -- The large carrier (g % 10 < 3) is sent every name but the last.
           ($3::text[])[1 + (g / 10) % (case when g % 10 < 3 then array_length($3::text[], 1) - 1 else array_length($3::text[], 1) end)],
           jsonb_build_object('reference', 'REQ-SEASON', 'status', 'housing_options_found', 'season', g),
           now() - make_interval(secs => (90 * 86400.0 * ($2 - g) / $2)::int) - interval '1 second'
      from generate_series(1, $2::int) g`, [carriers, v.events, names]), 'app.events');

  await timed(`${v.deliveries.toLocaleString('en-US')} webhook deliveries`, async () => {
    // Two endpoints for the large carrier, one for each other (1.3 deliveries an event): the first
    // never had a delivery abandoned. Subscribed to a type the run never raises, so that the run's
    // own calls queue nothing to these addresses.
    await sql.unsafe(`
      insert into app.webhook_endpoints (org_id, environment, url, events, secret, created_at)
      select c, 'live', 'https://hooks.season.example/' || n, array['payment.refund_failed'], 'whsec_' || repeat('s', 32), now() - interval '100 days'
        from unnest($1::uuid[]) with ordinality as t (c, i), generate_series(1, case when i = 1 then 2 else 1 end) n`, [carriers]);
    await sql.unsafe(`
      insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, status, attempts, completed_at, created_at, history)
      select e.org_id, 'live', w.id, e.id, e.event,
             case when w.url like '%/2' and abs(hashtext(e.id::text)) % 100 < 3 then 'abandoned' else 'succeeded' end,
             1, e.created_at + interval '1 second', e.created_at,
             jsonb_build_array(jsonb_build_object('attempt', 1, 'at', e.created_at, 'outcome', 'succeeded', 'http_status', 200, 'duration_ms', 80))
        from (select * from app.events where environment = 'live' order by created_at limit $1) e
        join app.webhook_endpoints w on w.org_id = e.org_id and w.environment = 'live'`, [Math.round(v.deliveries / 1.3)]);
  }, 'app.webhook_endpoints, app.webhook_deliveries');

  await timed(`${v.jobs.toLocaleString('en-US')} finished jobs`, () => sql.unsafe(`
    insert into app.jobs (kind, org_id, environment, payload, status, attempts, run_at, created_at, completed_at, result)
    select (array['source_claim', 'send_contract', 'send_email', 'advance_stay'])[1 + g % 4], ${carrierOf('g')}, 'live', '{}', 'succeeded', 1,
           now() - make_interval(secs => (90 * 86400.0 * g / $2)::int), now() - make_interval(secs => (90 * 86400.0 * g / $2)::int),
           now() - make_interval(secs => (90 * 86400.0 * g / $2)::int), '{}'
      from generate_series(1, $2::int) g`, [carriers, v.jobs]), 'app.jobs');

  await timed(`${v.keys.toLocaleString('en-US')} Idempotency-Keys`, () => sql.unsafe(`
    insert into app.idempotency_keys (org_id, environment, key, fingerprint, state, response_status, response_content_type, response_body, created_at)
    select ${carrierOf('g')}, 'live', 'season-' || g, md5(g::text), 'done', 201, 'application/json', '{"data":{}}',
           now() - make_interval(secs => (47 * 3600.0 * g / $2)::int)
      from generate_series(1, $2::int) g`, [carriers, v.keys]), 'app.idempotency_keys');
  return v;
}

/**
 * One expired day for the purge to take: a ninetieth of the season's events (90 days and a few hours
 * old), their deliveries, and a 48th of its Idempotency-Keys past their 48 hours.
 */
export async function expiredDay(sql: postgres.Sql, scale: number, carrier: string) {
  const v = volumeAt(scale);
  await sql.unsafe(`
    with e as (
      insert into app.events (org_id, environment, event, payload, created_at)
      select $1, 'live', 'lease.sent', '{}', now() - interval '90 days' - make_interval(secs => 60 + (86400.0 * g / $2)::int)
        from generate_series(1, $2::int) g
      returning id, event, created_at)
    insert into app.webhook_deliveries (org_id, environment, endpoint_id, event_id, event, status, attempts, completed_at, created_at)
    select $1, 'live', w.id, e.id, e.event, 'succeeded', 1, e.created_at, e.created_at
      from e join app.webhook_endpoints w on w.org_id = $1`, [carrier, Math.round(v.events / 90)]);
  await sql.unsafe(`
    insert into app.idempotency_keys (org_id, environment, key, fingerprint, state, created_at)
    select $1, 'live', 'expired-' || g, 'f', 'done', now() - interval '49 hours' from generate_series(1, $2::int) g`, [carrier, Math.round(v.keys / 48)]);
  await sql`analyze app.events, app.webhook_deliveries, app.idempotency_keys`;
}
