import { ApiError } from '../../http/errors.ts';
import type { ESignaturePort, SignatureCallback } from '../ports/types.ts';
import { answer, sign } from './answers.ts';
import { leaseByProviderRef } from '../repository.ts';

// A verified callback of the live e-signature provider, applied as the counterpart's own action.
// The contract is found by the provider's reference across tenants (the callback carries no key),
// then the command runs in the tenant transaction of its request, like every other answer.
// Only the live version acts: a signature on a superseded contract is acknowledged and ignored, and
// a repeated callback (already applied) is acknowledged without a second move. A signature is applied
// only when the provider's own record of the document (read again, not the callback's body) says so.

export async function applySignatureCallback(callback: SignatureCallback, port: Pick<ESignaturePort, 'hasSigned'>): Promise<{ applied: boolean; note?: string }> {
  const lease = await leaseByProviderRef(callback.providerRef);
  if (!lease || lease.environment !== 'live') return { applied: false, note: 'unknown contract' };
  if (!lease.current) return { applied: false, note: `contract ${lease.status}` };
  if (callback.kind === 'declined') return { applied: false, note: 'a refusal to sign is left to the placement team' };
  // The callback's word is checked against the provider's own record of the document.
  if (!(await port.hasSigned(callback.providerRef, callback.role))) return { applied: false, note: 'not signed at the provider' };
  try {
    await answer({ orgId: lease.org_id, environment: lease.environment }, lease.claim_id, lease.property_id, (tx, claim, placement) =>
      sign(tx, claim, placement, callback.role));
    return { applied: true };
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return { applied: false, note: error.message };
    throw error;
  }
}
