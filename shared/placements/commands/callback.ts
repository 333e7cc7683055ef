import { withTenant } from '../../db/tenant.ts';
import { isDomainError } from '../../domain-errors.ts';
import { enqueue } from '../../jobs/queue.ts';
import { signingOrder, type ContractNotice, type ESignaturePort } from '../ports/types.ts';
import { answer, sign } from './answers.ts';
import { leaseByProviderRef } from '../repository.ts';

// The live e-signature provider's callbacks. Documenso authenticates them by a static secret, not
// by a signature over the body with a timestamp, so a leaked secret lets anyone post any body: a
// callback therefore carries no state. It only names a document; if the document is a live contract
// the service issued, a durable job reads the document again at the provider and applies, as the
// counterpart's own action, the signatures that record shows, in signing order. A body claiming a
// signature, a refusal or a time changes nothing, and a provider outage during the re-read is
// retried by the job instead of losing the callback.

/** Queues the re-read of the document a verified callback names, when it is a live contract of the service. */
export async function queueContractReread(notice: ContractNotice): Promise<{ queued: boolean; note?: string }> {
  const lease = await leaseByProviderRef(notice.providerRef);
  if (!lease || lease.environment !== 'live') return { queued: false, note: 'unknown contract' };
  if (!lease.current) return { queued: false, note: `contract ${lease.status}` };
  await withTenant({ orgId: lease.org_id, environment: lease.environment }, (tx) => enqueue(tx, 'reread_contract', { provider_ref: notice.providerRef }));
  return { queued: true };
}

/**
 * reread_contract: applies the signatures the provider's record of the document shows, in signing
 * order, each once (a signature already applied answers 409 and is passed over). A refusal is left
 * to the placement team, as before. Returns the roles applied now.
 */
export async function rereadContract(providerRef: string, port: Pick<ESignaturePort, 'hasSigned'>): Promise<{ applied: string[]; note?: string }> {
  const lease = await leaseByProviderRef(providerRef);
  if (!lease || lease.environment !== 'live') return { applied: [], note: 'unknown contract' };
  if (!lease.current) return { applied: [], note: `contract ${lease.status}` };
  const applied: string[] = [];
  for (const role of signingOrder) {
    if (!(await port.hasSigned(providerRef, role))) break;
    try {
      await answer({ orgId: lease.org_id, environment: lease.environment }, lease.claim_id, lease.property_id, (tx, claim, placement) =>
        sign(tx, claim, placement, role));
      applied.push(role);
    } catch (error) {
      if (!isDomainError(error, 'conflict')) throw error;
    }
  }
  return { applied };
}
