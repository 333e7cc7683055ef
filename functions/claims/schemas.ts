import { calendarDate, emailAddress, halves, languageTag, measure, money as moneyValue, storedText as storable, textLine, timestampQuery, valueException } from '../../shared/http/values.ts';
import { batchItems, batchResult } from '../../shared/http/batch.ts';
import { pageQuery, pageSizes } from '../../shared/http/paging.ts';
import { z } from '@hono/zod-openapi';
import {
  documentKinds, furnishings, laundryPreferences, limits, parkingPreferences, payers, priorities, propertyTypes,
  usStateCodes, usZipPattern,
} from '../../shared/claims/values.ts';
import { statuses } from '../../shared/claims/status.ts';
import { leaseStatuses } from '../../shared/placements/states.ts';
import { Match, MatchQuery, ReferenceParam, SourcingRound } from '../../shared/claims/schemas.ts';

// The housing request's schemas: one definition per field, shared by creation, amendment, batch
// items and the responses, so validation, the 422 field names and the API reference agree.

const text = (max: number = limits.text) => textLine(max);
const int = (range: { min: number; max: number }) => z.number().int().min(range.min).max(range.max);
const money = (description: string) =>
  moneyValue({ positive: true, max: limits.money }).describe(description);
const list = (description: string) => z.array(text(100)).max(limits.listItems).describe(description);
const phone = storable().trim().regex(/^\+?[0-9 ().-]{7,30}$/, 'must be a phone number (digits, spaces, + ( ) . -)');
const email = emailAddress();

/** The UTC date `days` from now, as YYYY-MM-DD. */
const utcDate = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().slice(0, 10);
const hour = 3_600_000;

// "Today" for the caller is today somewhere: a date that is still today in the westernmost time zone
// (UTC-12) is accepted.
const moveInDate = calendarDate()
  .refine((d) => d >= utcDate(-12 * hour), 'must not be in the past')
  .refine((d) => d <= utcDate(limits.moveInHorizonDays * 24 * hour), `must be within ${limits.moveInHorizonDays} days`)
  .describe('Target move-in date, YYYY-MM-DD; today or later, at most two years ahead.')
  .openapi({ example: '2026-12-01' });

/** Fields of the Commercials group (changeable). */
const commercials = {
  max_budget: money('Monthly rent budget, in major units (USD). Homes above it score lower; optional.').openapi({ example: 3200 }),
  ale_limit: money('Additional living expense limit for the whole stay, in major units; optional.').openapi({ example: 30000 }),
  rent_payer: z.enum(payers).describe('Who pays the rent. Where the payers differ, each charge is paid in one share per payer.'),
  deposit_payer: z.enum(payers).describe('Who pays the refundable deposits.'),
  fees_payer: z.enum(payers).describe('Who pays one-off fees (cleaning, application, pet fee), pet rent and utilities; optional, the rent\'s payer when unset.'),
  target_move_in: moveInDate,
  est_length_months: int(limits.estLengthMonths).describe('Expected length of stay in months (1 to 36).'),
  external_reference: text().describe("The caller's reference for the claim (for example its claim number)."),
  search_radius_miles: int(limits.searchRadiusMiles).describe('How far from the loss homes are matched, in miles (1 to 150, default 25).'),
  priority: z.enum(priorities).describe('How urgently the household needs housing (default standard).'),
  household_email: email.describe("The household's contact email."),
  household_phone: phone.describe("The household's contact phone."),
  household_language: languageTag().describe(
    "The language the household reads its page, its emails and the lease's signing emails (the e-signature provider's) in: a BCP 47 tag such as es, es-PR or en-US, stored canonical (es-pr reads back es-PR). " +
    'A language the service has no catalogue for falls back to its base language (es-PR reads Spanish), then to English. ' +
    "Unset: the emails are in English and the page follows the household's browser (Accept-Language). " +
    'The e-signature provider sets one language per document, so the landlord\'s signing email is in this language too. ' +
    'Otherwise only the household\'s words change: what the carrier, the landlord and staff read (API fields, errors, webhooks) stays in English, and the lease PDF is the template\'s.'),
  adjuster_name: text().describe('The adjuster handling the claim.'),
  adjuster_email: email.describe("The adjuster's email."),
  adjuster_phone: phone.describe("The adjuster's phone."),
};

/** Fields of the Household needs group (changeable). */
const needs = {
  bedrooms: int(limits.bedrooms).describe('Bedrooms needed (0 for a studio).'),
  bathrooms: halves(limits.bathrooms.min, limits.bathrooms.max).describe('Bathrooms needed, in halves.'),
  sqft: int(limits.sqft).describe('Living space needed, square feet.'),
  adults: int(limits.adults).describe('Adults in the household.'),
  children: int(limits.children).describe('Children in the household (default 0).'),
  property_type: z.enum(propertyTypes).describe('Kind of home wanted; any for no preference.'),
  furnishing: z.enum(furnishings).describe('Furnishing wanted; any for no preference.'),
  accessibility_needs: list('Accessibility needs, for example wheelchair_accessible, step_free_entry, ground_floor, elevator; matched against home amenities.'),
  amenities: list('Amenities wished for, for example washer_dryer, parking, air_conditioning; matched against home amenities.'),
  laundry_preference: z.enum(laundryPreferences).describe('Laundry wanted.'),
  parking_preference: z.enum(parkingPreferences).describe('Parking wanted.'),
  has_pets: z.boolean().describe('Whether pets live with the household; true needs number_of_pets, pet_details and pet_breeds.'),
  number_of_pets: int(limits.numberOfPets).describe('How many pets (with has_pets: true).'),
  pet_details: text(limits.longText).describe('Kind, size and temperament of the pets (with has_pets: true).'),
  pet_breeds: z.array(text(100)).min(1).max(limits.listItems).describe('Breeds of the pets (with has_pets: true).'),
};

/** The loss and the household's identity: given at creation, never changed. */
const loss = {
  loss_address: text().describe('Street address of the damaged home.'),
  loss_city: text(),
  loss_state: text().describe('For a loss in the US, a USPS state code such as TX.'),
  loss_zip: storable(z.string().trim().min(1).max(20)).describe('For a loss in the US, a ZIP code: 12345 or 12345-6789.'),
  loss_country: storable().trim().toUpperCase().regex(/^[A-Z]{2}$/, 'must be a two-letter country code').describe('ISO country code of the loss (default US).'),
  loss_lat: measure(-90, 90).describe('Latitude of the loss; with loss_lng. Required outside the US.'),
  loss_lng: measure(-180, 180).describe('Longitude of the loss; with loss_lat. Required outside the US.'),
  policyholder_name: text().describe('Name of the policyholder (the household), recorded at creation.'),
};

const petDetailFields = ['number_of_pets', 'pet_details', 'pet_breeds'] as const;

/** Rules across fields at creation: the US address formats, coordinates as a pair, pets with their detail. */
function creationRules(body: Record<string, unknown>, ctx: z.RefinementCtx) {
  const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
  if ((body.loss_country ?? 'US') === 'US') {
    if (!(usStateCodes as readonly string[]).includes(String(body.loss_state).toUpperCase())) {
      issue('loss_state', 'must be a US state code such as TX');
    } else if (!usZipPattern.test(String(body.loss_zip))) {
      issue('loss_zip', 'must be a US ZIP code: 12345 or 12345-6789');
    }
  }
  if ((body.loss_lat === undefined) !== (body.loss_lng === undefined)) {
    issue(body.loss_lat === undefined ? 'loss_lat' : 'loss_lng', 'loss_lat and loss_lng are sent together');
  } else if (body.loss_lat === undefined && body.loss_country !== undefined && body.loss_country !== 'US') {
    issue('loss_lat', 'is required for a loss outside the US (postcode proximity uses a US ZIP table)');
  }
  if (body.has_pets === true) {
    const missing = petDetailFields.find((f) => body[f] === undefined);
    if (missing) issue(missing, `is required with has_pets: true`);
  } else {
    const sent = petDetailFields.find((f) => body[f] !== undefined);
    if (sent) issue(sent, 'is only accepted with has_pets: true');
  }
}

// Fields in the order of the integrator guide's tables (required, then optional): zod reports them in
// this order, so `field` names the first bad one. The rules across fields (creationRules) run once
// every field is valid on its own.
export const CreateClaim = z
  .strictObject({
    loss_address: loss.loss_address,
    loss_city: loss.loss_city,
    loss_state: loss.loss_state,
    loss_zip: loss.loss_zip,
    target_move_in: commercials.target_move_in,
    est_length_months: commercials.est_length_months,
    bedrooms: needs.bedrooms,
    bathrooms: needs.bathrooms,
    sqft: needs.sqft,
    adults: needs.adults,
    property_type: needs.property_type,
    furnishing: needs.furnishing,
    rent_payer: commercials.rent_payer,
    deposit_payer: commercials.deposit_payer,
    external_id: text().optional().describe("The caller's own reference for the request; unique per organisation and environment. A repeat returns the existing request with idempotent: true."),
    loss_country: loss.loss_country.optional(),
    loss_lat: loss.loss_lat.optional(),
    loss_lng: loss.loss_lng.optional(),
    policyholder_name: loss.policyholder_name.optional(),
    max_budget: commercials.max_budget.optional(),
    ale_limit: commercials.ale_limit.optional(),
    fees_payer: commercials.fees_payer.optional(),
    external_reference: commercials.external_reference.optional(),
    search_radius_miles: commercials.search_radius_miles.optional(),
    priority: commercials.priority.optional(),
    household_email: commercials.household_email.optional(),
    household_phone: commercials.household_phone.optional(),
    household_language: commercials.household_language.optional(),
    adjuster_name: commercials.adjuster_name.optional(),
    adjuster_email: commercials.adjuster_email.optional(),
    adjuster_phone: commercials.adjuster_phone.optional(),
    children: needs.children.optional(),
    accessibility_needs: needs.accessibility_needs.optional(),
    amenities: needs.amenities.optional(),
    laundry_preference: needs.laundry_preference.optional(),
    parking_preference: needs.parking_preference.optional(),
    has_pets: needs.has_pets.optional(),
    number_of_pets: needs.number_of_pets.optional(),
    pet_details: needs.pet_details.optional(),
    pet_breeds: needs.pet_breeds.optional(),
  })
  .superRefine(creationRules)
  .openapi('CreateHousingRequest', {
    example: {
      loss_address: '12 Harbor Lane', loss_city: 'Austin', loss_state: 'TX', loss_zip: '78701',
      target_move_in: '2026-12-01', est_length_months: 4, bedrooms: 3, bathrooms: 2, sqft: 1400, adults: 2,
      children: 1, property_type: 'apartment', furnishing: 'furnished', rent_payer: 'carrier', deposit_payer: 'tpa',
      max_budget: 3200, external_id: 'CLM-1001',
    },
  });

export type CreateClaimInput = z.infer<typeof CreateClaim>;

/** A field sent in an amendment that the request keeps for good. */
const refused = (reason: string) =>
  valueException(z.unknown(), 'only absence is accepted').refine((value) => value === undefined, `cannot be changed: ${reason}`).optional().describe(`Refused: ${reason}`);
const lossRefusal = 'the loss address is fixed; a different address is a different request';

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const AmendClaim = z
  .strictObject({
    max_budget: nullable(commercials.max_budget),
    ale_limit: nullable(commercials.ale_limit),
    rent_payer: commercials.rent_payer.optional(),
    deposit_payer: commercials.deposit_payer.optional(),
    fees_payer: nullable(commercials.fees_payer),
    target_move_in: commercials.target_move_in.optional(),
    est_length_months: commercials.est_length_months.optional(),
    external_reference: nullable(commercials.external_reference),
    search_radius_miles: commercials.search_radius_miles.optional(),
    priority: commercials.priority.optional(),
    household_email: nullable(commercials.household_email),
    household_phone: nullable(commercials.household_phone),
    household_language: nullable(commercials.household_language),
    adjuster_name: nullable(commercials.adjuster_name),
    adjuster_email: nullable(commercials.adjuster_email),
    adjuster_phone: nullable(commercials.adjuster_phone),
    bedrooms: needs.bedrooms.optional(),
    bathrooms: needs.bathrooms.optional(),
    sqft: needs.sqft.optional(),
    adults: needs.adults.optional(),
    children: needs.children.optional(),
    property_type: needs.property_type.optional(),
    furnishing: needs.furnishing.optional(),
    accessibility_needs: needs.accessibility_needs.optional(),
    amenities: needs.amenities.optional(),
    laundry_preference: nullable(needs.laundry_preference),
    parking_preference: nullable(needs.parking_preference),
    has_pets: needs.has_pets.optional(),
    number_of_pets: needs.number_of_pets.optional(),
    pet_details: needs.pet_details.optional(),
    pet_breeds: needs.pet_breeds.optional(),
    occupants: refused('occupants is derived from adults and children; send those'),
    loss_address: refused(lossRefusal),
    loss_city: refused(lossRefusal),
    loss_state: refused(lossRefusal),
    loss_zip: refused(lossRefusal),
    loss_country: refused(lossRefusal),
    loss_lat: refused(lossRefusal),
    loss_lng: refused(lossRefusal),
    policyholder_name: refused("the household's identity is fixed"),
    external_id: refused('the external_id given at creation identifies the request'),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), { message: 'send at least one changeable field', path: [] })
  .openapi('AmendHousingRequest', { example: { bedrooms: 4, children: 2, has_pets: true, number_of_pets: 1, pet_details: 'one calm dog, 30 lb', pet_breeds: ['beagle'] } });

export type AmendClaimInput = z.infer<typeof AmendClaim>;

export { Match, MatchQuery, ReferenceParam, SourcingRound };

const Status = z.enum(statuses);

export const ClaimCreated = z
  .object({
    id: z.string().uuid(),
    claim_ref: z.string().openapi({ example: 'REQ-7KQ2MX' }),
    status_primary: Status.describe('housing_needs_collected for a new request (sourcing runs after the answer); a repeat answers the current status.')
      .openapi({ example: 'housing_needs_collected' }),
    created_at: z.string(),
    idempotent: z.boolean().describe('true when the external_id had already created this request; nothing new was created.'),
  })
  .openapi('HousingRequestCreated');

export const ClaimListItem = z
  .object({
    id: z.string().uuid(),
    claim_ref: z.string(),
    status_primary: Status,
    created_at: z.string(),
    updated_at: z.string(),
    loss_city: z.string(),
    loss_state: z.string(),
    target_move_in: z.string(),
    max_budget: z.number().nullable(),
    bedrooms: z.number().int(),
    external_reference: z.string().nullable(),
    api_external_id: z.string().nullable(),
  })
  .openapi('HousingRequestListItem');

export const Claim = ClaimListItem.extend({
  loss_address: z.string(),
  loss_zip: z.string(),
  loss_country: z.string(),
  loss_lat: z.number().nullable(),
  loss_lng: z.number().nullable(),
  policyholder_name: z.string().nullable(),
  est_length_months: z.number().int(),
  ale_limit: z.number().nullable(),
  currency: z.literal('usd'),
  rent_payer: z.enum(payers),
  deposit_payer: z.enum(payers),
  fees_payer: z.enum(payers).nullable(),
  search_radius_miles: z.number().int(),
  priority: z.enum(priorities),
  household_email: z.string().nullable(),
  household_phone: z.string().nullable(),
  household_language: z.string().nullable().describe('The household\'s language as stated (BCP 47, canonical); null when not stated (English emails, the page follows the browser).'),
  adjuster_name: z.string().nullable(),
  adjuster_email: z.string().nullable(),
  adjuster_phone: z.string().nullable(),
  bathrooms: z.number(),
  sqft: z.number().int(),
  adults: z.number().int(),
  children: z.number().int(),
  occupants: z.number().int().describe('adults + children; derived, never set.'),
  property_type: z.enum(propertyTypes),
  furnishing: z.enum(furnishings),
  accessibility_needs: z.array(z.string()),
  amenities: z.array(z.string()),
  laundry_preference: z.enum(laundryPreferences).nullable(),
  parking_preference: z.enum(parkingPreferences).nullable(),
  has_pets: z.boolean(),
  number_of_pets: z.number().int().nullable(),
  pet_details: z.string().nullable(),
  pet_breeds: z.array(z.string()).nullable(),
  coordinator_assigned: z.boolean().describe('Whether someone at the service sources for this request (source-more needs it).'),
}).openapi('HousingRequest');

export const PlacementInProgress = z
  .object({
    note: z.string(),
    homes: z.array(z.object({ property_id: z.string().uuid(), status: z.enum(leaseStatuses), move_in_date: z.string().nullable() })),
  })
  .openapi('PlacementInProgress');

export const ListQuery = pageQuery(pageSizes.claims).extend({
  status: storable()
    .optional()
    .describe('One or more status_primary values, comma-separated.')
    .refine((value) => value === undefined || value.split(',').every((s) => (statuses as readonly string[]).includes(s.trim())), {
      message: `each value must be one of ${statuses.join(', ')}`,
    }),
  updated_since: timestampQuery()
    .optional()
    .describe('ISO timestamp with Z or an offset; only requests changed after it.'),
  external_id: text()
    .optional()
    .describe('Only the request opened under this external_id (your own reference): at most one, so a request is found by your reference as well.'),
});

export const BatchBody = z
  .strictObject({ requests: batchItems('CreateHousingRequest', limits.batchItems) })
  .openapi('HousingRequestBatch');

export const BatchResult = batchResult('HousingRequestBatchResult', {
  lead: { created: z.number().int().describe('Items that succeeded: new requests, and repeats of an external_id (their data has idempotent: true).') },
  item: { data: ClaimCreated.optional() },
});

export const Document = z
  .object({
    id: z.string().uuid(),
    kind: z.enum(documentKinds),
    description: z.string().nullable(),
    filename: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    via_api: z.boolean().describe("true when uploaded through the caller's integration; only those can be downloaded."),
    created_at: z.string(),
  })
  .openapi('HousingRequestDocument');

export const DocumentParams = ReferenceParam.extend({
  documentId: z.string().openapi({ param: { name: 'documentId', in: 'path' }, description: 'The id of the document, as listed by GET /claims/{reference}/documents.' }),
});

export const TimelineEntry = z
  .object({
    at: z.string(),
    type: z.string().describe('The entry type (listed on GET /claims/{reference}/timeline). Types may be added: skip one you do not know.'),
    summary: z.string(),
    property_id: z.string().uuid().optional(),
    detail: z.record(z.string(), z.unknown()),
  })
  .openapi('TimelineEntry');

export const Timeline = z
  .object({
    reference: z.string(),
    opened_at: z.string(),
    days_open: z.number().int(),
    count: z.number().int(),
    data: z.array(TimelineEntry),
  })
  .openapi('Timeline');
