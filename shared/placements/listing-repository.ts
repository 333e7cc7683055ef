import type { Tx } from '../db/client.ts';
import { isUuid } from '../ids.ts';
import { notFound } from '../domain-errors.ts';
import type { PricedHome } from './pricing.ts';

// A home as a request may see it, read across organisations by the database functions that answer
// only for the tenant's own requests (app.home_for_request, app.homes_on_request, app.home_listing,
// app.home_label).

export interface HomeForRequest extends PricedHome {
  id: string;
  org_id: string;
  environment: 'live' | 'sandbox';
  address: string;
  city: string;
  state: string;
  zip_code: string;
  contract_template: 'standard' | 'own';
  charges_enabled: boolean;
  owner_contact_email: string | null;
  /** The first day the home can be moved into (YYYY-MM-DD), or null when the listing gives none. */
  available_from: string | null;
}

/** The home as the request may see it (verified, from its pool), or 404 not_found. */
export async function homeForRequest(tx: Tx, claimId: string, propertyId: string): Promise<HomeForRequest> {
  if (!isUuid(propertyId)) throw notFound('home');
  const [home] = await tx<HomeForRequest[]>`select * from app.home_for_request(${claimId}, ${propertyId})`;
  if (!home) throw notFound('home');
  return home;
}

/** The home as the request may see it, or null (it stopped being placeable). */
export async function homeIfPlaceable(tx: Tx, claimId: string, propertyId: string): Promise<HomeForRequest | null> {
  const [home] = await tx<HomeForRequest[]>`select * from app.home_for_request(${claimId}, ${propertyId})`;
  return home ?? null;
}

/** A home on the request as its placement shows it. */
export interface HomeOnRequest {
  name: string | null;
  address: string;
  city: string;
  state: string;
  currency: string;
  monthly_rate_cents: number;
}

/** One home on the request (placed or not), or null. */
export async function homeOnRequest(tx: Tx, claimId: string, propertyId: string): Promise<HomeOnRequest | null> {
  const [home] = await tx<HomeOnRequest[]>`
    select name, address, city, state, currency, monthly_rate_cents from app.homes_on_request(${claimId}) where id = ${propertyId}`;
  return home ?? null;
}

/** A home on the request as the household's page shows it (app.home_listing). */
export interface HomeListing {
  name: string | null;
  address: string;
  city: string;
  state: string;
  zip_code: string;
  bedrooms: number;
  bathrooms: string;
  sqft: number | null;
  furnished_status: string | null;
  image_urls: string[];
  description: string | null;
  amenities: string[] | null;
  pet_policy: string | null;
  /** The landlord's published contact address. */
  landlord_contact: string | null;
}

export async function homeListing(tx: Tx, claimId: string, propertyId: string): Promise<HomeListing | null> {
  const [row] = await tx<HomeListing[]>`select * from app.home_listing(${claimId}, ${propertyId})`;
  return row ?? null;
}

/** The home's name and the provider's reference of it, for the provider's booking events. */
export async function homeLabel(tx: Tx, propertyId: string): Promise<{ name: string | null; external_id: string | null }> {
  const [row] = await tx<{ name: string | null; external_id: string | null }[]>`
    select name, external_id from app.home_label(${propertyId})`;
  return row ?? { name: null, external_id: null };
}
