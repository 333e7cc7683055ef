// Shared set-up of the provider-side tests.
import { ownerSql } from '../helpers.ts';

let counter = 0;

/** A home with every field the listing rule asks for: published, it is listed and verified. */
export function completeHome(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    name: `Maple Court ${counter}`,
    address: `${100 + counter} Maple St`,
    city: 'Austin',
    state: 'TX',
    zip_code: '78701',
    latitude: 30.27,
    longitude: -97.74,
    monthly_rate: 2450,
    bedrooms: 2,
    bathrooms: 1.5,
    sqft: 950,
    furnished_status: 'furnished',
    available_from: '2026-12-01',
    security_deposit: 1500,
    cleaning_fee: 0,
    application_fee: 0,
    pet_fee: 250,
    image_url: ['https://img.example.com/a.jpg', 'https://img.example.com/b.jpg'],
    description: 'Two-bedroom flat near transit.',
    amenities: ['wifi', 'washer'],
    pet_policy: 'Cats and small dogs allowed',
    ...overrides,
  };
}

/** Only the fields publishing requires: saved but not listed. */
export function minimalHome(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return { address: `${counter} Oak Ave`, city: 'Austin', state: 'TX', zip_code: '78702', monthly_rate: 1800, bedrooms: 1, bathrooms: 1, ...overrides };
}

export interface BookingSeed {
  orgId: string;
  environment: 'live' | 'sandbox';
  propertyId: string;
  checkIn?: string;
  checkOut?: string;
  status?: 'confirmed' | 'cancelled';
  createdAt?: string;
}

/** A booking as the placement work records it (bookings are written by placements, not by this API). */
export async function insertBooking(seed: BookingSeed): Promise<string> {
  const cancelled = seed.status === 'cancelled';
  const [row] = await ownerSql()<{ id: string }[]>`
    insert into app.bookings (org_id, environment, property_id, booking_status, check_in, check_out, cancelled_at, created_at)
    values (${seed.orgId}, ${seed.environment}, ${seed.propertyId}, ${seed.status ?? 'confirmed'},
            ${seed.checkIn ?? '2026-12-01'}, ${seed.checkOut ?? '2027-03-01'}, ${cancelled ? new Date() : null},
            ${seed.createdAt ?? new Date().toISOString()})
    returning id`;
  return row.id;
}

export interface PaymentSeed {
  bookingId: string;
  orgId: string;
  environment: 'live' | 'sandbox';
  propertyId: string;
  status?: 'succeeded' | 'failed' | 'refunded';
  rentCents: number;
  depositCents?: number;
  feesCents?: number;
  platformFeeCents: number;
  processingFeeCents: number;
  paidAt?: string;
}

export async function insertPayment(seed: PaymentSeed): Promise<string> {
  const failed = seed.status === 'failed';
  const [row] = await ownerSql()<{ id: string }[]>`
    insert into app.payments (org_id, environment, property_id, booking_id, status, rent_cents, deposit_cents, fees_cents,
                              platform_fee_cents, processing_fee_cents, paid_at, failure_reason)
    values (${seed.orgId}, ${seed.environment}, ${seed.propertyId}, ${seed.bookingId}, ${seed.status ?? 'succeeded'},
            ${seed.rentCents}, ${seed.depositCents ?? 0}, ${seed.feesCents ?? 0}, ${seed.platformFeeCents}, ${seed.processingFeeCents},
            ${failed ? null : (seed.paidAt ?? new Date().toISOString())}, ${failed ? 'card_declined' : null})
    returning id`;
  return row.id;
}

/** A hold the service takes for a lease (as placements do, through app.take_hold). */
export async function takeHold(propertyId: string, environment: 'live' | 'sandbox', start: string, end: string): Promise<string | null> {
  const [row] = await ownerSql()<{ id: string | null }[]>`
    select app.take_hold(${propertyId}, ${environment}, ${start}::date, ${end}::date, gen_random_uuid(), 'Lease') as id`;
  return row.id;
}
