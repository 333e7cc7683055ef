import { isStorableText } from '../../shared/values.ts';
import { isUuid } from '../../shared/ids.ts';
import type { Tx } from '../../shared/db/client.ts';
import { invalid, notFound } from '../../shared/domain-errors.ts';
import { amountOrNull, fromCents, toCents } from '../../shared/money.ts';
import type { z } from '@hono/zod-openapi';
import { afterCursorRow, assertCursorRowVisible } from '../../shared/db/paging.ts';
import type { PricedHome } from '../../shared/placements/pricing.ts';
import type { HomeInput, Home, HomeField, HomePatch, Readiness } from './schemas.ts';

// Homes in the database: the one mapping between API fields and columns, the set-based upsert
// behind POST /properties and /properties/batch (whose per-item checks are in homes.ts), PATCH,
// and the rendering of a row.
// Listing readiness (listed, verified, missing_fields) is kept by the database trigger on every
// write; availability_via and verified_via are read with app.availability_via / app.verified_via.

type Kind = 'plain' | 'money' | 'images';

/** API field → column and how its value converts. */
const fieldColumns = {
  external_id: ['external_id', 'plain'],
  name: ['name', 'plain'],
  address: ['address', 'plain'],
  city: ['city', 'plain'],
  state: ['state', 'plain'],
  zip_code: ['zip_code', 'plain'],
  latitude: ['latitude', 'plain'],
  longitude: ['longitude', 'plain'],
  currency: ['currency', 'plain'],
  monthly_rate: ['monthly_rate_cents', 'money'],
  rent_1_3_months: ['rent_1_3_months_cents', 'money'],
  rent_4_6_months: ['rent_4_6_months_cents', 'money'],
  rent_7_9_months: ['rent_7_9_months_cents', 'money'],
  rent_10_12_months: ['rent_10_12_months_cents', 'money'],
  bedrooms: ['bedrooms', 'plain'],
  bathrooms: ['bathrooms', 'plain'],
  sqft: ['sqft', 'plain'],
  furnished_status: ['furnished_status', 'plain'],
  available_from: ['available_from', 'plain'],
  security_deposit: ['security_deposit_cents', 'money'],
  cleaning_fee: ['cleaning_fee_cents', 'money'],
  application_fee: ['application_fee_cents', 'money'],
  pet_fee: ['pet_fee_cents', 'money'],
  pet_rent: ['pet_rent_cents', 'money'],
  pet_deposit: ['pet_deposit_cents', 'money'],
  utilities_included: ['utilities_included', 'plain'],
  utilities_monthly: ['utilities_monthly_cents', 'money'],
  contract_template: ['contract_template', 'plain'],
  image_url: ['image_urls', 'images'],
  description: ['description', 'plain'],
  amenities: ['amenities', 'plain'],
  pet_policy: ['pet_policy', 'plain'],
  status: ['status', 'plain'],
} as const satisfies Record<HomeField, readonly [string, Kind]>;

const profileColumns: string[] = Object.values(fieldColumns).map(([column]) => column);

function toColumnValue(kind: Kind, value: unknown): unknown {
  if (kind === 'images') return value == null ? [] : Array.isArray(value) ? value : [value];
  if (value == null) return null;
  return kind === 'money' ? toCents(value as number) : value;
}

/** The columns of the fields present in `input` (absent fields are left out). */
function columnsOf(input: HomeInput | HomePatch): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const [column, kind] = fieldColumns[field as HomeField];
    columns[column] = toColumnValue(kind, value);
  }
  return columns;
}

/**
 * Why matching does not offer a home, in its own environment: the rules of app.eligible_homes that
 * belong to the home and its provider (a request's distance, dates and blocks aside), each a code, in
 * this order. A listed, verified home whose provider's payout account cannot take charges is left out
 * of matching too, and must say so.
 */
const notOfferedBecause = `array_remove(array[
  case when not p.verified then 'listing_incomplete' end,
  case when p.status = 'unavailable' then 'unavailable' end,
  case when p.geo_point is null then 'no_location' end,
  case when not app.can_take_charges(p.org_id, p.environment) then 'charges_disabled' end], null)`;

/** The home's open calendar conflicts (an imported calendar over a stay booked here), oldest night first. */
const openConflicts = `(select coalesce(jsonb_agg(jsonb_build_object(
     'id', c.id, 'feed_id', c.calendar_import_id, 'booking_id', b.id, 'start_date', c.start_date, 'end_date', c.end_date,
     'detected_at', to_char(c.detected_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by c.start_date, c.id), '[]')
   from app.calendar_conflicts c
   left join app.bookings b on b.lease_agreement_id = c.lease_agreement_id and b.booking_status = 'confirmed'
  where c.property_id = p.id and c.resolved_at is null) as calendar_conflicts`;

/** What every read of a home selects, the table aliased `p`. */
const homeSelection = `p.*, app.availability_via(p) as availability_via, app.verified_via(p) as verified_via,
  ${notOfferedBecause} as not_offered_because, ${openConflicts}`;

/** Columns a new home gets when the field is not sent. */
const insertDefaults: Record<string, string> = {
  currency: `'usd'`,
  contract_template: `'standard'`,
  image_urls: `'{}'`,
  status: `'available'`,
};

// The upsert of POST /properties and /properties/batch, one statement for any number of homes.
// A home with an external_id already used in this organisation and environment is updated in place
// (race-safe through the unique index): every field takes the sent value or becomes absent, except
// `status`, which keeps its value when not sent. Items are inserted in external_id order so that
// concurrent batches lock existing homes in the same order (the calendar sync locks in it too).
// Column names come from the constant table above, never from input.
const upsertStatement = `
  with input as (select * from jsonb_populate_recordset(null::app.properties, $1::jsonb))
  insert into app.properties as p (id, org_id, environment, ${profileColumns.join(', ')})
  select id, app.current_org(), app.current_env(),
         ${profileColumns.map((c) => (insertDefaults[c] ? `coalesce(${c}, ${insertDefaults[c]})` : c)).join(', ')}
    from input
   order by external_id nulls last
  on conflict (org_id, environment, external_id) do update set
    ${profileColumns.filter((c) => c !== 'external_id' && c !== 'status').map((c) => `${c} = excluded.${c}`).join(', ')},
    status = coalesce((select i.status from input i where i.id = excluded.id), p.status)
  returning ${homeSelection}, (p.xmax = 0) as inserted`;

/**
 * A row of app.properties as every read selects it (`homeSelection`): the priced columns that
 * placements read too, and the rest. Money is in cents.
 */
export interface HomeRow extends PricedHome {
  id: string;
  org_id: string;
  environment: 'live' | 'sandbox';
  external_id: string | null;
  address: string;
  city: string;
  state: string;
  zip_code: string;
  latitude: number | null;
  longitude: number | null;
  bedrooms: number;
  /** numeric(4, 1), which the driver reads as text. */
  bathrooms: string;
  sqft: number | null;
  furnished_status: Home['furnished_status'];
  available_from: string | null;
  contract_template: Home['contract_template'];
  image_urls: string[];
  description: string | null;
  amenities: string[] | null;
  pet_policy: string | null;
  status: Home['status'];
  listed: boolean;
  verified: boolean;
  missing_fields: string[];
  /** The point the distance search indexes (a cube, read as text), kept by a trigger; never rendered. */
  geo_point: string | null;
  availability_via: Home['availability_via'];
  verified_via: Home['verified_via'];
  not_offered_because: Home['not_offered_because'];
  calendar_conflicts: Home['calendar_conflicts'];
  calendar_synced_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface UpsertedHome {
  row: HomeRow;
  /** False when an existing home under the same external_id was updated. */
  created: boolean;
}

/**
 * Creates or updates (by external_id) the given homes in one statement. Results are in input order.
 * The caller guarantees that no external_id appears twice.
 */
export async function upsertHomes(tx: Tx, inputs: HomeInput[]): Promise<UpsertedHome[]> {
  if (inputs.length === 0) return [];
  const items = inputs.map((input) => ({ id: crypto.randomUUID(), ...columnsOf(input) }));
  const rows = await tx.unsafe<(HomeRow & { inserted: boolean })[]>(upsertStatement, [tx.json(items as never) as never]);
  // An updated home keeps its id: match it by external_id; a new one by the id generated here.
  const byKey = new Map(rows.map((row) => [row.external_id ?? row.id, row]));
  return items.map((item) => {
    const row = byKey.get((item as { external_id?: string | null }).external_id ?? item.id)!;
    return { row, created: row.inserted };
  });
}

/**
 * The caller's homes named by id or external_id, locked until the end of the transaction, so that
 * two syncs of one home run one after the other (otherwise two concurrent replaces each clear only
 * the blocks they saw and both sets of new blocks stay). Locked in the order of the publish upsert
 * (external_id, then id), so that a sync and a batch publish of the same homes never deadlock.
 */
export function lockHomesByRef(tx: Tx, ids: string[], externalIds: string[]) {
  return tx<{ id: string; external_id: string | null }[]>`
    select p.id, p.external_id from app.properties p
     where p.id = any(${ids}::uuid[]) or p.external_id = any(${externalIds}::text[])
     order by p.external_id nulls last, p.id
       for no key update`;
}

/** The id of the caller's home named by `ref` (its id, else its external_id); 404 otherwise. */
export async function resolveHome(tx: Tx, ref: string): Promise<string> {
  if (!isStorableText(ref)) throw notFound('home');
  const id = isUuid(ref) ? ref : null;
  const [row] = await tx<{ id: string }[]>`
    select p.id from app.properties p
     where p.id = ${id} or p.external_id = ${ref}
     order by (p.id = ${id}) desc nulls last
     limit 1`;
  if (!row) throw notFound('home');
  return row.id;
}

export async function readHome(tx: Tx, id: string): Promise<HomeRow> {
  const [row] = await tx<HomeRow[]>`select ${tx.unsafe(homeSelection)} from app.properties p where p.id = ${id}`;
  if (!row) throw notFound('home');
  return row;
}

const uniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

/** PATCH: writes the sent fields only; readiness is recomputed by the trigger. */
export async function patchHome(tx: Tx, id: string, patch: HomePatch): Promise<HomeRow> {
  const columns = columnsOf(patch);
  if (Object.keys(columns).length === 0) return readHome(tx, id);
  try {
    const [row] = await tx<HomeRow[]>`
      update app.properties p set ${tx(columns, ...Object.keys(columns))}
       where p.id = ${id}
      returning ${tx.unsafe(homeSelection)}`;
    return row;
  } catch (error) {
    if (uniqueViolation(error)) {
      throw invalid('invalid_field', 'external_id is already used by another home of this organisation in this environment.', 'external_id');
    }
    throw error;
  }
}

export interface HomePageQuery {
  limit: number;
  status?: string;
  /** Continue after this home (the last of the previous page). */
  after?: string;
}

/** The portfolio, newest first, keyset-paged on (created_at, id). Fetches limit + 1 rows. */
export async function listHomes(tx: Tx, query: HomePageQuery): Promise<HomeRow[]> {
  const rows = await tx<HomeRow[]>`
    select ${tx.unsafe(homeSelection)} from app.properties p
     where (${query.status ?? null}::text is null or p.status = ${query.status ?? null})
       ${afterCursorRow(tx, 'p', 'app.properties', query.after)}
     order by p.created_at desc, p.id desc
     limit ${query.limit + 1}`;
  await assertCursorRowVisible(tx, 'app.properties', query.after, rows);
  return rows;
}

/** A home row as the API shows it. */
export function renderHome(row: HomeRow): Home {
  return {
    id: row.id,
    api_external_id: row.external_id,
    name: row.name,
    address: row.address,
    city: row.city,
    state: row.state,
    zip_code: row.zip_code,
    latitude: row.latitude,
    longitude: row.longitude,
    currency: row.currency,
    monthly_rate: fromCents(row.monthly_rate_cents),
    rent_1_3_months: amountOrNull(row.rent_1_3_months_cents),
    rent_4_6_months: amountOrNull(row.rent_4_6_months_cents),
    rent_7_9_months: amountOrNull(row.rent_7_9_months_cents),
    rent_10_12_months: amountOrNull(row.rent_10_12_months_cents),
    bedrooms: row.bedrooms,
    bathrooms: Number(row.bathrooms),
    sqft: row.sqft,
    furnished_status: row.furnished_status,
    available_from: row.available_from,
    security_deposit: amountOrNull(row.security_deposit_cents),
    cleaning_fee: amountOrNull(row.cleaning_fee_cents),
    application_fee: amountOrNull(row.application_fee_cents),
    pet_fee: amountOrNull(row.pet_fee_cents),
    pet_rent: amountOrNull(row.pet_rent_cents),
    pet_deposit: amountOrNull(row.pet_deposit_cents),
    utilities_included: row.utilities_included,
    utilities_monthly: amountOrNull(row.utilities_monthly_cents),
    contract_template: row.contract_template,
    image_url: row.image_urls[0] ?? null,
    image_urls: row.image_urls,
    description: row.description,
    amenities: row.amenities,
    pet_policy: row.pet_policy,
    status: row.status,
    test_data: row.environment === 'sandbox',
    listed: row.listed,
    missing_fields: row.missing_fields,
    availability_via: row.availability_via,
    verified: row.verified,
    verified_via: row.verified_via,
    offered: row.not_offered_because.length === 0,
    not_offered_because: row.not_offered_because,
    calendar_conflicts: row.calendar_conflicts,
    calendar_synced_at: row.calendar_synced_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The readiness part of a home, as POST /properties/batch reports it per item. */
export function summarizeHome(row: HomeRow) {
  return {
    id: row.id,
    api_external_id: row.external_id,
    listed: row.listed,
    missing_fields: row.missing_fields,
    availability_via: row.availability_via,
  };
}

/**
 * GET /properties/readiness, computed in one statement. The payout account is the tenant's own (one
 * a provider and environment), so whether it takes charges is asked once: when it does not, it holds
 * back every home, and ranks among the blockers as `payout_account`.
 */
export async function readReadiness(tx: Tx): Promise<z.infer<typeof Readiness>> {
  const [row] = await tx<z.infer<typeof Readiness>[]>`
    with homes as (select p.id, p.external_id, p.name, p.listed, p.missing_fields, p.updated_at, ${tx.unsafe(notOfferedBecause)} as not_offered_because
                     from app.properties p),
    blocked as (select f as field, count(*)::int as homes from homes q, unnest(q.missing_fields) f group by f
                union all
                select 'payout_account', count(*)::int from homes q where 'charges_disabled' = any(q.not_offered_because) having count(*) > 0
                union all
                select 'location', count(*)::int from homes q where 'no_location' = any(q.not_offered_because) having count(*) > 0),
    conflicted as (select count(distinct c.property_id)::int as homes from app.calendar_conflicts c where c.resolved_at is null)
    select
      count(*)::int as total,
      count(*) filter (where h.listed)::int as listed,
      count(*) filter (where not h.listed)::int as not_listed,
      count(*) filter (where cardinality(h.not_offered_because) = 0)::int as offered,
      count(*) filter (where cardinality(h.not_offered_because) > 0)::int as not_offered,
      coalesce((select jsonb_agg(jsonb_build_object('field', b.field, 'homes', b.homes) order by b.homes desc, b.field) from blocked b), '[]') as blockers,
      (select case when k.homes > 0 then jsonb_build_array(jsonb_build_object('field', 'calendar_conflict', 'homes', k.homes)) else '[]' end
         from conflicted k) as warnings,
      coalesce((select jsonb_agg(jsonb_build_object('property_id', e.id, 'external_id', e.external_id, 'name', e.name,
                                                    'missing_fields', e.missing_fields, 'not_offered_because', e.not_offered_because)
                                 order by e.updated_at desc, e.id desc)
                  from (select q.* from homes q where cardinality(q.not_offered_because) > 0 order by q.updated_at desc, q.id desc limit 20) e), '[]') as examples
    from homes h`;
  return row;
}
