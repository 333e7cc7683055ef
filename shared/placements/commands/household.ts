import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../db/tenant.ts';
import { conflict, DomainError, invalid, unavailable } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { tenantNow } from '../../clock/time.ts';
import { config } from '../../config.ts';
import { contactDigest, householdPageUrl, PayLinkRejected, signHouseholdLink, signPayLink, type HouseholdLink } from '../pay-link.ts';
import { currentLease, findPlacement, homeForRequest, homeListing, updatePlacement, type HomeListing, type PlacementRow } from '../repository.ts';
import { inPlacement, inPlacementById } from '../unit-of-work.ts';
import { householdAnswers, type HouseholdAnswer } from './answers.ts';
import type { EmailMessage } from '../ports/types.ts';
import { emailSettingsMissing, placementPorts } from '../ports/index.ts';
import { recordUndeliveredLink } from '../undelivered.ts';
import { escapeHtml } from '../../html.ts';
import { chooseLanguage } from '../../i18n/index.ts';
import { isBooked } from '../money-repository.ts';
import { chargeParts, partCents, payerOf, type ChargePart } from '../billing.ts';
import { toCents } from '../../money.ts';
import { reviewOf } from './budget.ts';
import { payable } from './payments.ts';

// The household's side of the send flow in live: the carrier sends a home (POST options, action
// send), the household is emailed a signed link to a page of its own (functions/household), and
// there saves the home, declines it with a reason, proposes other dates or applies. Each answer runs
// the same command as the sandbox household helper (./answers.ts), so the two cannot drift.
//
// The link is the household's login to that one home: it names the placement, the issue it belongs
// to and a digest of the address it went to. A re-send issues it anew (older links stop working);
// a household contact changed on the request stops it too; it expires (HOUSEHOLD_LINK_TTL_SECONDS).
// The link is signed when the email goes out, by the job, and is stored nowhere.

/** What became of the household's link at once: queued to go out, or not sent (the deployment has no email). */
export type LinkDelivery = 'queued' | 'not_configured';

/**
 * Issues the household's link anew (every older one stops working) and queues its email. A live
 * deployment without email settings queues nothing: it files the link as undelivered on the
 * placement (timeline and event) and says so, rather than let a job fail where nobody looks.
 */
export async function issueHouseholdLink(tx: Tx, claim: ClaimRow, placement: PlacementRow): Promise<{ issuedAt: Date; delivery: LinkDelivery }> {
  if (!claim.household_email) {
    throw invalid('could_not_place', 'The request has no household_email to send the link to (add it with PATCH /claims/{reference}).', 'household_email');
  }
  const issuedAt = await tenantNow(tx);
  const updated = await updatePlacement(tx, placement.id, { household_link_at: issuedAt });
  const missing = emailSettingsMissing(claim.environment);
  if (missing.length > 0) {
    await recordUndeliveredLink(tx, claim, updated, { reason: 'not_configured', error: emailNotConfigured(missing), attempts: 0 });
    return { issuedAt: updated.household_link_at!, delivery: 'not_configured' };
  }
  await enqueue(tx, 'send_household_link', { placement_id: placement.id }, { dedupeKey: `${placement.id}:${issuedAt.getTime()}` });
  return { issuedAt: updated.household_link_at!, delivery: 'queued' };
}

const emailNotConfigured = (missing: string[]) => `email is not configured on this deployment: set ${missing.join(' and ')}`;

/**
 * POST /claims/{reference}/options/{propertyId}/household-link: the link again, to the household.
 * Refused when nothing could go out (email not configured), so that no answer names an address
 * nothing was sent to; the earlier link, if any, keeps working.
 */
export async function resendHouseholdLink(caller: Caller, reference: string, propertyId: string) {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    assertSentToHousehold(placement);
    const missing = emailSettingsMissing(claim.environment);
    if (missing.length > 0) {
      throw unavailable('not_configured', `Nothing was sent: ${emailNotConfigured(missing)} (an operator's setting). Send the link again once it is set.`);
    }
    const { issuedAt } = await issueHouseholdLink(tx, claim, placement);
    return { property_id: placement.property_id, sent_to: claim.household_email!, link_issued_at: issuedAt.toISOString() };
  });
}

function assertSentToHousehold(placement: PlacementRow): void {
  if (placement.placed_without_recipient || !placement.offered_at) {
    throw conflict('option_not_open', 'This home was not sent to the household (POST options with action send).');
  }
  if (placement.option_status === 'cancelled') throw conflict('option_not_open', 'This home was cancelled on the request.');
}

/** The household's link of the current issue, signed now (the email job, and the sandbox helper). */
export async function currentHouseholdLink(tx: Tx, orgId: string, claim: ClaimRow, placement: PlacementRow) {
  assertSentToHousehold(placement);
  if (!placement.household_link_at || !claim.household_email) throw conflict('option_not_open', 'No link was issued to the household for this home.');
  const now = await tenantNow(tx);
  const token = await signHouseholdLink({
    placementId: placement.id,
    orgId,
    environment: claim.environment,
    issue: placement.household_link_at.getTime(),
    sentTo: await contactDigest(claim.household_email),
  }, now);
  return { url: householdPageUrl(token), to: claim.household_email, expires_at: new Date(now.getTime() + config.householdLinkTtlSeconds() * 1000).toISOString() };
}

/** GET /sandbox/claims/{reference}/homes/{propertyId}/household-link: what the household's email links to. */
export async function sandboxHouseholdLink(caller: Caller, reference: string, propertyId: string) {
  return inPlacement(caller, { reference, propertyId }, async ({ tx, claim, placement }) => {
    const { url, expires_at } = await currentHouseholdLink(tx, caller.orgId, claim, placement);
    return { url, expires_at };
  }, { lock: false });
}

/** Why a verified link does not open its placement: another issue, another contact, another flow. */
async function assertLinkStillOpens(claim: ClaimRow, placement: PlacementRow, link: HouseholdLink): Promise<void> {
  const sameIssue = placement.household_link_at?.getTime() === link.issue;
  const sameContact = claim.household_email !== null && (await contactDigest(claim.household_email)) === link.sentTo;
  if (!sameIssue || !sameContact || placement.placed_without_recipient) {
    throw new PayLinkRejected('replaced', 'A newer link was sent for this home, or it went to another address.');
  }
}

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

function stateOf(placement: PlacementRow, leaseStatus: string | null, booked: boolean): HouseholdState {
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
function actionsOf(state: HouseholdState, placement: PlacementRow): HouseholdAnswer['action'][] {
  if (state !== 'proposed' || placement.application_status === 'not_applied') return actionsFor[state];
  return placement.application_status === 'applied' ? ['decline'] : [];
}

/** The household's own share of what is due now, or null (nothing of its own due, or not payable yet). */
async function householdDue(tx: Tx, claim: ClaimRow, placement: PlacementRow): Promise<HouseholdDue | null> {
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
async function moneyOf(tx: Tx, claim: ClaimRow, placement: PlacementRow): Promise<HouseholdMoney | null> {
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

async function viewOf(tx: Tx, claim: ClaimRow, placement: PlacementRow): Promise<HouseholdView> {
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

/** The household answers on its page: the same command as the sandbox helper; the page after it. */
export async function householdPageAnswer(link: HouseholdLink, answer: HouseholdAnswer): Promise<HouseholdView | null> {
  return inPlacementById(link, link.placementId, async ({ tx, claim, placement }) => {
    await assertLinkStillOpens(claim, placement, link);
    if (answer.action === 'sign') throw conflict('option_not_open', 'The lease is signed through the e-signature email, not here.');
    await householdAnswers(tx, claim, placement, answer);
    return viewOf(tx, claim, (await findPlacement(tx, claim.id, placement.property_id))!);
  });
}

/**
 * The household's email, in its language (the request's household_language; English when not
 * stated): the one action expected, and the link; plain text and HTML. The link names the language,
 * so the page and its problem pages (an expired link) read in it before the request is.
 */
export function householdLinkEmail(link: { url: string; to: string; expires_at: string }, home: string, claim: ClaimRow): EmailMessage {
  const reference = claim.claim_ref;
  const w = chooseLanguage({ stated: claim.household_language });
  const { email } = w.m;
  const url = claim.household_language ? `${link.url}?lang=${encodeURIComponent(claim.household_language)}` : link.url;
  // Where the request names the policyholder as a payer, the page says what the household pays itself.
  const pays = chargeParts.some((part) => payerOf(claim)[part] === 'policyholder') ? email.insurerPaysExcept : email.insurerPays;
  const until = email.until(w.date(link.expires_at), reference);
  return {
    to: [link.to],
    subject: email.subject(home),
    text: `${email.found(home)}\n\n${email.open}\n${url}\n\n${pays} ${until}`,
    html:
      `<p>${escapeHtml(email.found(home))}</p>` +
      `<p><a href="${escapeHtml(url)}">${escapeHtml(email.link)}</a> ${escapeHtml(email.linkAfter)}</p>` +
      `<p>${escapeHtml(`${pays} ${until}`)}</p>`,
    topic: 'home.offered',
  };
}

/**
 * The signed lease, for the household to keep: fetched from the e-signature provider when asked (the
 * sandbox's stand-in PDF in sandbox). Null when the lease is not signed by both yet.
 */
export async function householdLease(link: HouseholdLink): Promise<{ pdf: Uint8Array; reference: string } | null> {
  const signed = await inPlacementById(link, link.placementId, async ({ tx, claim, placement }) => {
    await assertLinkStillOpens(claim, placement, link);
    const lease = await currentLease(tx, placement);
    return lease?.status === 'fully_signed' && lease.provider_ref ? { providerRef: lease.provider_ref, reference: claim.claim_ref } : null;
  }, { lock: false });
  if (!signed) return null;
  return { pdf: await placementPorts(link.environment).esign.signedDocument(signed.providerRef), reference: signed.reference };
}
