import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../db/tenant.ts';
import { conflict, invalid, unavailable } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import { tenantNow } from '../../clock/time.ts';
import { config } from '../../config.ts';
import { contactDigest, householdPageUrl, PayLinkRejected, signHouseholdLink, type HouseholdLink } from '../pay-link.ts';
import { updateOption, type OptionRow } from '../option-repository.ts';
import { inPlacement } from '../unit-of-work.ts';
import type { EmailMessage } from '../ports/types.ts';
import { emailSettingsMissing } from '../ports/index.ts';
import { recordUndeliveredLink } from '../undelivered.ts';
import { escapeHtml } from '../../html.ts';
import { chooseLanguage } from '../../i18n/index.ts';
import { chargeParts, payerOf } from '../billing.ts';

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
export async function issueHouseholdLink(tx: Tx, claim: ClaimRow, placement: OptionRow): Promise<{ issuedAt: Date; delivery: LinkDelivery }> {
  if (!claim.household_email) {
    throw invalid('could_not_place', 'The request has no household_email to send the link to (add it with PATCH /claims/{reference}).', 'household_email');
  }
  const issuedAt = await tenantNow(tx);
  const updated = await updateOption(tx, placement.id, { household_link_at: issuedAt });
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

function assertSentToHousehold(placement: OptionRow): void {
  if (placement.placed_without_recipient || !placement.offered_at) {
    throw conflict('option_not_open', 'This home was not sent to the household (POST options with action send).');
  }
  if (placement.option_status === 'cancelled') throw conflict('option_not_open', 'This home was cancelled on the request.');
}

/** The household's link of the current issue, signed now (the email job, and the sandbox helper). */
export async function currentHouseholdLink(tx: Tx, orgId: string, claim: ClaimRow, placement: OptionRow) {
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
export async function assertLinkStillOpens(claim: ClaimRow, placement: OptionRow, link: HouseholdLink): Promise<void> {
  const sameIssue = placement.household_link_at?.getTime() === link.issue;
  const sameContact = claim.household_email !== null && (await contactDigest(claim.household_email)) === link.sentTo;
  if (!sameIssue || !sameContact || placement.placed_without_recipient) {
    throw new PayLinkRejected('replaced', 'A newer link was sent for this home, or it went to another address.');
  }
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
