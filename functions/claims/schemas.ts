import { calendarDate, measure, money as moneyValue, storedText as storable, timestampQuery, valueException } from '../../shared/http/values.ts';
import { batchItems, batchResult } from '../../shared/http/batch.ts';
import { pageQuery, pageSizes } from '../../shared/http/paging.ts';
import { z } from '@hono/zod-openapi';
import {
  documentKinds, furnishings, laundryPreferences, limits, parkingPreferences, payers, priorities, propertyTypes,
  usStateCodes, usZipPattern,
} from '../../shared/claims/values.ts';
import { statuses } from '../../shared/claims/status.ts';
import { weights } from '../../shared/claims/scoring.ts';

// The housing request's schemas: one definition per field, shared by creation, amendment, batch
// items and the responses, so validation, the 422 field names and the API reference agree.

const text = (max: number = limits.text) => storable(z.string().trim().min(1).max(max));
const int = (range: { min: number; max: number }) => z.number().int().min(range.min).max(range.max);
const money = (description: string) =>
  moneyValue({ positive: true, max: limits.money }).describe(description);
const list = (description: string) => z.array(text(100)).max(limits.listItems).describe(description);
const phone = storable().trim().regex(/^\+?[0-9 ().-]{7,30}$/, 'must be a phone number (digits, spaces, + ( ) . -)');
const email = z.email().max(255);

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
  rent_payer: z.enum(payers).describe('Who pays the rent.'),
  deposit_payer: z.enum(payers).describe('Who pays deposits.'),
  fees_payer: z.enum(payers).describe('Who pays one-off fees (cleaning, application, pet fee) and pet rent; optional.'),
  target_move_in: moveInDate,
  est_length_months: int(limits.estLengthMonths).describe('Expected length of stay in months (1 to 36).'),
  external_reference: text().describe("The caller's reference for the claim (for example its claim number)."),
  search_radius_miles: int(limits.searchRadiusMiles).describe('How far from the loss homes are matched, in miles (1 to 150, default 25).'),
  priority: z.enum(priorities).describe('How urgently the household needs housing (default standard).'),
  household_email: email.describe("The household's contact email."),
  household_phone: phone.describe("The household's contact phone."),
  adjuster_name: text().describe('The adjuster handling the claim.'),
  adjuster_email: email.describe("The adjuster's email."),
  adjuster_phone: phone.describe("The adjuster's phone."),
};

/** Fields of the Household needs group (changeable). */
const needs = {
  bedrooms: int(limits.bedrooms).describe('Bedrooms needed (0 for a studio).'),
  bathrooms: z.number().min(limits.bathrooms.min).max(limits.bathrooms.max).multipleOf(0.5).describe('Bathrooms needed, in halves.'),
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

export const ReferenceParam = z.object({
  reference: z.string().openapi({ param: { name: 'reference', in: 'path' }, example: 'REQ-7KQ2MX', description: 'claim_ref or id' }),
});

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
    homes: z.array(z.object({ property_id: z.string().uuid(), status: z.string(), move_in_date: z.string().nullable() })),
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
});

export const BatchBody = z
  .strictObject({ requests: batchItems('CreateHousingRequest', limits.batchItems) })
  .openapi('HousingRequestBatch');

export const BatchResult = batchResult('HousingRequestBatchResult', {
  lead: { created: z.number().int().describe('Items that succeeded: new requests, and repeats of an external_id (their data has idempotent: true).') },
  item: { data: ClaimCreated.optional() },
});

export const Match = z
  .object({
    property_id: z.string().uuid(),
    name: z.string().nullable(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    monthly_rate: z.number().describe('Headline monthly rate, major units.'),
    currency: z.string(),
    distance_miles: z.number().describe('Great-circle distance from the loss, miles (one decimal).'),
    score: z.number().describe('0 to 100, the sum of score_parts.'),
    score_parts: z.object(Object.fromEntries(Object.keys(weights).map((k) => [k, z.number()])) as Record<keyof typeof weights, z.ZodNumber>),
  })
  .openapi('Match');

export const MatchQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many homes, best first (up to 100, default 20).'),
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

export const SourcingRound = z
  .object({
    id: z.string().uuid(),
    request_id: z.string().uuid(),
    reference: z.string(),
    coordinator: z.string().describe('Who sources for the request.'),
    matches_found: z.number().int().describe('Homes matching now (counted up to 200).'),
    crawl: z.object({
      postcode: z.string(),
      status: z.enum(['sent', 'recorded', 'not_configured', 'failed']).describe('sent: the crawler accepted it; recorded: sandbox, nobody contacted; not_configured: no crawler is set up for this deployment; failed: the crawler did not accept it (the round stands, the coordinator sees it).'),
    }),
    created_at: z.string(),
  })
  .openapi('SourcingRound');

export const TimelineEntry = z
  .object({
    at: z.string(),
    type: z.string(),
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

// ---- Placement: budget review, options, dates, signer, the placement read ----

const PropertyId = z.string().uuid().describe('The home (property id).');
const PlacementDate = calendarDate().describe('YYYY-MM-DD');
const amount = (description: string) => z.number().describe(description);

export const BudgetParams = ReferenceParam.extend({
  propertyId: z.string().openapi({ param: { name: 'propertyId', in: 'path' }, description: 'The home (property id).' }),
});

export const BudgetReview = z
  .object({
    property: z.string().nullable().describe('The home’s name.'),
    currency: z.string().openapi({ example: 'usd' }),
    stay: z.object({
      months: z.number().int().describe('Months started: from the dates once set, else the request’s est_length_months.'),
      target_move_in: z.string().describe('The move-in date once set, else the request’s target_move_in.'),
    }),
    monthly: z.object({
      list_rate: amount('The headline monthly_rate.'),
      rent_tier: amount('The rate of the tier that applies to the stay (the one the checkout charges).'),
      tier_applied: z.enum(['monthly_rate', 'rent_1_3_months', 'rent_4_6_months', 'rent_7_9_months', 'rent_10_12_months'])
        .describe('The tier field used; monthly_rate when the stay is under two months or the home has no rate for its tier.'),
      pet_rent: amount('The home’s pet_rent when the request has pets, else 0.'),
      utilities: amount('utilities_monthly unless utilities_included is true, else 0.'),
      total: amount('rent_tier + pet_rent + utilities.'),
    }),
    one_off: z.object({
      cleaning_fee: amount(''), application_fee: amount(''), pet_fee: amount('0 when the request has no pets.'), total: amount(''),
    }),
    deposits: z.object({
      security_deposit: amount(''), pet_deposit: amount('0 when the request has no pets.'), total: amount(''),
      refundable: z.boolean().describe('Always true: deposits come back.'),
    }),
    service_fee: z.object({
      percent: z.number().describe('The platform fee rate, the same one provider earnings use.'),
      applies_to: z.string().describe('The base: rent only.'),
      per_month: amount(''), over_stay: amount(''),
    }),
    totals: z.object({
      rent_over_stay: amount('rent_tier x months.'),
      cost_of_stay: amount('monthly.total x months + one_off.total; deposits excluded.'),
      first_payment: amount('One month (monthly.total) + one_off.total + deposits.total.'),
      deposits_refundable: amount('deposits.total.'),
    }),
    against_budget: z.object({
      max_budget: z.number().nullable(),
      within_budget: z.boolean().describe('monthly.total <= max_budget (true without a max_budget).'),
      monthly_over_by: amount('How far monthly.total exceeds max_budget; 0 when within.'),
      ale_limit: z.number().nullable(),
      ale_consumed_by_stay: amount('totals.cost_of_stay (deposits excluded: they are returned).'),
      within_ale_limit: z.boolean().describe('ale_consumed_by_stay <= ale_limit (true without an ale_limit).'),
    }),
    approval: z.object({
      budget_approved: z.boolean(),
      approved_at: z.string().nullable(),
      on_request: z.boolean().describe('Whether the home is on the request (POST options).'),
    }),
  })
  .openapi('BudgetReview');

export const BudgetDecision = z.strictObject({
  approved: z.boolean().describe('true approves the figures shown by GET budget; false withdraws the approval.'),
});

export const OptionInput = z
  .strictObject({
    property_id: PropertyId,
    action: z.enum(['send', 'place']).describe('send: the household chooses (needs household_email on the request). place: placed on their behalf.'),
    approve_budget: z.boolean().optional().describe('true approves the budget and sends or places in one call.'),
    signer_name: text().optional().describe('place only: who signs the lease (with signer_email).'),
    signer_email: email.optional().describe('place only: where the lease goes. Without a signer it goes to the caller’s own team.'),
  })
  .superRefine((body, ctx) => {
    for (const field of ['signer_name', 'signer_email'] as const) {
      if (body[field] !== undefined && body.action !== 'place') ctx.addIssue({ code: 'custom', path: [field], message: 'is for action place only' });
    }
    if (body.signer_email !== undefined && body.signer_name === undefined) ctx.addIssue({ code: 'custom', path: ['signer_name'], message: 'is required with signer_email' });
  })
  .openapi('OptionInput');
export type OptionInput = z.infer<typeof OptionInput>;

export const OptionResult = z
  .object({
    request_id: z.string().uuid(),
    property_id: z.string().uuid(),
    option_status: z.string().describe('sent, saved, approved, declined or cancelled (see the placement guide).'),
    application_status: z.string().describe('not_applied, applied or approved_to_lease.'),
    budget_approved: z.boolean(),
    adjuster_placed_at: z.string(),
  })
  .openapi('OptionResult');

export const DatesInput = z
  .strictObject({
    property_id: PropertyId,
    move_in: PlacementDate.describe('Not in the past.'),
    move_out: PlacementDate.describe('After move_in; the stay is at least 30 days.'),
  })
  .openapi('DatesInput');
export type DatesInput = z.infer<typeof DatesInput>;

export const LeaseCreated = z
  .object({
    id: z.string().uuid().describe('The contract version (lease id).'),
    move_in_date: z.string(),
    move_out_date: z.string(),
    status: z.string().describe('awaiting_lease: the contract goes out within seconds (lease.sent).'),
  })
  .openapi('LeaseCreated');

export const PropertyRef = z.strictObject({ property_id: PropertyId }).openapi('PropertyRef');

export const SignerInput = z
  .strictObject({
    property_id: PropertyId,
    signer_name: text().optional().describe('Who signs; required with signer_email.'),
    signer_email: email.optional().describe('Where the new contract goes; absent: the caller’s own team signs.'),
  })
  .superRefine((body, ctx) => {
    if (body.signer_email !== undefined && body.signer_name === undefined) ctx.addIssue({ code: 'custom', path: ['signer_name'], message: 'is required with signer_email' });
  })
  .openapi('SignerInput');
export type SignerInput = z.infer<typeof SignerInput>;

const Lease = z.object({
  id: z.string().uuid(),
  version: z.number().int(),
  status: z.string().describe('awaiting_lease, sent_for_signature, policyholder_signed, fully_signed; superseded or withdrawn in lease_history.'),
  move_in_date: z.string(),
  move_out_date: z.string(),
  signer: z.object({ name: z.string().nullable(), email: z.string().nullable() }).describe('Who the contract went to first (name null: the caller’s team).'),
  sent_for_signature_at: z.string().nullable(),
  policyholder_signed_at: z.string().nullable(),
  owner_signed_at: z.string().nullable(),
  superseded_at: z.string().nullable(),
  withdrawn_at: z.string().nullable(),
});

export const PlacementBooking = z
  .object({
    id: z.string().uuid(),
    booking_status: z.enum(['confirmed', 'cancelled']),
    check_in: z.string(),
    check_out: z.string(),
    confirmed_at: z.string(),
    move_in_confirmed_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
  })
  .openapi('PlacementBooking');

export const PlacementPayment = z
  .object({
    id: z.string().uuid(),
    charge_type: z.enum(['initial', 'rent']).describe('initial: the first payment (first month, one-off fees, deposits); rent: a later month.'),
    status: z.enum(['succeeded', 'failed', 'refunded']),
    amount: z.number().describe('What the payer was charged.'),
    platform_fee: z.number().describe('The service fee, from rent only.'),
    currency: z.string(),
    covers_rent: z.boolean(),
    covers_deposit: z.boolean(),
    period: z.object({ start: z.string(), end: z.string() }).nullable().describe('The days of the stay the charge pays for.'),
    paid_at: z.string().nullable().describe('When the charge cleared; null when it failed.'),
    failure_reason: z.string().nullable(),
    refunded_amount: z.number(),
    refunded_at: z.string().nullable(),
  })
  .openapi('PlacementPayment');

export const DepositRefund = z
  .object({
    refund_request_id: z.string().uuid(),
    payment_id: z.string().uuid(),
    amount: z.number(),
    currency: z.string(),
    covers_deposit: z.boolean().describe('Whether the refunded payment included deposits.'),
    status: z.enum(['pending_owner_approval', 'approved', 'declined', 'refunded', 'failed']),
    reason: z.string().nullable(),
    requested_at: z.string(),
    decided_at: z.string().nullable(),
    refunded_at: z.string().nullable(),
  })
  .openapi('DepositRefund');

export const PlacementHome = z
  .object({
    property_id: z.string().uuid(),
    property: z.object({
      name: z.string().nullable(), address: z.string(), city: z.string(), state: z.string(), monthly_rate: z.number(), currency: z.string(),
    }),
    option_status: z.string(),
    application_status: z.string(),
    placed_without_recipient: z.boolean(),
    budget_approved: z.boolean(),
    adjuster_placed_at: z.string().nullable(),
    signer: z.object({ name: z.string(), email: z.string().nullable() }).nullable().describe('The named signer; null: the caller’s own team signs.'),
    lease: Lease.nullable().describe('The live contract version; null until dates are set.'),
    lease_history: z.array(Lease).describe('Superseded and withdrawn versions, oldest first.'),
    booking: PlacementBooking.nullable().describe('null until the first payment clears; kept (cancelled) after a cancellation.'),
    payments_succeeded: z.number().int(),
    recipient_response: z.enum(['saved', 'rejected']).nullable(),
    decline_reason: z.string().nullable(),
    proposed_dates: z.object({ move_in: z.string(), move_out: z.string(), proposed_at: z.string() }).nullable()
      .describe('Dates the household asked for; the placement waits until POST dates/approve-proposal (or new dates).'),
    payments: z.array(PlacementPayment).describe('Every charge, oldest first, failed ones included.'),
    deposit_refunds: z.array(DepositRefund).describe('Refund requests to the landlord and their outcome, oldest first.'),
    added_at: z.string(),
  })
  .openapi('PlacementHome');

export const Placement = z
  .object({
    request_id: z.string().uuid(),
    reference: z.string(),
    status: Status,
    homes: z.array(PlacementHome),
    pay_in_app_url: z.string().nullable().describe(
      'The pay-in-app page for the home in play on the request (a signed link valid for a short time; read the placement again for a fresh one). ' +
      'null while no home is on the request.',
    ),
  })
  .openapi('Placement');

// Paying, booking and moving in (part 2).

export const MoveInConfirmed = z
  .object({
    request_id: z.string().uuid(),
    property_id: z.string().uuid(),
    booking_id: z.string().uuid(),
    move_in_confirmed_at: z.string(),
    status: Status,
  })
  .openapi('MoveInConfirmed');

export const CancelInput = z
  .strictObject({
    property_id: PropertyId,
    reason: storable(z.string().trim().min(1).max(2000)).optional().describe('Read by the landlord and the household.'),
    force: z.boolean().optional().describe('Cancel although money has settled (then request a refund from the landlord).'),
  })
  .openapi('CancelInput');

export const Cancelled = z
  .object({
    request_id: z.string().uuid(),
    property_id: z.string().uuid(),
    cancelled: z.boolean(),
    property: z.string().nullable().describe('The home’s name.'),
    was_paid: z.boolean().describe('Whether money had settled on the placement (cancelled with force).'),
  })
  .openapi('Cancelled');

export const RefundInput = z
  .strictObject({
    property_id: PropertyId,
    reason: storable(z.string().trim().min(1).max(2000)).optional().describe('Read by the landlord.'),
  })
  .openapi('RefundInput');

export const RefundRequested = z
  .object({
    refund_request_id: z.string().uuid(),
    amount_cents: z.number().int().describe('The most recent settled payment, as charged.'),
    currency: z.string(),
    status: z.literal('pending_owner_approval'),
  })
  .openapi('RefundRequested');
