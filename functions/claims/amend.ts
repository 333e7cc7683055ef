import type { Tx } from '../../shared/db/client.ts';
import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { invalid } from '../../shared/domain-errors.ts';
import { initialStatus } from '../../shared/claims/status.ts';
import { toCents } from '../../shared/money.ts';
import { canonicalLanguage } from '../../shared/values.ts';
import { findClaim, type ClaimRow } from '../../shared/claims/repository.ts';
import { insertAmendment, toClaim, updateClaim } from './repository.ts';
import { optionsUnderContract, type OptionUnderContract } from '../../shared/placements/option-repository.ts';
import { hasCandidate } from '../../shared/claims/sourcing-repository.ts';
import type { AmendClaimInput } from './schemas.ts';
import { homesFound } from '../../shared/claims/sourcing.ts';

// Amending a housing request: the pet rules against the stored request, the change itself, its
// record for the timeline (request.amended), and the note about placements already in flight (which
// an amendment never touches).

const petDetails = ['number_of_pets', 'pet_details', 'pet_breeds'] as const;

/** The pet rules of the specification, given the request as stored. Returns the pet columns to write. */
function petChanges(body: AmendClaimInput, claim: ClaimRow): Record<string, unknown> {
  const sent = petDetails.filter((f) => body[f] !== undefined);
  if (body.has_pets === true) {
    const missing = petDetails.find((f) => body[f] === undefined);
    if (missing) throw invalid('invalid_field', `${missing}: is required with has_pets: true (send number_of_pets, pet_details and pet_breeds in the same change).`, missing);
    return { has_pets: true, ...Object.fromEntries(sent.map((f) => [f, body[f]])) };
  }
  if (body.has_pets === false) {
    if (sent.length) throw invalid('invalid_field', `${sent[0]}: cannot be sent with has_pets: false, which clears the pet detail.`, sent[0]);
    return { has_pets: false, number_of_pets: null, pet_details: null, pet_breeds: null };
  }
  if (sent.length && !claim.has_pets) {
    throw invalid('invalid_field', 'has_pets: send has_pets: true with number_of_pets, pet_details and pet_breeds; this request has no pets.', 'has_pets');
  }
  return Object.fromEntries(sent.map((f) => [f, body[f]]));
}

/** The columns an amendment writes: money to cents, pets by their rules, the rest as sent. */
function changesOf(body: AmendClaimInput, claim: ClaimRow): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || field === 'has_pets' || (petDetails as readonly string[]).includes(field)) continue;
    if (field === 'max_budget' || field === 'ale_limit') changes[`${field}_cents`] = value === null ? null : toCents(value as number);
    else if (field === 'household_language') changes[field] = value === null ? null : canonicalLanguage(value as string);
    else changes[field] = value;
  }
  return { ...changes, ...petChanges(body, claim) };
}

/**
 * Fields whose values identify or describe people: the household's and the adjuster's contact
 * details, the household's accessibility needs (health) and the free-text pet description (which may
 * name anyone). The amendment record lists them by name only and never keeps their values.
 */
const personalFields: ReadonlySet<string> = new Set([
  'household_email', 'household_phone', 'adjuster_name', 'adjuster_email', 'adjuster_phone', 'accessibility_needs', 'pet_details',
]);

/**
 * Records what the amendment changed (fields that were sent, or cleared with the pets, whose value
 * as the API renders it differs): every changed field by name, and from/to of the non-personal ones.
 * An amendment that changed nothing records nothing.
 */
async function recordAmendment(tx: Tx, body: AmendClaimInput, before: ClaimRow, after: ClaimRow): Promise<void> {
  const [was, now] = [toClaim(before), toClaim(after)] as Record<string, unknown>[];
  const sent = Object.keys(body).filter((field) => body[field as keyof AmendClaimInput] !== undefined);
  const candidates = body.has_pets === undefined ? sent : [...new Set([...sent, ...petDetails])];
  const fields = candidates.filter((field) => JSON.stringify(was[field]) !== JSON.stringify(now[field]));
  if (fields.length === 0) return;
  const changes = Object.fromEntries(fields.filter((f) => !personalFields.has(f)).map((f) => [f, { from: was[f], to: now[f] }]));
  await insertAmendment(tx, before.id, fields, changes);
}

export interface PlacementInProgress {
  note: string;
  homes: OptionUnderContract[];
}

/** The homes under contract: the placements in flight. */
async function placementInProgress(tx: Tx, claim: ClaimRow): Promise<PlacementInProgress | undefined> {
  const homes = await optionsUnderContract(tx, claim.id);
  if (homes.length === 0) return undefined;
  return {
    note:
      'A placement is in flight. These homes keep their lease and calendar holds: changed needs apply to matching only. ' +
      `To replace one, cancel it (POST /claims/${claim.claim_ref}/cancel-booking) and place again.`,
    homes,
  };
}

export async function amendClaim(caller: Caller, reference: string, body: AmendClaimInput) {
  return withTenant(caller, async (tx) => {
    const claim = await findClaim(tx, reference, { lock: true });
    const amended = await updateClaim(tx, claim.id, changesOf(body, claim));
    await recordAmendment(tx, body, claim, amended);
    let row = amended;
    // Needs apply to matching at once: a fresh request that now has homes moves on.
    if (row.status_primary === initialStatus) {
      if ((await hasCandidate(tx, claim.id)) && (await homesFound(tx, [claim.id])).length) row = await findClaim(tx, claim.id);
    }
    return { row, placementInProgress: await placementInProgress(tx, row) };
  });
}
