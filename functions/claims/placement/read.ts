import { config } from '../../../shared/config.ts';
import type { Tx } from '../../../shared/db/client.ts';
import { withTenant } from '../../../shared/db/tenant.ts';
import type { Caller } from '../../../shared/http/context.ts';
import { findClaim } from '../repository.ts';
import { renderPlacementHome } from './render.ts';
import { placementHomes } from './repository.ts';

// GET /claims/{reference}/placement: the request's status and every home on it.

export async function readPlacement(caller: Caller, reference: string) {
  return withTenant(caller, async (tx) => {
    const claim = await findClaim(tx, reference);
    const homes = await placementHomes(tx, claim.id);
    return {
      request_id: claim.id,
      reference: claim.claim_ref,
      status: claim.status_primary,
      homes: homes.map(renderPlacementHome),
      pay_in_app_url: `${config.payInAppBaseUrl()}/requests/${claim.claim_ref}`,
    };
  });
}

/** One home on a request as rendered, read in the caller's transaction (the sandbox helpers' answer). */
export async function placementHome(tx: Tx, claimId: string, propertyId: string) {
  const [row] = await placementHomes(tx, claimId, propertyId);
  return renderPlacementHome(row);
}
