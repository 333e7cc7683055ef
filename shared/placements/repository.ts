import { db, type Tx } from '../db/client.ts';
import type { Tenant } from '../db/tenant.ts';
import type { ChargeType, Payer } from './billing.ts';
import { isUuid } from '../ids.ts';
import { notFound } from '../domain-errors.ts';
import { lastNight } from './stay.ts';
import type { BudgetReview, LeaseTerms, PricedHome } from './pricing.ts';
import type { LeaseRow } from './lease.ts';
import type { RefundRequestRow, RefundStep } from './money-repository.ts';
import type { ApplicationStatus, LeaseStatus, OfferEvent, OptionStatus } from './states.ts';
import { offerGuard } from './states.ts';

// The placement's SQL: homes on a request (app.claim_homes), budget approvals, household answers,
// contract versions and calendar holds. Everything but leaseByProviderRef (which finds the tenant
// of a callback) runs inside withTenant: row-level security keeps it to the caller's organisation
// and environment; the provider's home is read through app.home_for_request, which answers only
// for the tenant's own request.

export interface PlacementRow {
  id: string;
  claim_id: string;
  property_id: string;
  option_status: OptionStatus;
  application_status: ApplicationStatus;
  lease_status: LeaseStatus | null;
  placed_without_recipient: boolean;
  offered_at: Date | null;
  adjuster_placed_at: Date | null;
  committed_at: Date | null;
  recipient_response: 'saved' | 'rejected' | null;
  decline_reason: string | null;
  applied_at: Date | null;
  application_declined_at: Date | null;
  application_decline_reason: string | null;
  household_link_at: Date | null;
  application_approved_at: Date | null;
  proposed_move_in: string | null;
  proposed_move_out: string | null;
  proposed_at: Date | null;
  signer_name: string | null;
  signer_email: string | null;
  current_lease_id: string | null;
  move_in_date: string | null;
  move_out_date: string | null;
  added_at: Date;
  cancelled_at: Date | null;
}

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

/** The placement of a home on a request (cancelled ones included), optionally locked. */
export async function findPlacement(tx: Tx, claimId: string, propertyId: string, options: { lock?: boolean } = {}): Promise<PlacementRow | null> {
  if (!isUuid(propertyId)) return null;
  const [row] = await tx<PlacementRow[]>`
    select * from app.claim_homes where claim_id = ${claimId} and property_id = ${propertyId}
    ${options.lock ? tx`for update` : tx``}`;
  return row ?? null;
}

export interface ApprovalRow {
  approved: boolean;
  approved_at: Date | null;
  /** The review the decision was made on, as it stood then. */
  figures: BudgetReview;
}

export async function readApproval(tx: Tx, claimId: string, propertyId: string): Promise<ApprovalRow | null> {
  const [row] = await tx<ApprovalRow[]>`
    select approved, approved_at, figures from app.budget_approvals where claim_id = ${claimId} and property_id = ${propertyId}`;
  return row ?? null;
}

/** Records (or withdraws) the budget approval with the figures it concerns. Approving again keeps the first approved_at. */
export async function saveApproval(tx: Tx, claimId: string, propertyId: string, approved: boolean, figures: BudgetReview): Promise<ApprovalRow> {
  const [row] = await tx<ApprovalRow[]>`
    insert into app.budget_approvals (org_id, environment, claim_id, property_id, approved, approved_at, figures)
    values (app.current_org(), app.current_env(), ${claimId}, ${propertyId}, ${approved}, ${approved ? new Date() : null}, ${tx.json(figures as never)})
    on conflict (claim_id, property_id) do update
       set approved = excluded.approved,
           approved_at = case when excluded.approved then coalesce(app.budget_approvals.approved_at, excluded.approved_at) end,
           figures = excluded.figures, updated_at = clock_timestamp()
    returning approved, approved_at, figures`;
  return row;
}

/** Whether the caller's organisation is linked to a billing account (sandbox: always). */
export async function hasBillingAccount(tx: Tx): Promise<boolean> {
  const [row] = await tx<{ linked: boolean }[]>`
    select app.current_env() = 'sandbox' or exists (select 1 from app.carrier_billing_accounts) as linked`;
  return row.linked;
}

/** Puts a home on the request with the offer state given. */
export async function insertPlacement(tx: Tx, tenant: Tenant, claimId: string, propertyId: string, columns: Record<string, unknown>): Promise<PlacementRow> {
  const values = { org_id: tenant.orgId, environment: tenant.environment, claim_id: claimId, property_id: propertyId, ...columns };
  const [row] = await tx<PlacementRow[]>`
    insert into app.claim_homes ${tx(values as never)}
    returning *`;
  return row;
}

/** Moves the offer by `event`, guarded by the states it leaves; null when the row is no longer in one of them. */
export async function moveOffer(tx: Tx, placementId: string, event: OfferEvent, columns: Record<string, unknown>): Promise<PlacementRow | null> {
  const guard = offerGuard(event);
  const [row] = await tx<PlacementRow[]>`
    update app.claim_homes set ${tx(columns as never)}
     where id = ${placementId}
       and (option_status, application_status) in (select * from unnest(${guard.options}::text[], ${guard.applications}::text[]))
    returning *`;
  return row ?? null;
}

/** A cancelled home put on the request again starts over (part 2 cancels). */
export async function reopenPlacement(tx: Tx, placementId: string, columns: Record<string, unknown>): Promise<PlacementRow | null> {
  const [row] = await tx<PlacementRow[]>`
    update app.claim_homes set ${tx({ ...columns, cancelled_at: null } as never)}
     where id = ${placementId} and option_status = 'cancelled'
    returning *`;
  return row ?? null;
}

/** Takes the home off the request (cancel-booking); a placement already cancelled stays as it was. */
export async function cancelPlacement(tx: Tx, placementId: string, reason: string | null): Promise<void> {
  await tx`
    update app.claim_homes set option_status = 'cancelled', cancelled_at = clock_timestamp(), cancel_reason = ${reason}
     where id = ${placementId} and option_status <> 'cancelled'`;
}

/** Updates a placement's own columns (signer, proposal), no state move. */
export async function updatePlacement(tx: Tx, placementId: string, columns: Record<string, unknown>): Promise<PlacementRow> {
  const [row] = await tx<PlacementRow[]>`update app.claim_homes set ${tx(columns as never)} where id = ${placementId} returning *`;
  return row;
}

/** Whether any other home on the request is still in play (not declined or cancelled). */
export async function otherHomesInPlay(tx: Tx, claimId: string, placementId: string): Promise<boolean> {
  const [row] = await tx<{ any: boolean }[]>`
    select exists (select 1 from app.claim_homes where claim_id = ${claimId} and id <> ${placementId}
                    and option_status not in ('declined', 'cancelled') and application_status <> 'declined') as any`;
  return row.any;
}

/** Files a message to the household that did not go out on its placement (append-only: the timeline reads it). */
export async function insertUndeliveredMessage(
  tx: Tx,
  placement: PlacementRow,
  message: { topic: string; reason: 'not_configured' | 'failed'; error: string; attempts: number },
): Promise<void> {
  await tx`
    insert into app.undelivered_messages (org_id, environment, claim_id, property_id, claim_home_id, topic, reason, error, attempts, link_issued_at)
    values (app.current_org(), app.current_env(), ${placement.claim_id}, ${placement.property_id}, ${placement.id}, ${message.topic},
            ${message.reason}, ${message.error}, ${message.attempts}, ${placement.household_link_at})`;
}

export async function recordResponse(
  tx: Tx,
  placementId: string,
  action: 'save' | 'decline' | 'apply' | 'propose_dates',
  fields: { reason?: string; move_in?: string; move_out?: string } = {},
): Promise<void> {
  await tx`
    insert into app.household_responses (org_id, environment, claim_home_id, action, reason, move_in, move_out)
    values (app.current_org(), app.current_env(), ${placementId}, ${action}, ${fields.reason ?? null}, ${fields.move_in ?? null}, ${fields.move_out ?? null})`;
}

/** Closes the open date proposals of a placement: approved, or replaced by other dates. */
export async function resolveProposals(tx: Tx, placementId: string, resolution: 'approved' | 'replaced'): Promise<void> {
  await tx`
    update app.household_responses set resolved_at = clock_timestamp(), resolution = ${resolution}
     where claim_home_id = ${placementId} and action = 'propose_dates' and resolved_at is null`;
}

/**
 * The placement's current contract version, locked (lock 4 of unit-of-work.ts: after the request and
 * the placement) unless `lock` is false (a read, which takes no lock).
 */
export async function currentLease(tx: Tx, placement: PlacementRow, options: { lock?: boolean } = {}): Promise<LeaseRow | null> {
  if (!placement.current_lease_id) return null;
  const [row] = await tx<LeaseRow[]>`
    select * from app.lease_agreements where id = ${placement.current_lease_id} ${options.lock ?? true ? tx`for update` : tx``}`;
  return row ?? null;
}

export async function insertLease(
  tx: Tx,
  placement: PlacementRow,
  lease: Pick<LeaseRow, 'move_in_date' | 'move_out_date' | 'signer_name' | 'signer_email' | 'issued_by' | 'template'> & { version: number; terms: LeaseTerms },
): Promise<LeaseRow> {
  const [row] = await tx<LeaseRow[]>`
    insert into app.lease_agreements (org_id, environment, claim_home_id, claim_id, property_id, version, move_in_date,
                                      move_out_date, signer_name, signer_email, issued_by, template, terms)
    values (app.current_org(), app.current_env(), ${placement.id}, ${placement.claim_id}, ${placement.property_id}, ${lease.version},
            ${lease.move_in_date}, ${lease.move_out_date}, ${lease.signer_name}, ${lease.signer_email}, ${lease.issued_by}, ${lease.template},
            ${tx.json(lease.terms as never)})
    returning *`;
  await tx`
    update app.claim_homes set current_lease_id = ${row.id}, lease_status = ${row.status},
           move_in_date = ${row.move_in_date}, move_out_date = ${row.move_out_date}
     where id = ${placement.id}`;
  return row;
}

export async function linkSuperseded(tx: Tx, oldId: string, newId: string): Promise<void> {
  await tx`update app.lease_agreements set superseded_by = ${newId} where id = ${oldId}`;
}

export async function releaseHolds(tx: Tx, leaseId: string): Promise<void> {
  await tx`select app.release_holds(${leaseId}, app.current_env())`;
}

/**
 * A stay ending earlier, recorded as a change of the stay (app.stay_changes, append-only): the
 * placement takes the new move-out and the tail of the contract's hold is released; the signed
 * contract keeps its own dates.
 */
export async function recordShortening(
  tx: Tx,
  placement: PlacementRow,
  lease: LeaseRow,
  change: { previousMoveOut: string; moveOut: string; refundDueCents: number; currency: string },
): Promise<void> {
  await tx`
    insert into app.stay_changes (org_id, environment, claim_id, claim_home_id, property_id, lease_agreement_id, previous_move_out,
                                  move_out, refund_due_cents, currency)
    values (app.current_org(), app.current_env(), ${placement.claim_id}, ${placement.id}, ${placement.property_id}, ${lease.id},
            ${change.previousMoveOut}, ${change.moveOut}, ${change.refundDueCents}, ${change.currency.toLowerCase()})`;
  await tx`update app.claim_homes set move_out_date = ${change.moveOut} where id = ${placement.id}`;
  await tx`select app.shorten_holds(v.id, app.current_env(), ${lastNight(change.moveOut)}) from ${stayVersions(tx, placement)} v`;
}

/** The stay's move-out now: the lease's, or the one a shortening or an extension in effect set on the placement. */
export const stayMoveOut = (placement: Pick<PlacementRow, 'move_out_date'>, lease: Pick<LeaseRow, 'move_out_date'>) =>
  placement.move_out_date ?? lease.move_out_date;

/** The placement's addendum not yet in effect (an extension waiting for signatures or payment), locked; or null. */
export async function openAddendum(tx: Tx, placementId: string): Promise<LeaseRow | null> {
  const [row] = await tx<LeaseRow[]>`
    select * from app.lease_agreements
     where claim_home_id = ${placementId} and kind = 'addendum' and effective_at is null and status not in ('superseded', 'withdrawn')
     for update`;
  return row ?? null;
}

/**
 * The contract versions whose nights make up the stay now (the live lease and the addenda in
 * effect), as a subquery, so that one statement applies a hold function to all of them.
 */
const stayVersions = (tx: Tx, placement: PlacementRow) => tx`
  (select id from app.lease_agreements
    where claim_home_id = ${placement.id} and (id = ${placement.current_lease_id} or (kind = 'addendum' and effective_at is not null)))`;

/** A cancelled stay: the holds of all its contract versions go. */
export async function releaseStayHolds(tx: Tx, placement: PlacementRow): Promise<void> {
  await tx`select app.release_holds(v.id, app.current_env()) from ${stayVersions(tx, placement)} v`;
}

/** A closed-out stay: the holds of all its contract versions stay as the home's past. */
export async function completeStayHolds(tx: Tx, placement: PlacementRow): Promise<void> {
  await tx`select app.complete_holds(v.id, app.current_env()) from ${stayVersions(tx, placement)} v`;
}

/** The version number of each contract version of the placement, by id. */
export async function versionNumbers(tx: Tx, placementId: string): Promise<Map<string, number>> {
  const rows = await tx<{ id: string; version: number }[]>`select id, version from app.lease_agreements where claim_home_id = ${placementId}`;
  return new Map(rows.map((r) => [r.id, r.version]));
}

/** Every addendum of the placement (its extensions, in any state), newest first. */
export function addendaOf(tx: Tx, placementId: string): Promise<LeaseRow[]> {
  return tx<LeaseRow[]>`select * from app.lease_agreements where claim_home_id = ${placementId} and kind = 'addendum' order by version desc`;
}

/** Writes an extension's addendum: the added nights [moveIn, moveOut) of the signed lease, with its terms. */
export async function insertAddendum(
  tx: Tx,
  placement: PlacementRow,
  lease: LeaseRow,
  addendum: { version: number; moveIn: string; moveOut: string; terms: LeaseTerms },
): Promise<LeaseRow> {
  const [row] = await tx<LeaseRow[]>`
    insert into app.lease_agreements (org_id, environment, claim_home_id, claim_id, property_id, version, move_in_date, move_out_date,
                                      signer_name, signer_email, issued_by, template, terms, kind, extends_lease_id)
    values (app.current_org(), app.current_env(), ${placement.id}, ${placement.claim_id}, ${placement.property_id}, ${addendum.version},
            ${addendum.moveIn}, ${addendum.moveOut}, ${lease.signer_name}, ${lease.signer_email}, 'extension', ${lease.template},
            ${tx.json(addendum.terms as never)}, 'addendum', ${lease.id})
    returning *`;
  return row;
}

/** The highest version number of the placement's contracts (leases and addenda share the numbering). */
export async function latestVersion(tx: Tx, placementId: string): Promise<number> {
  const [row] = await tx<{ version: number }[]>`select coalesce(max(version), 0)::integer as version from app.lease_agreements where claim_home_id = ${placementId}`;
  return row.version;
}

/** An addendum's payment cleared: it takes effect, the stay takes its move-out, and its nights are booked. */
export async function putAddendumInEffect(tx: Tx, placement: PlacementRow, addendum: LeaseRow): Promise<LeaseRow | null> {
  const [row] = await tx<LeaseRow[]>`
    update app.lease_agreements set effective_at = clock_timestamp()
     where id = ${addendum.id} and kind = 'addendum' and status = 'fully_signed' and effective_at is null
    returning *`;
  if (!row) return null;
  await tx`update app.claim_homes set move_out_date = ${row.move_out_date} where id = ${placement.id}`;
  await tx`select app.book_holds(${row.id}, app.current_env())`;
  return row;
}

export interface CallbackLease {
  org_id: string;
  environment: 'live' | 'sandbox';
  claim_id: string;
  property_id: string;
  status: LeaseStatus;
  /** Whether it is the placement's current version, or its open extension's addendum (only those act). */
  current: boolean;
}

/**
 * The contract an e-signature callback names by the provider's reference, across tenants: the
 * callback carries no key, so this read finds the tenant rather than running inside it.
 */
export async function leaseByProviderRef(providerRef: string): Promise<CallbackLease | null> {
  const [lease] = await db()<CallbackLease[]>`
    select l.org_id, l.environment, l.claim_id, l.property_id, l.status,
           h.current_lease_id = l.id or (l.kind = 'addendum' and l.effective_at is null and l.status not in ('superseded', 'withdrawn')) as current
      from app.lease_agreements l join app.claim_homes h on h.id = l.claim_home_id
     where l.provider_ref = ${providerRef}`;
  return lease ?? null;
}

/** Takes the calendar hold of a lease; null when something holds part of the range. */
export async function takeHold(tx: Tx, propertyId: string, start: string, end: string, leaseId: string, reason: string): Promise<string | null> {
  try {
    const [row] = await tx.savepoint((sp) => sp<{ id: string | null }[]>`
      select app.take_hold(${propertyId}, app.current_env(), ${start}, ${end}, ${leaseId}, ${reason}) as id`);
    return row.id;
  } catch (error) {
    // The exclusion constraint: another hold committed in between (range_is_free's lock makes this rare).
    if ((error as { code?: string }).code === '23P01') return null;
    throw error;
  }
}

export interface Conflict {
  start_date: string;
  end_date: string;
  reason: string;
}

export async function rangeConflicts(tx: Tx, propertyId: string, start: string, end: string) {
  return tx<Conflict[]>`
    select start_date, end_date, reason from app.range_conflicts(${propertyId}, app.current_env(), ${start}, ${end})`;
}

/** The holds other requests' stays have on the home over the nights [first, last] (the provider's blocks left out). */
export async function otherStaysConflicts(tx: Tx, propertyId: string, claimId: string, first: string, last: string) {
  return tx<Conflict[]>`
    select start_date, end_date, reason from app.stay_conflicts(${propertyId}, app.current_env(), ${claimId}, ${first}, ${last})`;
}

/** The addresses a placement's messages go to. */
export async function contactAddresses(tx: Tx): Promise<{ team: string | null }> {
  const [row] = await tx<{ team: string | null }[]>`select contact_email as team from app.organisations`;
  return row ?? { team: null };
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

export interface PlacementHomeRow extends PlacementRow, PlacementMoneyJson {
  home: HomeOnRequest;
  budget_approved: boolean;
  leases: (Omit<LeaseRow, 'sent_at' | 'policyholder_signed_at' | 'owner_signed_at' | 'superseded_at' | 'withdrawn_at' | 'created_at'> & {
    sent_at: string | null;
    policyholder_signed_at: string | null;
    owner_signed_at: string | null;
    superseded_at: string | null;
    withdrawn_at: string | null;
  })[];
  payments_succeeded: number;
}

// The booking, charges and refund requests of a placement as placementHomes reads them: to_jsonb
// rows, so timestamps are strings and amounts numbers of cents.

export interface BookingJson {
  id: string;
  booking_status: 'confirmed' | 'cancelled';
  check_in: string;
  check_out: string;
  created_at: string;
  move_in_confirmed_at: string | null;
  cancelled_at: string | null;
}

export interface PaymentJson {
  id: string;
  charge_type: ChargeType;
  payer: Payer | null;
  status: 'pending' | 'succeeded' | 'failed' | 'refunded';
  gross_cents: number;
  platform_fee_cents: number;
  currency: string;
  covers_rent: boolean;
  covers_deposit: boolean;
  period_start: string | null;
  period_end: string | null;
  paid_at: string | null;
  failure_reason: string | null;
  refunded_cents: number;
  refunded_at: string | null;
  duplicate_of: string | null;
}

export interface RefundJson {
  id: string;
  payment_id: string;
  amount_cents: number;
  currency: string;
  covers_deposit: boolean;
  status: RefundRequestRow['status'];
  reason: string | null;
  created_at: string;
  decided_at: string | null;
  refunded_at: string | null;
  automatic: boolean;
  history: RefundStep[];
}

export interface PlacementMoneyJson {
  booking: BookingJson | null;
  payment_rows: PaymentJson[];
  refund_rows: RefundJson[];
}

/** The booking, charges and refund requests of each placement, as JSON columns of placementHomes. */
function placementMoneyColumns(tx: Tx) {
  return tx`
    (select to_jsonb(b) from app.bookings b where b.claim_home_id = h.id order by b.created_at desc limit 1) as booking,
    coalesce((select jsonb_agg(to_jsonb(p) order by p.created_at, p.id) from app.payments p where p.claim_home_id = h.id), '[]') as payment_rows,
    coalesce((select jsonb_agg(to_jsonb(r) order by r.created_at, r.id) from app.refund_requests r where r.claim_home_id = h.id), '[]') as refund_rows`;
}

/** Every home on the request with its home labels, approval, contract versions (oldest first) and cleared payments. */
export async function placementHomes(tx: Tx, claimId: string, propertyId?: string): Promise<PlacementHomeRow[]> {
  return tx<PlacementHomeRow[]>`
    with homes as (select * from app.homes_on_request(${claimId}))
    select h.*,
           (select to_jsonb(x) from homes x where x.id = h.property_id) as home,
           coalesce((select a.approved from app.budget_approvals a where a.claim_id = h.claim_id and a.property_id = h.property_id), false) as budget_approved,
           coalesce((select jsonb_agg(to_jsonb(l) order by l.version) from app.lease_agreements l where l.claim_home_id = h.id), '[]') as leases,
           (select count(*)::integer from app.payments p
             where p.claim_home_id = h.id and p.status in ('succeeded', 'refunded') and p.duplicate_of is null) as payments_succeeded,
           ${placementMoneyColumns(tx)}
      from app.claim_homes h
     where h.claim_id = ${claimId} ${propertyId ? tx`and h.property_id = ${propertyId}` : tx``}
     order by h.added_at, h.id`;
}

export interface HomeUnderContract {
  property_id: string;
  status: LeaseStatus;
  move_in_date: string | null;
}

/** Homes on the request with a live contract version (not superseded or withdrawn), not cancelled. */
export function homesUnderContract(tx: Tx, claimId: string): Promise<HomeUnderContract[]> {
  return tx<HomeUnderContract[]>`
    select h.property_id, l.status, l.move_in_date
      from app.claim_homes h join app.lease_agreements l on l.id = h.current_lease_id
     where h.claim_id = ${claimId} and h.option_status <> 'cancelled' and l.status not in ('superseded', 'withdrawn')
     order by h.added_at, h.id`;
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
