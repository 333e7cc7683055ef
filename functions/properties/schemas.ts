import { z } from '@hono/zod-openapi';
import { batchItems, batchResult } from '../../shared/http/batch.ts';
import { calendarDate, halves, maxMoney, measure, money, storedText } from '../../shared/http/values.ts';
import { pageQuery, pageSizes } from '../../shared/http/paging.ts';
import { BookingStatus } from '../../shared/events/definitions/provider.ts';
import { RefundHistory } from '../../shared/placements/schemas.ts';

// The provider side's request and response schemas. Amounts are major units (dollars, at most two
// decimals); the database keeps cents.

const Amount = money({ positive: false, max: maxMoney });

const PositiveAmount = money({ positive: true, max: maxMoney });

export const IsoDate = calendarDate();

/** Text input: any string PostgreSQL can store. */
const Text = () => storedText();

const ImageUrl = storedText(z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2000));

export const homeStatuses = ['available', 'pending', 'unavailable'] as const;
const furnishedStatuses = ['furnished', 'partial', 'unfurnished'] as const;
const contractTemplates = ['standard', 'own'] as const;

/**
 * The words of the fixed routes under /properties (/properties/bookings, /properties/batch, ...). A home
 * whose external_id were one of them could not be reached at /properties/{ref}, where the fixed
 * route wins, so none may take one.
 */
const reservedExternalIds = ['applications', 'availability', 'batch', 'bookings', 'payouts', 'readiness', 'refund-requests'];

const reservedWordMessage = `must not be one of the words of the routes under /properties (${reservedExternalIds.join(', ')}), which /properties/{ref} could not reach`;

/**
 * Every home field a provider can send, each optional here; `null` clears an optional field
 * (the field becomes absent, which may make the home unlisted).
 */
const homeFieldSchemas = {
  external_id: Text().trim().min(1).max(255).refine((value) => !reservedExternalIds.includes(value), { message: reservedWordMessage })
    .describe(
      "The provider's own reference, unique per organisation and environment. Returned as api_external_id. Not one of the words " +
        `of the routes under /properties (${reservedExternalIds.join(', ')}): /properties/{ref} could not reach such a home.`,
    ),
  name: Text().trim().max(200).nullable(),
  address: Text().trim().min(1).max(300),
  city: Text().trim().min(1).max(100),
  state: storedText().trim().toUpperCase().regex(/^[A-Z]{2}$/, { message: 'must be a two-letter state code' }).openapi({ example: 'TX' }),
  zip_code: storedText().trim().regex(/^\d{5}(-\d{4})?$/, { message: 'must be a US ZIP code (12345 or 12345-6789)' }).openapi({ example: '78701' }),
  latitude: measure(-90, 90).nullable(),
  longitude: measure(-180, 180).nullable(),
  currency: z.enum(['usd']).describe('Currency of every amount of the home. Only usd is accepted.'),
  monthly_rate: PositiveAmount.describe('The headline monthly rent, and the rate of stays under two months.'),
  rent_1_3_months: PositiveAmount.nullable().describe('Monthly rent for stays of 2 to 3 months.'),
  rent_4_6_months: PositiveAmount.nullable().describe('Monthly rent for stays of 4 to 6 months.'),
  rent_7_9_months: PositiveAmount.nullable().describe('Monthly rent for stays of 7 to 9 months.'),
  rent_10_12_months: PositiveAmount.nullable().describe('Monthly rent for stays of 10 months and over.'),
  bedrooms: z.number().int().min(0).max(50),
  bathrooms: halves(0, 50),
  sqft: z.number().int().positive().max(1_000_000).nullable(),
  furnished_status: z.enum(furnishedStatuses).nullable(),
  available_from: IsoDate.nullable().describe('First date the home can be moved into.'),
  security_deposit: Amount.nullable().describe('0 means not applicable; absent means missing.'),
  cleaning_fee: Amount.nullable().describe('0 means not applicable; absent means missing.'),
  application_fee: Amount.nullable().describe('0 means not applicable; absent means missing.'),
  pet_fee: Amount.nullable().describe('One-off pet fee. 0 means not applicable; absent means missing.'),
  pet_rent: Amount.nullable().describe('Monthly pet rent on top of the rent. 0 or absent: none.'),
  pet_deposit: Amount.nullable().describe('Refundable pet deposit. 0 or absent: none.'),
  utilities_included: z.boolean().nullable().describe('Whether the rent includes utilities.'),
  utilities_monthly: Amount.nullable().describe('Estimated monthly utilities when they are not included.'),
  contract_template: z.enum(contractTemplates).describe("standard (default): the service's standard lease, sent for signature automatically. own: the provider's own lease."),
  image_url: z.union([ImageUrl, z.array(ImageUrl).max(50)]).nullable().describe('One photograph address, or a list of them (the first is the cover).'),
  description: Text().max(10_000).nullable(),
  amenities: z.array(Text().trim().min(1).max(100)).max(100).nullable().describe('Non-empty for a listed home.'),
  pet_policy: Text().max(1000).nullable().describe('An explicit statement, also when no pets are allowed ("No pets").'),
  status: z.enum(homeStatuses).describe('Kept as it is when omitted on an update; new homes start available.'),
};

export type HomeField = keyof typeof homeFieldSchemas;

const { external_id, address, city, state, zip_code, monthly_rate, bedrooms, bathrooms, ...optionalFields } = homeFieldSchemas;

/** POST /properties and each item of POST /properties/batch. */
export const HomeInput = z
  .strictObject({
    external_id: external_id.nullable().optional(),
    address,
    city,
    state,
    zip_code,
    monthly_rate,
    bedrooms,
    bathrooms,
    ...Object.fromEntries(Object.entries(optionalFields).map(([k, s]) => [k, s.optional()])) as {
      [K in keyof typeof optionalFields]: z.ZodOptional<(typeof optionalFields)[K]>;
    },
  })
  .openapi('HomeInput');
export type HomeInput = z.infer<typeof HomeInput>;

/** PATCH /properties/{ref}: any home field. */
export const HomePatch = z
  .strictObject({
    ...(Object.fromEntries(Object.entries(homeFieldSchemas).map(([k, s]) => [k, s.optional()])) as {
      [K in HomeField]: z.ZodOptional<(typeof homeFieldSchemas)[K]>;
    }),
    external_id: external_id.nullable().optional(),
  })
  .openapi('HomePatch');
export type HomePatch = z.infer<typeof HomePatch>;

/** Why matching does not offer a home (homes-repository.ts notOfferedBecause). */
export const notOfferedReasons = ['listing_incomplete', 'unavailable', 'no_location', 'charges_disabled'] as const;

const availabilityVia = ['complete_profile', 'calendar_synced', 'manual_blocks', 'available_dates'] as const;

const readiness = {
  listed: z.boolean().describe('Offered to adjusters: the listing is complete.'),
  missing_fields: z.array(z.string()).describe('What keeps the home from being listed, in the order of the listing rule.'),
  availability_via: z.array(z.enum(availabilityVia)),
};

const HomeSummary = z
  .object({ id: z.string().uuid(), api_external_id: z.string().nullable(), ...readiness })
  .openapi('HomeSummary');

const nullableAmount = z.number().nullable();

export const Home = z
  .object({
    id: z.string().uuid(),
    api_external_id: z.string().nullable(),
    name: z.string().nullable(),
    address: z.string(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    currency: z.string(),
    monthly_rate: z.number(),
    rent_1_3_months: nullableAmount,
    rent_4_6_months: nullableAmount,
    rent_7_9_months: nullableAmount,
    rent_10_12_months: nullableAmount,
    bedrooms: z.number().int(),
    bathrooms: z.number(),
    sqft: z.number().int().nullable(),
    furnished_status: z.enum(furnishedStatuses).nullable(),
    available_from: z.string().nullable(),
    security_deposit: nullableAmount,
    cleaning_fee: nullableAmount,
    application_fee: nullableAmount,
    pet_fee: nullableAmount,
    pet_rent: nullableAmount,
    pet_deposit: nullableAmount,
    utilities_included: z.boolean().nullable(),
    utilities_monthly: nullableAmount,
    contract_template: z.enum(contractTemplates),
    image_url: z.string().nullable().describe('The cover photograph (the first of image_urls).'),
    image_urls: z.array(z.string()),
    description: z.string().nullable(),
    amenities: z.array(z.string()).nullable(),
    pet_policy: z.string().nullable(),
    status: z.enum(homeStatuses),
    test_data: z.boolean().describe('Published with a sandbox key: matchable by sandbox requests only.'),
    ...readiness,
    verified: z.boolean().describe('Listing complete and availability readable. Only verified homes are matched.'),
    verified_via: z.enum(['calendar_synced', 'manual_blocks', 'available_dates']).nullable().describe('How availability is read; null while not verified.'),
    offered: z.boolean().describe('Matching offers the home to requests of its environment (their distance, dates and blocks aside): not_offered_because is empty.'),
    not_offered_because: z.array(z.enum(notOfferedReasons)).describe(
      'Why matching does not offer the home, in this order: listing_incomplete (see missing_fields), unavailable (status), no_location ' +
      '(no coordinates and a ZIP code the service does not know), charges_disabled (the provider\'s payout account in this environment cannot ' +
      'take charges: GET /properties/payouts, finish_setup_url). Empty when offered.',
    ),
    calendar_conflicts: z
      .array(z.object({
        id: z.string().uuid(),
        feed_id: z.string().uuid().describe('The imported calendar (GET /properties/{id}/calendar-feeds).'),
        booking_id: z.string().uuid().nullable().describe('The booking the nights belong to; null while the stay is held and not yet paid.'),
        start_date: z.string().describe('First night both the other channel and the stay here take.'),
        end_date: z.string().describe('Last night (inclusive) both take.'),
        detected_at: z.string(),
      }))
      .describe(
        "Open conflicts: nights an imported calendar takes that a stay booked here holds. The booking stands; free the nights on the " +
        'other channel (or move the stay) and the next fetch resolves the conflict. Announced once by calendar.conflict.',
      ),
    calendar_synced_at: z.string().nullable().describe('Last write of the home by the bulk calendar sync.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Home');
export type Home = z.infer<typeof Home>;

/** `{id|external_id}`: the service id or the provider's external_id. */
export const HomeRefParams = z.object({
  ref: z.string().min(1).max(255).openapi({ param: { name: 'ref', in: 'path' }, description: 'The home id or its external_id.' }),
});

export const Readiness = z
  .object({
    total: z.number().int(),
    listed: z.number().int(),
    not_listed: z.number().int(),
    offered: z.number().int().describe('Homes matching offers (offered true on the home).'),
    not_offered: z.number().int().describe('Homes matching does not offer, whatever the reason (listed ones included).'),
    blockers: z.array(z.object({ field: z.string(), homes: z.number().int() })).describe(
      'What holds homes back, most frequent first: each missing field; payout_account when the provider\'s payout account in this ' +
      'environment cannot take charges (it holds back every home); location when homes have no location.',
    ),
    warnings: z.array(z.object({ field: z.enum(['calendar_conflict']), homes: z.number().int() })).describe(
      'What needs a person without holding homes back: calendar_conflict when homes have open calendar conflicts (calendar_conflicts on the home).',
    ),
    examples: z
      .array(z.object({
        property_id: z.string().uuid(), external_id: z.string().nullable(), name: z.string().nullable(), missing_fields: z.array(z.string()),
        not_offered_because: z.array(z.enum(notOfferedReasons)).describe('As on the home.'),
      }))
      .describe('Up to twenty homes matching does not offer, most recently changed first.'),
  })
  .openapi('Readiness');

/** At most this many homes in one POST /properties/batch, blocks in one POST /properties/availability. */
export const batchLimits = { homes: 100, blocks: 500 } as const;

export const HomeBatchBody = z.strictObject({ properties: batchItems('HomeInput', batchLimits.homes) });

export const HomeBatchResult = batchResult('HomeBatchResult', {
  lead: { created: z.number().int().describe('New homes.') },
  tail: { updated: z.number().int().describe('Existing homes refreshed under their external_id.') },
  item: {
    updated: z.boolean().describe('true when an existing home under that external_id was refreshed.'),
    data: HomeSummary.optional(),
  },
});

/** GET /properties: a page of homes, optionally of one status. */
export const HomesQuery = pageQuery(pageSizes.homes).extend({ status: z.enum(homeStatuses).optional() });

/** DELETE of one block: the home and the block. */
export const BlockParams = HomeRefParams.extend({ block_id: z.string().openapi({ param: { name: 'block_id', in: 'path' } }) });

/** GET availability: the window whose blocks are answered (blocks touching it). */
export const BlocksQuery = z.object({ from: IsoDate.optional(), to: IsoDate.optional() });

export const Block = z
  .object({
    id: z.string().uuid(),
    property_id: z.string().uuid(),
    start_date: z.string(),
    end_date: z.string().describe('Inclusive: the home is unavailable on this date too. A service hold ends on the stay\'s last night, the day before move-out: the move-out day is free for the next check-in.'),
    reason: z.string().nullable(),
    source: z.enum(['provider', 'service', 'ical']).describe(
      'service: a hold for a lease or booking; not removable through the interface. ical: nights read from another channel\'s calendar ' +
      '(calendar_import_id), replaced at each fetch of it; removed with its feed, not one by one.',
    ),
    calendar_import_id: z.string().uuid().nullable().describe('Present on ical blocks: the imported calendar (GET /properties/{ref}/calendar-feeds) they were read from.'),
    lease_agreement_id: z.string().uuid().nullable().describe('Present on service holds.'),
    held_for: z.enum(['lease', 'booking', 'completed']).nullable()
      .describe('Service holds: lease (dates set, not paid), booking (paid), completed (the stay is over: the home\'s past). Null on provider blocks.'),
    created_at: z.string(),
  })
  .openapi('AvailabilityBlock');

const blockDates = {
  start_date: IsoDate,
  end_date: IsoDate.describe('Inclusive; on or after start_date.'),
  reason: Text().trim().max(500).nullable().optional(),
};

const endNotBeforeStart = (b: { start_date: string; end_date: string }, ctx: z.RefinementCtx) => {
  if (b.end_date < b.start_date) ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must be on or after start_date' });
};

export const BlockInput = z.strictObject(blockDates).superRefine(endNotBeforeStart).openapi('AvailabilityBlockInput');

/** One item of POST /properties/availability: the home by property_id or external_id. */
export const BulkBlockInput = z
  .strictObject({ property_id: z.string().uuid().optional(), external_id: Text().trim().min(1).max(255).optional(), ...blockDates })
  .superRefine((b, ctx) => {
    if ((b.property_id === undefined) === (b.external_id === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['property_id'], message: 'send exactly one of property_id or external_id' });
    }
    endNotBeforeStart(b, ctx);
  })
  .openapi('AvailabilityBulkItem');
export type BulkBlockInput = z.infer<typeof BulkBlockInput>;

export const BulkBlocksBody = z.strictObject({
  replace: z.boolean().default(false).describe('Clear the provider blocks of the homes named by the accepted blocks first.'),
  blocks: batchItems('AvailabilityBulkItem', batchLimits.blocks),
});

export const BulkBlocksResult = batchResult('AvailabilityBulkResult', {
  lead: { blocked: z.number().int().describe('Blocks added.') },
  tail: {
    replaced_existing: z.number().int().describe('Provider blocks cleared by replace.'),
    homes_touched: z.number().int().describe('Homes that received blocks (with replace, cleared first).'),
  },
  item: {
    ref: z.string().nullable().describe('The property_id or external_id sent.'),
    property_id: z.string().uuid().nullable(),
    block_id: z.string().uuid().optional(),
  },
});

const Payment = z
  .object({
    id: z.string().uuid(),
    charge_type: z.enum(['initial', 'rent', 'deposit', 'fee', 'extension'])
      .describe('initial (the first charge: first rent, deposits and one-off fees), rent, deposit, fee, or extension (the added nights of an extended stay).'),
    status: z.enum(['succeeded', 'refunded']),
    gross: z.number().describe('What the payer was charged.'),
    platform_fee: z.number().describe("The service's fee, taken from the rent in the charge only."),
    processing_fee: z.number().describe("The card processor's fee on the whole charge."),
    net_to_you: z.number().describe('gross - platform_fee - processing_fee: what reaches your account.'),
    currency: z.string(),
    paid_at: z.string(),
  })
  .openapi('ProviderPayment');

export const Booking = z
  .object({
    id: z.string().uuid(),
    property_id: z.string().uuid(),
    property: z.object({ name: z.string().nullable(), api_external_id: z.string().nullable() }),
    booking_status: BookingStatus.describe('confirmed (paid), cancelled, or completed (its move-out date came: the stay is over).'),
    check_in: z.string(),
    check_out: z.string().describe('The move-out day: the last night is the day before. Follows a shortened or extended stay.'),
    move_in_confirmed_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    completed_at: z.string().nullable().describe('When the stay was closed out.'),
    created_at: z.string(),
    payments: z.array(Payment),
  })
  .openapi('ProviderBooking');

export const ProviderRefundRequest = z
  .object({
    id: z.string().uuid(),
    reference: z.string().nullable().describe('The housing request the payment was for.'),
    property_id: z.string().uuid(),
    payment_id: z.string().uuid(),
    amount: z.number().describe('The payment to refund, as charged (major units).'),
    currency: z.string(),
    covers_deposit: z.boolean(),
    reason: z.string().nullable().describe('The carrier’s reason.'),
    status: z.enum(['pending_owner_approval', 'approved', 'declined', 'refunded', 'failed']),
    requested_at: z.string(),
    decided_at: z.string().nullable(),
    refunded_at: z.string().nullable(),
    history: RefundHistory,
  })
  .openapi('ProviderRefundRequest');

export const RefundDecision = z
  .strictObject({ decision: z.enum(['approve', 'decline']).describe('approve refunds the payment on your account (with the platform fee); decline keeps it.') })
  .openapi('RefundDecision');

export const RefundRequestParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'The refund request id.' }),
});

export const ProviderApplication = z
  .object({
    id: z.string().uuid().describe('The application (answer it with POST /properties/applications/{id}).'),
    reference: z.string().describe('The housing request the household applied from.'),
    property_id: z.string().uuid(),
    status: z.enum(['pending', 'approved', 'declined']).describe('pending: waiting for your answer.'),
    applied_at: z.string(),
    decided_at: z.string().nullable(),
    decline_reason: z.string().nullable().describe('Your reason, when you declined.'),
    household: z.object({
      adults: z.number().int(), children: z.number().int(), has_pets: z.boolean(), number_of_pets: z.number().int().nullable(),
    }).describe('Who would live there; the household\'s contact details are not shared.'),
    target_move_in: z.string().describe('YYYY-MM-DD: when the household hopes to move in.'),
    est_length_months: z.number().int(),
    proposed_dates: z.object({ move_in: z.string(), move_out: z.string().nullable() }).nullable().describe('Dates the household proposed, if any.'),
  })
  .openapi('ProviderApplication');

export const ApplicationQuery = pageQuery(pageSizes.applications).extend({
  status: z.enum(['pending', 'approved', 'declined']).optional().describe('Only applications in this status (default: all).'),
});

export const ApplicationDecision = z
  .strictObject({
    decision: z.enum(['approve', 'decline']).describe('approve: the home is approved to lease, and the carrier sets dates; decline: the application is turned down.'),
    reason: storedText(z.string().trim().min(1).max(2000)).optional().describe('decline: why, shown to the carrier (required).'),
  })
  .superRefine((body, ctx) => {
    if (body.decision === 'decline' && body.reason === undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is required to decline' });
    if (body.decision === 'approve' && body.reason !== undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is for decline only' });
  })
  .openapi('ApplicationDecision');

export const ApplicationParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'The application id.' }),
});

export const CalendarExport = z
  .object({
    property_id: z.string().uuid(),
    url: z.string().url().nullable().describe(
      'The feed\'s address, to paste into the other channel\'s "import calendar" field. Shown only in the answer that issued it ' +
      '(only its hash is kept); null when read later. Whoever has it reads which nights the home is taken, nothing else.',
    ),
    issued_at: z.string().describe('When this address was issued; an address issued earlier no longer answers.'),
    last_modified: z.string().describe('When the home\'s calendar in this environment last changed: the feed\'s Last-Modified.'),
  })
  .openapi('CalendarExport');

export const RevokedCalendarExport = z.object({ property_id: z.string().uuid(), revoked: z.literal(true) }).openapi('RevokedCalendarExport');

export const CalendarImportInput = z.strictObject({
  url: storedText(z.string().min(1).max(2048)).describe('The other channel\'s iCalendar export address (https, on the public internet).'),
  name: storedText(z.string().trim().min(1).max(200)).optional().describe('Your label for the channel, shown on its blocks (Airbnb, Vrbo, …).'),
}).openapi('CalendarImportInput');

export const CalendarImport = z
  .object({
    id: z.string().uuid(),
    property_id: z.string().uuid(),
    url: z.string().describe(
      'The address registered, its query (and any user info) shown as `?…`: a channel\'s export address carries its key there ' +
      '(Airbnb\'s `?s=…`). The whole address is kept and fetched.',
    ),
    name: z.string().nullable(),
    created_at: z.string(),
    last_fetched_at: z.string().nullable().describe('When a fetch last ended, well or not; null before the first.'),
    last_success_at: z.string().nullable().describe('When the feed was last read and the home\'s ical blocks replaced by it.'),
    last_error: z.string().nullable().describe('Why the last fetch failed; null after a success. The blocks of the last success stay in force meanwhile.'),
    consecutive_failures: z.number().int().describe('Failed fetches since the last success.'),
    blocks: z.number().int().describe('Blocks currently read from this feed.'),
  })
  .openapi('CalendarImport');

export const CalendarImportParams = HomeRefParams.extend({ feed_id: z.string().openapi({ param: { name: 'feed_id', in: 'path' } }) });

export const DeletedCalendarImport = z.object({ id: z.string().uuid(), deleted: z.literal(true) }).openapi('DeletedCalendarImport');
