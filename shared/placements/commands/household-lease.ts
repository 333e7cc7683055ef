import type { HouseholdLink } from '../pay-link.ts';
import { currentLease } from '../contract-repository.ts';
import { inPlacementById } from '../unit-of-work.ts';
import { placementPorts } from '../ports/index.ts';
import { assertLinkStillOpens } from './household-link.ts';

// The signed lease, downloaded from the household's page.

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
