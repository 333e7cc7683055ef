import type { Tx } from '../../db/client.ts';
import { withTenant, type Tenant } from '../../db/tenant.ts';
import { dueJobsOf } from '../../jobs/queue.ts';
import { runDueJobs, type JobRegistry } from '../../jobs/runner.ts';
import type { ClaimRow } from '../../claims/repository.ts';
import type { OptionRow } from '../option-repository.ts';
import { answer, NotSentYet } from './answers.ts';

// The sandbox helpers' answers wait for what the service sends on its own. A contract version goes
// out for signature by a job, within seconds of the dates or the extension; a helper called right
// after (the README's extend-then-sign, back to back) would otherwise find nothing to sign. So a
// helper whose signature meets a version not sent yet runs that version's due send itself (the
// sandbox e-signature adapter is local and quick) or, when a runner has it in hand, waits for it,
// up to `waitMs`; past that it answers 409 lease_not_signable saying what is on its way, with
// Retry-After (NotSentYet.retryAfterSeconds).

/** How long a helper waits for a version to go out before answering 409. */
export const helperWaitMs = 10_000;
/** What Retry-After says when the wait ran out. */
export const retryAfterSeconds = 5;
const pollMs = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a helper's answer (answers.ts `answer`); when it meets a version not sent yet, sends it now
 * with the handlers `jobs` (the caller's registry: the placement knows no registry) or waits for the
 * runner that is sending it, then answers again, up to `waitMs`.
 */
export async function answerOnceSent(
  tenant: Tenant,
  reference: string,
  propertyId: string,
  act: (tx: Tx, claim: ClaimRow, placement: OptionRow) => Promise<void>,
  jobs: JobRegistry,
  options: { orCancelled?: boolean; waitMs?: number } = {},
) {
  const deadline = Date.now() + (options.waitMs ?? helperWaitMs);
  for (;;) {
    try {
      return await answer(tenant, reference, propertyId, act, options);
    } catch (error) {
      if (!(error instanceof NotSentYet) || Date.now() >= deadline) throw error;
      const due = await withTenant(tenant, (tx) => dueJobsOf(tx, 'send_contract', { lease_id: error.leaseId }));
      if (due.length === 0) {
        await sleep(pollMs);
        continue;
      }
      const report = await runDueJobs({ registry: jobs, ids: due });
      // The send failed (it retries on its schedule): waiting here would not see it go out.
      if (report.failed > 0) throw error;
    }
  }
}
