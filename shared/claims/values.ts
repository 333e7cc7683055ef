// Value sets and limits of housing requests: the one place the API schemas, the database checks
// (the baseline migration mirrors them) and the documentation take them from.

/** Kind of home the household needs; `any` states no preference. Homes carry no type, so it guides sourcing, not the score. */
export const propertyTypes = ['apartment', 'condo', 'townhouse', 'house', 'duplex', 'any'] as const;

/** Furnishing wanted; the first three are the homes' `furnished_status` values, `any` states no preference. */
export const furnishings = ['furnished', 'partial', 'unfurnished', 'any'] as const;

/** Who pays: rent (`rent_payer`), deposits (`deposit_payer`), one-off fees, pet rent and utilities (`fees_payer`). */
export { payers } from '../request-values.ts';

export const priorities = ['standard', 'high', 'urgent'] as const;

export const laundryPreferences = ['in_unit', 'on_site', 'no_preference'] as const;

export const parkingPreferences = ['garage', 'dedicated', 'street', 'no_preference'] as const;

export const documentKinds = ['loss_report', 'policy', 'identification', 'lease', 'invoice', 'correspondence', 'photo', 'other'] as const;

/** USPS codes accepted as `loss_state` for a loss in the US: states, DC, territories and military post offices. */
export const usStateCodes = [
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY',
  'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND',
  'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
  'DC', 'PR', 'VI', 'GU', 'AS', 'MP', 'MH', 'FM', 'PW', 'AA', 'AE', 'AP',
] as const;

export const usZipPattern = /^\d{5}(-\d{4})?$/;

export const limits = {
  estLengthMonths: { min: 1, max: 36 },
  bedrooms: { min: 0, max: 20 },
  bathrooms: { min: 0, max: 20 },
  sqft: { min: 100, max: 20_000 },
  adults: { min: 1, max: 30 },
  children: { min: 0, max: 30 },
  numberOfPets: { min: 1, max: 20 },
  searchRadiusMiles: { min: 1, max: 150, default: 25 },
  /** Largest monthly budget or ALE limit, in major units. */
  money: 10_000_000,
  /** How far ahead a target move-in may be. */
  moveInHorizonDays: 730,
  listItems: 20,
  text: 255,
  longText: 2000,
  batchItems: 50,
} as const;

/** Upper-case letters and digits without the look-alikes 0/O and 1/I/L: a reference read over the phone survives. */
const referenceAlphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export const claimRefPattern = new RegExp(`^REQ-[${referenceAlphabet}]{6}$`);

/** A new `claim_ref`, `REQ-` and six characters drawn uniformly from the unambiguous alphabet. */
export function newClaimRef(): string {
  const chars: string[] = [];
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 31).
  const limit = 256 - (256 % referenceAlphabet.length);
  while (chars.length < 6) {
    for (const byte of crypto.getRandomValues(new Uint8Array(8))) {
      if (byte < limit && chars.length < 6) chars.push(referenceAlphabet[byte % referenceAlphabet.length]);
    }
  }
  return `REQ-${chars.join('')}`;
}
