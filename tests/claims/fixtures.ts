// Shared set-up of the housing-request tests.
import { jobRegistry } from '../../shared/job-registry.ts';
import { runDueJobs } from '../../shared/jobs/runner.ts';
import type { Schema } from '../../client/index.ts';
import { client, createOrg, createTenant, ownerSql } from '../helpers.ts';
import { makeTemporaryDataDir } from '../setup/data-dir.ts';

/** Documents go to a fresh folder per test file, never into the working tree. */
export async function useTemporaryDataDir() {
  process.env.DATA_DIR = await makeTemporaryDataDir();
  delete process.env.DOCUMENT_STORAGE;
  return process.env.DATA_DIR;
}

/** The UTC date `days` from today, YYYY-MM-DD. */
export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A valid creation body (Austin, TX 78701) with every required field. */
/** A complete creation body, typed by the API document (the typed client's tests use it as it is). */
export function housingRequestBody(): Schema<'CreateHousingRequest'> {
  return {
    loss_address: '12 Harbor Lane',
    loss_city: 'Austin',
    loss_state: 'TX',
    loss_zip: '78701',
    target_move_in: inDays(30),
    est_length_months: 4,
    bedrooms: 2,
    bathrooms: 1.5,
    sqft: 900,
    adults: 2,
    property_type: 'apartment',
    furnishing: 'furnished',
    // One payer for everything: a split between payers (each share paid on its own) has its own tests.
    rent_payer: 'carrier',
    deposit_payer: 'carrier',
  };
}

export function claimBody(overrides: Record<string, unknown> = {}) {
  return { ...housingRequestBody(), ...overrides };
}

/** A carrier organisation with its live and sandbox clients. */
export async function carrier() {
  const tenant = await createTenant('carrier');
  return { ...tenant, liveApi: client(tenant.live), sandboxApi: client(tenant.sandbox) };
}

/**
 * Waits until the sourcing of these requests (the job their creation queued) has run: runs the job
 * through the real job runner, as the scheduler would, or, while the run the creation started after
 * its commit holds it, waits for that run to record its outcome. A failed run fails the test.
 */
export async function sourced(...requestIds: string[]): Promise<void> {
  const jobsOf = () => ownerSql()<{ id: string; status: string; last_error: string | null }[]>`
    select id, status, last_error from app.jobs
     where kind = 'source_new_requests' and payload -> 'request_ids' ?| ${requestIds}::text[]`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const jobs = await jobsOf();
    if (jobs.length === 0) throw new Error(`no sourcing job for ${requestIds.join(', ')}`);
    const failed = jobs.find((job) => job.last_error !== null);
    if (failed) throw new Error(`sourcing job ${failed.id} failed: ${failed.last_error}`);
    if (jobs.every((job) => job.status === 'succeeded')) return;
    if (Date.now() > deadline) throw new Error(`sourcing of ${requestIds.join(', ')} did not finish: ${JSON.stringify(jobs)}`);
    const pending = jobs.filter((job) => job.status === 'pending').map((job) => job.id);
    if (pending.length) await runDueJobs({ registry: jobRegistry, ids: pending });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Opens a request, waits for its sourcing (see sourced) and returns its creation data. */
export async function openClaim(api: ReturnType<typeof client>, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/claims', claimBody(overrides));
  if (res.status !== 201) throw new Error(`claim not created: ${res.status} ${res.text}`);
  const created = res.body.data as { id: string; claim_ref: string; status_primary: string };
  await sourced(created.id);
  return created;
}

export interface HomeSeed {
  environment?: 'live' | 'sandbox';
  latitude?: number | null;
  longitude?: number | null;
  zip_code?: string;
  monthly_rate_cents?: number;
  bedrooms?: number;
  bathrooms?: number;
  sqft?: number;
  furnished_status?: string;
  amenities?: string[];
  pet_policy?: string;
  available_from?: string;
  status?: string;
  name?: string;
  cleaning_fee_cents?: number;
}

/** A provider organisation whose payout accounts take charges in both environments. */
export async function provider() {
  const orgId = await createOrg('provider');
  await ownerSql()`
    insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status)
    values (${orgId}, 'live', true, true, true, 'complete'), (${orgId}, 'sandbox', true, true, true, 'complete')`;
  return orgId;
}

let homeCounter = 0;

/** A complete (listed and verified) home of the provider, inserted directly. Near Austin 78701 by default. */
export async function insertHome(providerOrg: string, seed: HomeSeed = {}): Promise<string> {
  homeCounter += 1;
  const [row] = await ownerSql()<{ id: string; verified: boolean }[]>`
    insert into app.properties (
      org_id, environment, name, address, city, state, zip_code, latitude, longitude, monthly_rate_cents,
      bedrooms, bathrooms, sqft, furnished_status, available_from, security_deposit_cents, cleaning_fee_cents,
      application_fee_cents, pet_fee_cents, image_urls, description, amenities, pet_policy, status)
    values (
      ${providerOrg}, ${seed.environment ?? 'live'}, ${seed.name ?? `Home ${homeCounter}`}, ${`${homeCounter} Test St`}, 'Austin', 'TX',
      ${seed.zip_code ?? '78701'}, ${seed.latitude === undefined ? 30.2711 : seed.latitude}, ${seed.longitude === undefined ? -97.7437 : seed.longitude},
      ${seed.monthly_rate_cents ?? 250000}, ${seed.bedrooms ?? 2}, ${seed.bathrooms ?? 1.5}, ${seed.sqft ?? 900},
      ${seed.furnished_status ?? 'furnished'}, ${seed.available_from ?? inDays(0)}, 150000, ${seed.cleaning_fee_cents ?? 0}, 0, 25000,
      ${['https://img.example.com/a.jpg']}, 'A home.', ${seed.amenities ?? ['wifi']}, ${seed.pet_policy ?? 'Cats and dogs welcome'},
      ${seed.status ?? 'available'})
    returning id, verified`;
  if (!row.verified) throw new Error('fixture home is not verified');
  return row.id;
}

/** A provider block on a home's calendar. */
export async function blockHome(propertyId: string, environment: 'live' | 'sandbox', start: string, end: string) {
  await ownerSql()`
    insert into app.availability_blocks (property_id, org_id, environment, start_date, end_date, source)
    select id, org_id, ${environment}, ${start}, ${end}, 'provider' from app.properties where id = ${propertyId}`;
}

/** A multipart body with one file part. */
export function upload(bytes: Uint8Array | string, name: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.set('file', new Blob([typeof bytes === 'string' ? bytes : bytes.slice()]), name);
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return form;
}

export const pdfBytes = new TextEncoder().encode('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n');
export const pngBytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

/**
 * A point in a grid far from every other suite's homes (Alaska and beyond), so a matching test sees
 * only the homes it made: rows are ~140 miles apart, columns ~85 miles or more.
 */
export function spot(row: number, column: number) {
  return { lat: 58 + row * 2, lng: -160 + column * 2.5 };
}

/** The point `miles` north of a spot (a degree of latitude is 69.05 miles). */
export function milesNorth(origin: { lat: number; lng: number }, miles: number) {
  return { lat: origin.lat + miles / 69.05, lng: origin.lng };
}

/** Creation fields that put the loss at a point. */
export const at = (point: { lat: number; lng: number }) => ({ loss_lat: point.lat, loss_lng: point.lng });

/** The events recorded for an organisation, oldest first. */
export async function eventsOf(orgId: string, event = 'request.status_changed') {
  return ownerSql()<{ environment: string; payload: Record<string, any> }[]>`
    select environment, payload from app.events where org_id = ${orgId} and event = ${event} order by created_at, id`;
}
