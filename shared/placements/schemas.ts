import { z } from '@hono/zod-openapi';
import { calendarDate, emailAddress, money, storedText as storable, textLine } from '../values.ts';
import { ReferenceParam } from '../claims/schemas.ts';
import { statuses } from '../claims/status.ts';
import { limits, payers } from '../claims/values.ts';
import { applicationStatuses, leaseStatuses, optionStatuses } from './states.ts';
import { tiers } from './pricing.ts';
import { chargeTypes } from './billing.ts';
import { BookingStatus } from '../events/definitions/provider.ts';

// The placement's API schemas: the budget review, options, dates, signer, the placement read, and
// paying, booking and moving in. The routes that declare them live where the specification puts
// them (functions/claims/routes/placement.ts, booking.ts; the sandbox helpers); the commands of
// this module take their inputs and render their answers by these types.

const text = (max: number = limits.text) => textLine(max);
const email = emailAddress();
const Status = z.enum(statuses);
// The placement's state machines (states.ts): the values their columns hold, as enums in the document.
const OptionStatus = z.enum(optionStatuses);
const ApplicationStatus = z.enum(applicationStatuses);
const LeaseStatus = z.enum(leaseStatuses);

// ---- Budget review, options, dates, signer, the placement read ----


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
    basis: z.enum(['signed_terms', 'live_rates']).describe(
      'What the figures are priced from. signed_terms: the lease is signed by both, and the review is what its checkout charges: the ' +
        'terms frozen in that contract version (lease.terms; the home’s later changes of rates, fees or deposit do not show) over the ' +
        'dates it was signed for: the prices its signing posted to the stay’s ledger (a shortening releases nights, never prices the kept ones again; the statement shows what is charged now; an extension’s added ' +
        'nights are priced by the extension’s own review). live_rates: the home’s rates as they stand, over the placement’s dates once ' +
        'set; the case before both signatures (a version may still be re-dated or replaced) and for a version issued before terms were recorded.',
    ),
    lease_id: z.string().uuid().nullable().describe('The signed contract version whose terms price the review (basis signed_terms); null with live_rates.'),
    stay: z.object({
      months: z.number().int().describe('Months started: from the dates once set (with signed_terms, the stay the lease bills), else the request’s est_length_months.'),
      target_move_in: z.string().describe('The move-in date once set, else the request’s target_move_in.'),
    }),
    monthly: z.object({
      list_rate: amount('The headline monthly_rate.'),
      rent_tier: amount('The rate of the tier that applies to the stay (the one the checkout charges: with signed_terms, the signed rate).'),
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
      rent_over_stay: amount('The rent the checkout charges over the stay: rent_tier x months, a short last month prorated by its days once the dates are set.'),
      cost_of_stay: amount('What the checkout charges over the stay, deposits excluded: the monthly totals (a short last month prorated once the dates are set) + one_off.total.'),
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
    option_status: OptionStatus.describe('See the placement guide.'),
    application_status: ApplicationStatus,
    budget_approved: z.boolean(),
    adjuster_placed_at: z.string().describe('When the carrier last put the home on the request with POST options, send or place (the specification\'s name; with send nothing is placed yet: the household chooses).'),
    household_link_delivery: z.enum(['queued', 'not_configured']).nullable().describe(
      'Beyond the specification. What this call did with the household\'s link (send): queued, its email goes out within seconds (a send that later ' +
      'fails for good is the household_link.undelivered event and timeline entry); not_configured, the deployment has no email configured, so nothing ' +
      'was sent (recorded as household_link.undelivered; send it again with POST household-link once an operator has set email up). ' +
      'null when the call sent no link (place, or the home was sent already).',
    ),
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

export const HouseholdLinkSent = z
  .object({
    property_id: z.string().uuid(),
    sent_to: z.string().describe('The request\'s household_email, which the link\'s email is queued to (never answered when nothing could be sent: 503 not_configured).'),
    link_issued_at: z.string().describe('The issue of the link: links issued before it no longer work.'),
  })
  .openapi('HouseholdLinkSent');

export const ExtensionInput = z
  .strictObject({
    property_id: PropertyId,
    move_out: PlacementDate.describe("The new move-out: after the stay's current move-out. The added nights run from that move-out to the night before this one."),
  })
  .openapi('ExtensionInput');
export type ExtensionInput = z.infer<typeof ExtensionInput>;

export const ExtensionQuery = z.object({ property_id: PropertyId });

export const Extension = z
  .object({
    id: z.string().uuid().describe("The extension's addendum (a contract version of kind addendum)."),
    property_id: z.string().uuid(),
    lease_id: z.string().uuid().describe('The signed lease it extends (never changed).'),
    status: z.enum(['awaiting_signature', 'awaiting_payment', 'in_effect', 'withdrawn'])
      .describe('awaiting_signature (the addendum is out for both signatures), awaiting_payment (signed; the pay page and the payment helper collect it next), in_effect (paid: the stay ends on move_out_date), withdrawn (declined by the landlord, or lapsed unpaid when the stay ended).'),
    addendum: z.object({
      version: z.number().int(),
      status: LeaseStatus,
      sent_at: z.string().nullable(),
      policyholder_signed_at: z.string().nullable(),
      owner_signed_at: z.string().nullable(),
    }),
    previous_move_out_date: z.string().describe('The move-out before the extension: the first added night.'),
    move_out_date: z.string().describe('The move-out with the extension.'),
    added_nights: z.number().int(),
    tier: z.enum(tiers).describe('The rent tier of the extended stay\'s whole length, by the signed terms: the added nights are priced at it.'),
    monthly_rent: z.number().describe('The monthly rent at that tier.'),
    amount: z.number().describe('What the extension charges, once, on the landlord\'s account: the added nights\' share of each month\'s rent, pet rent and utilities. No deposit or one-off fee again.'),
    lines: z.array(z.object({ label: z.string(), amount: z.number() })),
    currency: z.string(),
    budget: BudgetReview.describe(
      'The budget review of the extended stay (the call counts as the carrier\'s approval of it). monthly is the tier the extension\'s own nights ' +
      'are priced at; totals are what the stay\'s ledger charges once the extension is signed (the nights signed before at their signed price), ' +
      'as its signing posted them or, before that, would post them now.',
    ),
    created_at: z.string(),
    effective_at: z.string().nullable().describe('When its payment cleared and the stay took the new move-out.'),
  })
  .openapi('Extension');

export const LeaseCreated = z
  .object({
    id: z.string().uuid().describe('The contract version (lease id).'),
    move_in_date: z.string(),
    move_out_date: z.string().describe('The move-out the version was signed (or is issued) with; a shortening never changes it.'),
    status: LeaseStatus.describe('awaiting_lease: the contract goes out within seconds (lease.sent).'),
    shortened_move_out_date: z.string().nullable().describe(
      'A shortening\'s answer (POST dates once moved in): the stay\'s new, earlier move-out, as the placement read\'s lease.shortened_move_out_date ' +
      'shows it; move_out_date stays the signed one. null otherwise.',
    ),
  })
  .openapi('LeaseCreated');

export const PropertyRef = z.strictObject({ property_id: PropertyId }).openapi('PropertyRef');

export const SignerInput = z
  .strictObject({
    property_id: PropertyId,
    signer_name: text().optional().describe('Who signs; required with signer_email.'),
    signer_email: email.optional().describe('Where the new contract goes; absent: the default signer (send: the household; place: the adjuster or the caller’s own team).'),
  })
  .superRefine((body, ctx) => {
    if (body.signer_email !== undefined && body.signer_name === undefined) ctx.addIssue({ code: 'custom', path: ['signer_name'], message: 'is required with signer_email' });
  })
  .openapi('SignerInput');
export type SignerInput = z.infer<typeof SignerInput>;

export const SignerChanged = z
  .object({
    property_id: z.string().uuid(),
    signer: z.object({ name: z.string(), email: z.string().nullable() }).nullable(),
    lease: LeaseCreated.nullable().describe('The new contract version; null when no dates were set yet.'),
  })
  .openapi('SignerChanged');

const amountOrNull = z.number().nullable();

export const LeaseTermsSchema = z
  .object({
    currency: z.string(),
    monthly_rate: z.number().describe('The headline monthly rate.'),
    rent_1_3_months: amountOrNull, rent_4_6_months: amountOrNull, rent_7_9_months: amountOrNull, rent_10_12_months: amountOrNull,
    security_deposit: amountOrNull, cleaning_fee: amountOrNull, application_fee: amountOrNull,
    pet_fee: amountOrNull, pet_rent: amountOrNull, pet_deposit: amountOrNull,
    utilities_included: z.boolean().nullable(), utilities_monthly: amountOrNull,
    household_has_pets: z.boolean().describe('Whether the pet charges apply: the request had pets when the version was issued.'),
    address: z.string(), city: z.string(), state: z.string(),
    stay: z.object({
      months: z.number().int(),
      tier_applied: z.enum(tiers),
      rent_over_stay: z.number(), cost_of_stay: z.number(), first_payment: z.number(), deposits: z.number(),
    }).describe('The budget review\'s figures for the version\'s dates, as they stood when it was issued.'),
  })
  .describe(
    'The terms this version was issued with, as they stood then: every charge of the version (the pay page, payments, refunds, ' +
    "the provider's earnings) is priced from them, whatever the provider changes later. null on versions issued before terms were recorded.",
  )
  .openapi('LeaseTerms');

const Lease = z.object({
  id: z.string().uuid(),
  version: z.number().int(),
  status: LeaseStatus.describe('awaiting_lease, sent_for_signature, policyholder_signed, fully_signed; superseded or withdrawn in lease_history.'),
  move_in_date: z.string(),
  move_out_date: z.string(),
  signer: z.object({ name: z.string().nullable(), email: z.string().nullable() }).describe('Who the contract went to first (name null: the caller’s team).'),
  sent_for_signature_at: z.string().nullable(),
  policyholder_signed_at: z.string().nullable(),
  owner_signed_at: z.string().nullable(),
  superseded_at: z.string().nullable(),
  withdrawn_at: z.string().nullable(),
  terms: LeaseTermsSchema.nullable(),
  shortened_move_out_date: z.string().nullable().describe(
    'The earlier move-out of a stay shortened after move-in (POST dates): the version keeps the dates it was signed with, and the stay ' +
    'now ends here (billing and the booking follow it; each shortening is a dates.changed timeline entry). null when not shortened.',
  ),
});

export const PlacementBooking = z
  .object({
    id: z.string().uuid(),
    booking_status: BookingStatus,
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
    charge_type: z.enum(chargeTypes).describe('initial: the first payment (first month, one-off fees, deposits); rent: a later month; extension: the added nights of an extension.'),
    status: z.enum(['pending', 'succeeded', 'failed', 'refunded']).describe(
      'pending: a live checkout opened on the pay page and not settled yet (a second submission goes to the same checkout); succeeded or failed by the processor (a later success wins over a failure); failed with `checkout_expired` or `amount_changed` when the service replaced the checkout before it was paid, or `checkout_not_opened` when the processor could not be reached to open it (nothing was charged); refunded once all of it came back.',
    ),
    payer: z.enum(payers).nullable().describe(
      'Who paid this share of the charge: a charge whose rent, deposits and fees have different payers (`rent_payer`, `deposit_payer`, `fees_payer`) is paid in one share per payer, each a payment of its own. Null on payments made before charges were split.',
    ),
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
    duplicate_of: z.string().uuid().nullable().describe(
      'Set on a charge that cleared for what this other payment had already paid (two checkouts both paid): it counts for nothing, is refunded automatically (an automatic entry in deposit_refunds) and announced by payment.duplicate.',
    ),
  })
  .openapi('PlacementPayment');

const refundStatuses = ['pending_owner_approval', 'approved', 'declined', 'refunded', 'failed'] as const;

/** A refund request's life, as the carrier and the landlord read it (app.refund_request_changes). */
export const RefundHistory = z
  .array(
    z.object({
      status: z.enum(refundStatuses).describe('The status the request moved to.'),
      at: z.string().describe('When it moved.'),
    }).openapi('RefundStep'),
  )
  .describe(
    'The request\'s life, oldest first: asked (pending_owner_approval), then approved or declined, then refunded or failed ' +
      '(refunded after failed when a retried refund was issued after all). A duplicate charge\'s automatic refund is asked and ' +
      'approved at once. Steps are appended, never changed: `status` is the last step\'s.',
  );

export const DepositRefund = z
  .object({
    refund_request_id: z.string().uuid(),
    payment_id: z.string().uuid(),
    amount: z.number(),
    currency: z.string(),
    covers_deposit: z.boolean().describe('Whether the refunded payment included deposits.'),
    status: z.enum(refundStatuses),
    reason: z.string().nullable(),
    requested_at: z.string(),
    decided_at: z.string().nullable(),
    refunded_at: z.string().nullable(),
    automatic: z.boolean().describe('Issued by the service itself for a duplicate charge (approved when made), not requested by the carrier.'),
    history: RefundHistory,
  })
  .openapi('DepositRefund');

export const PlacementHome = z
  .object({
    property_id: z.string().uuid(),
    property: z.object({
      name: z.string().nullable(), address: z.string(), city: z.string(), state: z.string(), monthly_rate: z.number(), currency: z.string(),
    }),
    option_status: OptionStatus,
    application_status: ApplicationStatus,
    placed_without_recipient: z.boolean(),
    budget_approved: z.boolean(),
    adjuster_placed_at: z.string().nullable().describe('When the carrier last put the home on the request with POST options (send or place).'),
    signer: z.object({ name: z.string(), email: z.string().nullable() }).nullable().describe('The named signer; null: the default signer (send: the household; place: the adjuster or the caller’s own team).'),
    lease: Lease.nullable().describe('The live contract version; null until dates are set.'),
    lease_history: z.array(Lease).describe('Superseded and withdrawn versions, oldest first.'),
    booking: PlacementBooking.nullable().describe('null until the first payment clears; kept (cancelled) after a cancellation.'),
    payments_succeeded: z.number().int(),
    recipient_response: z.enum(['saved', 'rejected']).nullable(),
    decline_reason: z.string().nullable().describe('Why the household declined the home.'),
    application_decline_reason: z.string().nullable().describe('Why the landlord declined the household\'s application (application_status declined).'),
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
      'The carrier\'s pay-in-app page for the home in play on the request (a signed link valid for a short time; read the placement again for a fresh one): ' +
      'it shows every payer\'s share of what is due and takes the carrier\'s own share only. With no home in play, a stay cancelled once moved in, ' +
      'for the nights used before the cancellation it may still owe. null while no home is on the request.',
    ),
    pay_links: z.array(z.object({
      payer: z.enum(payers).describe('Whose share the link pays: the carrier, the claims administrator (tpa) or the policyholder (the household).'),
      url: z.string().describe('The pay-in-app page for that payer (a signed link naming the payer, valid for a short time).'),
    })).describe(
      'One pay link per payer the request names (rent_payer, deposit_payer, fees_payer), in that order: forward each payer its own. ' +
      'A link shows and takes its payer\'s share only; a form posted through it for another payer\'s share is refused (403) and records nothing. ' +
      'Empty while no home is on the request.',
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
    purpose: z.enum(['owed_back', 'deposit']).optional().describe(
      'What the refund returns. owed_back (default): what the payer settled beyond what the stay now charges (nights released by a ' +
        'shortening, a cancellation): the statement\'s refund_due for that payer. deposit: the deposits the stay holds of that payer, ' +
        'which no longer count as held once returned.'),
    goodwill: z.boolean().optional().describe(
      'Allow more than the purpose returns (up to what is left of the payment): the rest is the landlord\'s goodwill, posted as such ' +
        '(a release with cause goodwill beside the refund), never due again. Without it, asking for more is 422 naming what is owed.'),
    payment_id: z.string().uuid().optional().describe(
      'The settled payment the money goes back on (payments[].id on the placement); its payer is the one refunded. Default: the payment ' +
        'of a payer the stay owes something back for this purpose (the one that paid such a charge), or with goodwill the most recent one.'),
    amount: money({ positive: true }).optional()
      .describe('How much to refund, in major units; default: all the purpose returns to that payer (up to what is left of the payment; with goodwill and nothing owed, all that is left of it).'),
  })
  .openapi('RefundInput');

export const RefundRequested = z
  .object({
    refund_request_id: z.string().uuid(),
    amount_cents: z.number().int().describe('The amount asked for, in cents (the specification\'s field; `amount` says the same in major units).'),
    amount: amount('The amount asked for, in major units, as every other answer.'),
    currency: z.string(),
    status: z.literal('pending_owner_approval'),
    payment_id: z.string().uuid().describe('The payment the money goes back on.'),
    payer: z.enum(payers).describe('Who is refunded: the payer of that payment.'),
    purpose: z.enum(['owed_back', 'deposit']),
    goodwill: z.boolean(),
    history: RefundHistory,
  })
  .openapi('RefundRequested');

// ---- The statement of a stay (this service's addition) ----

export const StatementQuery = z.object({ property_id: PropertyId });

/** The accounts of a stay's ledger (double entry), as app.ledger_entries derives them from an entry's kind and part. */
const ledgerAccounts = ['payer_rent', 'payer_fees', 'payer_deposit', 'landlord_rent', 'landlord_fees', 'deposits_held', 'processor', 'service_fee'] as const;

const StatementAccount = z.object({
  account: z.enum(ledgerAccounts).describe(
    'payer_rent, payer_fees, payer_deposit: what the payer of that part owes (negative: owed back); landlord_rent, landlord_fees: what the ' +
      'stay earns the landlord (negative: a credit balance); deposits_held: deposits the landlord holds (negative); processor: what the ' +
      'processor took in from payers less what it refunded; service_fee: the service\'s fee on rent, taken with payments and returned with refunds (negative).'),
  balance: amount('Debits less credits over every entry, the service fee\'s too. The balances of a stay sum to 0.'),
});

const StatementEntry = z.object({
  id: z.string().uuid(),
  posted_at: z.string().describe('When the entry was posted. Entries are never changed or removed; a change of the stay posts new ones.'),
  kind: z.enum(['charge', 'release', 'restore', 'reversal', 'transfer', 'payment', 'refund']).describe(
    'charge: posted when a contract version was signed by both; release: nights a shortening (or a lapsed extension) gave back, ' +
      'or a deposit a refund returned, or what a goodwill refund gave; ' +
      'restore: released nights an extension took back, at the price they were signed at; reversal: what a cancellation took off; ' +
      'transfer: a pair (one out of a charge, one into the extension\'s) moving what a restore put on a part already paid beyond what ' +
      'was settled for it (paid less refunded), so it is paid with the extension; moved back when those nights go again or the extension lapses; ' +
      'payment: a payer paid the part (negative: it owes that much less); refund: money returned to the payer on the part (positive). ' +
      'Skip kinds you do not know: more may come.'),
  cause: z.enum(['signed', 'shortened', 'extended', 'lapsed', 'cancelled', 'paid', 'refunded', 'duplicate', 'deposit_returned', 'goodwill']).describe(
    'What posted it; paid and refunded: a payment or refund; duplicate: a second charge and its automatic refund (they cancel out); ' +
      'deposit_returned and goodwill: the release a refund of a deposit, or beyond what was owed back, posts beside it.'),
  charge_type: z.enum(chargeTypes).describe('The charge the entry belongs to: initial (the first payment), rent (a later period), extension.'),
  period_start: PlacementDate.describe('With lease_id and charge_type, the charge a payer pays (a payment\'s period_start).'),
  lease_id: z.string().uuid().describe('The contract version whose signed terms priced the entry (the lease, or an extension\'s addendum).'),
  version: z.number().int().describe('That version\'s number.'),
  part: z.enum(['rent', 'deposit', 'fees']).describe('The part of the charge, paid by the request\'s payer of it.'),
  payer: z.enum(payers).describe('Who pays the part: the payer of the settled payment that paid it, else the request\'s payer of the part now.'),
  label: z.string().describe('Rent, Pet rent, Utilities, a one-off fee or a deposit.'),
  nights: z.object({ first_night: PlacementDate, last_night: PlacementDate, count: z.number().int() }).nullable()
    .describe('The nights the entry covers (charged, released, restored or reversed); null for a one-off fee or a deposit.'),
  amount: amount('Positive: owed by the payer; negative: taken off.'),
  adjusts: z.string().uuid().nullable().describe('The charge entry a release, restore or reversal changes.'),
  settled_by: z.string().uuid().nullable().describe('The settled payment that paid this part of the charge, if any (null on a payment or refund entry).'),
  payment_id: z.string().uuid().nullable().describe('A payment or refund entry: the payment (payments[].id) the money moved on.'),
  refund_request_id: z.string().uuid().nullable().describe('A refund entry, or the release of a deposit returned or of goodwill: its refund request.'),
  debit_account: z.enum(ledgerAccounts).describe('Double entry: the account of the stay the entry debits with amount (accounts lists them all).'),
  credit_account: z.enum(ledgerAccounts).describe('The account it credits with the same amount: every entry moves money from one account to another.'),
  description: z.string().describe(
    'What the entry is, in one English sentence: the line and its nights (or the charge of a one-off fee or deposit), and the change that posted it ' +
      'on which day, e.g. "Rent 2027-01-25 to 2027-02-03, released by the shortening of 2027-01-10", "Refund to the policyholder of the deposit of the first payment, on 2027-03-02". ' +
      'For people: read the structured fields in code (the wording may be improved).'),
  change_of: PlacementDate.describe(
    'The day of the change that posted the entry (a signing, a shortening, an extension, a lapse, a cancellation, a payment, a refund), by the organisation\'s clock ' +
      '(its sandbox clock in sandbox). posted_at is the wall-clock time; entries posted before this field existed give posted_at\'s UTC day.'),
  balance_after: amount('What the entry\'s payer owes after it, over its entries up to this one (charges and their changes, less payments, plus refunds; a duplicate charge and its automatic refund move nothing): the running balance of that payer. Its last entry ends at charged - paid + refunded of by_payer.'),
  scheduled: z.boolean().describe('A charge, or a change of one, for a rent period that begins after as_of: scheduled, not billed yet (it moves to billed as the period begins). False on payments and refunds.'),
  refund_purpose: z.enum(['owed_back', 'deposit', 'goodwill', 'duplicate']).nullable().describe(
    'A refund entry: what it returns: owed_back (settled beyond what the stay now charges), deposit (a deposit held; its release follows it), ' +
      'goodwill (beyond what was owed back; its release follows it), duplicate (a second charge refunded automatically). Null on other entries.'),
});

const StatementServiceFee = z.object({
  refund_request_id: z.string().uuid(),
  payment_id: z.string().uuid().describe('The payment the refund went back on.'),
  change_of: PlacementDate.describe('The day of the refund, by the organisation\'s clock.'),
  rent_refunded: amount('The rent the refund returned (its refund entries of part rent).'),
  amount: amount('The service fee returned with it (its fee entry): 8 % of that rent, rounded to the cent.'),
  description: z.string().describe('In one English sentence, e.g. "Service fee of 80.00 USD returned to the landlord: 8 % of the 1000.00 USD of rent the refund of 2027-03-02 returned".'),
});

const StatementPayment = z.object({
  id: z.string().uuid(),
  charge_type: z.enum(chargeTypes),
  period_start: z.string().nullable(),
  lease_id: z.string().uuid().nullable(),
  payer: z.enum(payers).nullable(),
  status: z.enum(['succeeded', 'refunded']),
  amount: amount('What the payer paid (gross).'),
  refunded: amount('What came back on it so far (its refund entries).'),
  paid_at: z.string(),
  duplicate_of: z.string().uuid().nullable().describe('A second charge for what another payment paid: refunded automatically, not counted as paid for the stay.'),
});

const StatementTotals = z.object({
  charged: amount('The sum of every entry but payments and refunds: what the stay costs as it now stands, deposits included.'),
  paid: amount('The payment entries: what settled payments paid for the stay (second charges refunded automatically left out).'),
  refunded: amount('The refund entries: what came back on those payments.'),
  due_now: amount('What the checkout asks for now (the pay page and the payment helper charge exactly this).'),
  refund_due: amount('What was settled (paid less refunded) beyond what the stay now charges, part by part (nights released after they were paid, a cancellation): asked of the landlord with POST refund-request, whose default it is.'),
  billed: amount('What is charged for the first payment, extensions and rent periods begun by as_of: charged less scheduled.'),
  scheduled: amount('What is charged for rent periods that begin after as_of (entries with scheduled true): billed as each begins. billed + scheduled = charged.'),
  deposits_held: amount('Deposits paid less deposits returned: what the landlord holds of the payers\' deposits.'),
  deposits_returned: amount('The refund entries of part deposit: deposits given back (a duplicate charge\'s automatic refund aside).'),
});

export const Statement = z
  .object({
    request_id: z.string().uuid(),
    reference: z.string(),
    property_id: z.string().uuid(),
    currency: z.string().nullable().describe('null before a lease is signed (nothing posted).'),
    entries: z.array(StatementEntry).describe('The ledger\'s entries in the order they were posted.'),
    payments: z.array(StatementPayment).describe('Settled payments on the home, oldest first.'),
    totals: StatementTotals,
    by_payer: z.array(StatementTotals.extend({ payer: z.enum(payers) })).describe('The same totals for each payer with anything charged or paid.'),
    as_of: PlacementDate.describe('Today by the organisation\'s clock (its sandbox clock in sandbox): rent periods that begin after it are scheduled.'),
    service_fees_returned: z.array(StatementServiceFee).describe(
      'The service fee each refund of rent returned to the landlord (8 % of the rent it refunded). The landlord\'s cost, not a payer\'s: ' +
        'its entry (kind fee, between landlord_rent and service_fee) is not in entries, moves no payer\'s balance or total, and is not in the CSV.'),
    accounts: z.array(StatementAccount).describe(
      'Every account of the stay\'s ledger with its balance, the service fee\'s entries included: the ledger in double entry. ' +
        'The payer accounts\' balances sum to totals.charged - totals.paid + totals.refunded (a duplicate charge and its refund cancel out).'),
    ale: z.object({
      ale_limit: amount('The request\'s ALE limit.').nullable(),
      ale_consumed: amount('What the stay now charges, deposits aside (they come back): the ALE it consumes.'),
      ale_remaining: amount('The limit less what is consumed; null without a limit.').nullable(),
      within_ale_limit: z.boolean(),
    }),
  })
  .openapi('Statement');
