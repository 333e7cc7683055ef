import { payPageUrl, signPayLink } from '../pay-link.ts';
import { NotConfigured } from '../ports/provider.ts';
import { log } from '../../log.ts';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../db/tenant.ts';
import { inRequest } from '../unit-of-work.ts';
import { tenantNow } from '../../clock/time.ts';
import { renderPlacementHome } from '../render.ts';
import { placementHomes, type PlacementHomeRow } from '../repository.ts';
import { chargeParts, payerOf, type Payer } from '../billing.ts';

// GET /claims/{reference}/placement: the request's status and every home on it.

export async function readPlacement(caller: Caller, reference: string) {
  return inRequest(caller, reference, async ({ tx, claim }) => {
    const homes = await placementHomes(tx, claim.id);
    const payee = payingHome(homes);
    const now = await tenantNow(tx);
    // One link per payer the request names (rent's, deposits', fees'), each taking its own share only.
    const named = [...new Set(chargeParts.map((part) => payerOf(claim)[part]))];
    const links = payee ? await Promise.all(named.map(async (payer) => ({ payer, url: await payLinkOrNull(payee, payer, caller, now) }))) : [];
    return {
      request_id: claim.id,
      reference: claim.claim_ref,
      status: claim.status_primary,
      homes: homes.map(renderPlacementHome),
      pay_in_app_url: payee ? await payLinkOrNull(payee, 'carrier', caller, now) : null,
      pay_links: links.filter((link): link is { payer: Payer; url: string } => link.url !== null),
    };
  });
}

/** A payer's pay page address, or null (and a warning in the log) while signed links are not configured. */
async function payLinkOrNull(home: PlacementHomeRow, payer: Payer, caller: Caller, now: Date): Promise<string | null> {
  try {
    const link = { placementId: home.id, orgId: caller.orgId, environment: caller.environment, leaseId: home.current_lease_id, payer };
    return payPageUrl(await signPayLink(link, now));
  } catch (error) {
    if (!(error instanceof NotConfigured)) throw error;
    log.warn('pay_in_app_url left out', { error: error.message });
    return null;
  }
}

/**
 * The home the pay page is for: the booked one, else the one furthest along its lease (a fully
 * signed lease first), else the latest home still in play; null when none is.
 */
function payingHome(homes: PlacementHomeRow[]): PlacementHomeRow | null {
  const inPlay = homes.filter((h) => h.option_status !== 'cancelled' && h.option_status !== 'declined');
  // With none in play, a stay cancelled once moved in: it may still owe the nights used before its
  // cancellation, and its pay page says whether anything is left to pay.
  const owing = homes.filter((h) => h.option_status === 'cancelled' && h.booking?.move_in_confirmed_at);
  const rank = (h: PlacementHomeRow) =>
    (h.booking?.booking_status === 'confirmed' ? 10 : 0) + ['awaiting_lease', 'sent_for_signature', 'policyholder_signed', 'fully_signed'].indexOf(h.lease_status ?? '') + 1;
  return (inPlay.length > 0 ? inPlay : owing).reduce<PlacementHomeRow | null>((best, h) => (!best || rank(h) >= rank(best) ? h : best), null);
}

/** One home on a request as rendered, read in the caller's transaction (the sandbox helpers' answer). */
export async function placementHome(tx: Tx, claimId: string, propertyId: string) {
  const [row] = await placementHomes(tx, claimId, propertyId);
  return renderPlacementHome(row);
}
