import type { Tx } from '../../db/client.ts';
import { DomainError } from '../../domain-errors.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { tenantNow } from '../../clock/time.ts';
import { PayLinkRejected, signPayLink, type HouseholdLink } from '../pay-link.ts';
import { currentLease } from '../contract-repository.ts';
import type { OptionRow } from '../option-repository.ts';
import { homeForRequest, homeListing, type HomeListing } from '../listing-repository.ts';
import { inPlacementById } from '../unit-of-work.ts';
import type { HouseholdAnswer } from './answers.ts';
import { isBooked } from '../booking-repository.ts';
import { chargeParts, partCents, payerOf, type ChargePart } from '../billing.ts';
import { toCents } from '../../money.ts';
import { reviewOf } from './budget.ts';
import { payable } from './payments.ts';
import { assertLinkStillOpens } from './household-link.ts';

// The household's page (functions/household): what it shows for a verified link, in which language
// an expired link's page reads, and the household's own pay link.

export type HouseholdState = 'open' | 'saved' | 'applied' | 'approved' | 'declined' | 'landlord_declined' | 'proposed' | 'signing' | 'signed' | 'booked' | 'cancelled';

/**
 * The money of the stay as the budget review prices it (the signed terms once both signed, else the
 * home's rates over the dates): what each part costs, in cents of `currency`. `fees` is what the
 * first payment charges of them (one-off fees, and the first month's pet rent and utilities).
 */
export interface HouseholdMoney {
  currency: string;
  rentPerMonth: number;
  feesFirst: number;
  deposits: number;
}

/** The household's own share due now (the request names the policyholder as a payer of it): its amount and parts. */
export interface HouseholdDue {
  cents: number;
  parts: ChargePart[];
}

export interface HouseholdView {
  environment: 'live' | 'sandbox';
  reference: string;
  /** The request's household_language (BCP 47), or null when not stated. */
  language: string | null;
  home: HomeListing;
  state: HouseholdState;
  /** The request's hopes: when, and for how long. */
  wanted: { move_in: string; months: number };
  proposal: { move_in: string; move_out: string } | null;
  stay: { move_in: string; move_out: string; lease_status: string } | null;
  declineReason: string | null;
  landlordReason: string | null;
  /** The parts of each charge the household pays itself (the request names the policyholder as their payer); empty when the insurer pays all. */
  householdPays: ChargePart[];
  /** The answers the page offers now. */
  actions: HouseholdAnswer['action'][];
  /** What the stay costs and who pays it; null once the home is no longer listed for the request. */
  money: HouseholdMoney | null;
  /** What the household owes now (it pays it from its page); null when nothing of its own is due. */
  due: HouseholdDue | null;
}

function stateOf(placement: OptionRow, leaseStatus: string | null, booked: boolean): HouseholdState {
  if (placement.option_status === 'cancelled') return 'cancelled';
  if (placement.option_status === 'declined') return 'declined';
  if (placement.application_status === 'declined') return 'landlord_declined';
  if (booked) return 'booked';
  if (leaseStatus === 'fully_signed') return 'signed';
  if (leaseStatus) return 'signing';
  if (placement.proposed_at) return 'proposed';
  if (placement.application_status === 'approved_to_lease') return 'approved';
  if (placement.application_status === 'applied') return 'applied';
  return placement.option_status === 'saved' ? 'saved' : 'open';
}

const actionsFor: Record<HouseholdState, HouseholdAnswer['action'][]> = {
  open: ['save', 'apply', 'propose_dates', 'decline'],
  saved: ['apply', 'propose_dates', 'decline'],
  applied: ['propose_dates', 'decline'],
  approved: ['propose_dates'],
  // Proposing dates does not apply: a household that proposed first still applies (or declines).
  proposed: ['apply', 'decline'],
  declined: [],
  landlord_declined: [],
  signing: [],
  signed: [],
  booked: [],
  cancelled: [],
};

/** What the state offers, less what the application already did: one that applied cannot apply again. */
function actionsOf(state: HouseholdState, placement: OptionRow): HouseholdAnswer['action'][] {
  if (state !== 'proposed' || placement.application_status === 'not_applied') return actionsFor[state];
  return placement.application_status === 'applied' ? ['decline'] : [];
}

/** The household's own share of what is due now, or null (nothing of its own due, or not payable yet). */
async function householdDue(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<HouseholdDue | null> {
  let state;
  try {
    state = await payable(tx, claim, placement);
  } catch (error) {
    // Not signed by both yet, or the landlord cannot take charges: nothing to pay from the page.
    if (error instanceof DomainError) return null;
    throw error;
  }
  const own = state.due?.shares.find((share) => share.payer === 'policyholder');
  return own ? { cents: own.split.grossCents, parts: chargeParts.filter((part) => partCents(own, part) > 0) } : null;
}

/** The stay's money, or null when the home is no longer one the request may see (its provider took it down). */
async function moneyOf(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<HouseholdMoney | null> {
  let home;
  try {
    home = await homeForRequest(tx, claim.id, placement.property_id);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return null;
    throw error;
  }
  const review = await reviewOf(tx, claim, home);
  return {
    currency: review.currency,
    rentPerMonth: toCents(review.monthly.rent_tier),
    feesFirst: toCents(review.monthly.pet_rent + review.monthly.utilities + review.one_off.total),
    deposits: toCents(review.deposits.total),
  };
}

export async function viewOf(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<HouseholdView> {
  const [home, lease, booked, money] = await Promise.all([
    homeListing(tx, claim.id, placement.property_id), currentLease(tx, placement), isBooked(tx, placement.id), moneyOf(tx, claim, placement),
  ]);
  const state = stateOf(placement, lease?.status ?? null, booked);
  const householdPays = chargeParts.filter((part) => payerOf(claim)[part] === 'policyholder');
  return {
    environment: claim.environment,
    reference: claim.claim_ref,
    language: claim.household_language,
    home: home!,
    state,
    wanted: { move_in: claim.target_move_in, months: claim.est_length_months },
    proposal: placement.proposed_move_in ? { move_in: placement.proposed_move_in, move_out: placement.proposed_move_out! } : null,
    stay: lease ? { move_in: lease.move_in_date, move_out: placement.move_out_date ?? lease.move_out_date, lease_status: lease.status } : null,
    declineReason: placement.decline_reason,
    landlordReason: placement.application_decline_reason,
    householdPays,
    actions: actionsOf(state, placement),
    money,
    due: householdPays.length > 0 && state !== 'cancelled' ? await householdDue(tx, claim, placement) : null,
  };
}

/**
 * The language of the household an authentic but expired link was sent to (its request's
 * household_language), so that the page saying so reads in it, also when the link carries no
 * `?lang=` (the sandbox helper's) or a sandbox clock moved past it. Null when not stated or gone.
 */
export async function expiredLinkLanguage(names: NonNullable<PayLinkRejected['names']>): Promise<string | null> {
  const language = await inPlacementById({ orgId: names.orgId, environment: names.environment }, names.placementId,
    async ({ claim }) => claim.household_language, { lock: false });
  return language ?? null;
}

/** What the household's page shows for a verified link; null when its placement is gone. */
export async function householdView(link: HouseholdLink): Promise<HouseholdView | null> {
  return inPlacementById(link, link.placementId, async ({ tx, claim, placement }) => {
    await assertLinkStillOpens(claim, placement, link);
    return viewOf(tx, claim, placement);
  }, { lock: false });
}

/**
 * The household's own pay link (its page's Pay button): a pay link for the policyholder's share,
 * signed now, so the household pays what it owes on the pay page as any payer does, without waiting
 * for its insurer to forward one. Null when nothing of its own is due now.
 */
export async function householdPayLink(link: HouseholdLink): Promise<string | null> {
  return inPlacementById(link, link.placementId, async ({ tx, claim, placement }) => {
    await assertLinkStillOpens(claim, placement, link);
    if (placement.option_status === 'cancelled' || !(await householdDue(tx, claim, placement))) return null;
    return signPayLink({ placementId: placement.id, orgId: link.orgId, environment: link.environment, leaseId: placement.current_lease_id, payer: 'policyholder' }, await tenantNow(tx));
  }, { lock: false });
}
