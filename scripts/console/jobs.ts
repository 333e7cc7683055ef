import { retryAbandonedJob } from '../../shared/jobs/queue.ts';
import { ConsoleError, uuidOption, type Command, type Options } from './options.ts';

// Jobs the service gave up on (a refund never issued, an email that never went out): listed with
// what they were for and why the last attempt failed, and queued again once the cause is fixed.
// The scheduler runs a retried job within its next tick. Studio shows the same list
// (staff.abandoned_jobs); the runner logs each at error level when it is abandoned.

/** The attempts `job retry` gives by default: one, so a cause still there is reported again at once. */
const defaultRetryAttempts = 1;
const maxRetryAttempts = 20;

function attemptsOption(options: Options): number {
  const text = options.attempts;
  if (text === undefined) return defaultRetryAttempts;
  const attempts = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > maxRetryAttempts) {
    throw new ConsoleError('invalid_option', `--attempts must be a whole number from 1 to ${maxRetryAttempts}`);
  }
  return attempts;
}

export const jobCommands: Record<string, Command> = {
  'job list': {
    usage: 'job list [--org ORG_ID] [--kind KIND]',
    summary: 'Lists the abandoned jobs (money jobs such as issue_refund first), newest first, with the money at stake and the last error.',
    async run(sql, options) {
      const orgId = options.org === undefined ? undefined : uuidOption(options, 'org');
      const rows = await sql`
        select j.job_id as id, j.kind, 'abandoned' as status, j.organisation, j.org_id, j.environment, j.concerns, j.amount, j.currency,
               j.reference, j.attempts, j.last_error, j.abandoned_at, j.created_at, j.retry
          from staff.abandoned_jobs j
         where true
           ${orgId ? sql`and j.org_id = ${orgId}` : sql``}
           ${options.kind ? sql`and j.kind = ${options.kind}` : sql``}
         order by j.amount is null, j.abandoned_at desc, j.job_id`;
      return { data: rows, count: rows.length };
    },
  },
  'job retry': {
    usage: 'job retry --id JOB_ID [--attempts N]',
    summary: 'Queues an abandoned job again for N more attempts (default 1), due now; its history stays. The scheduler runs it within its next tick.',
    async run(sql, options) {
      const id = uuidOption(options, 'id');
      const row = await retryAbandonedJob(sql, id, attemptsOption(options));
      if (!row) throw new ConsoleError('not_found', `no job ${id}`);
      const { retried, ...job } = row;
      if (!retried) throw new ConsoleError('not_abandoned', `job ${id} is ${job.status}, not abandoned: nothing to retry`);
      return { data: job };
    },
  },
};
