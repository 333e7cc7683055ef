import { conflict } from '../../domain-errors.ts';
import type { HouseholdLink } from '../pay-link.ts';
import { findOption } from '../option-repository.ts';
import { inPlacementById } from '../unit-of-work.ts';
import { householdAnswers, type HouseholdAnswer } from './answers.ts';
import { assertLinkStillOpens } from './household-link.ts';
import { viewOf, type HouseholdView } from './household-page.ts';

// The household answers on its page: the same command as the sandbox household helper (./answers.ts).

/** The household answers on its page: the same command as the sandbox helper; the page after it. */
export async function householdPageAnswer(link: HouseholdLink, answer: HouseholdAnswer): Promise<HouseholdView | null> {
  return inPlacementById(link, link.placementId, async ({ tx, claim, placement }) => {
    await assertLinkStillOpens(claim, placement, link);
    if (answer.action === 'sign') throw conflict('option_not_open', 'The lease is signed through the e-signature email, not here.');
    await householdAnswers(tx, claim, placement, answer);
    return viewOf(tx, claim, (await findOption(tx, claim.id, placement.property_id))!);
  });
}
