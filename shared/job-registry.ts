import { advanceStay, closeStayJob, issueRefund, postSignedCharges, rereadContractJob, sendHouseholdLink, sendContract, sendEmail, withdrawContract } from './placements/jobs.ts';
import { sourceNewRequests } from './claims/sourcing.ts';
import { fetchCalendarImport } from './properties/calendar-import-job.ts';
import type { ServiceJobRegistry } from './jobs/runner.ts';

// Every job kind the service runs, with its handler: checked against the typed map of kinds
// (jobs/kinds.ts), so a kind without a handler, or a handler filed under another kind, fails the
// type check. It sits above the domains and is handed to the runner by the entry points that run
// jobs (the server's background loop, the webhook dispatcher, the sandbox clock's route), in the
// manner of graphile-worker's `run({ taskList })`: the queue and the runner in shared/jobs know no
// kind's handler, so they depend on no domain.

export const jobRegistry: ServiceJobRegistry = {
  send_contract: sendContract,
  withdraw_contract: withdrawContract,
  reread_contract: rereadContractJob,
  send_email: sendEmail,
  send_household_link: sendHouseholdLink,
  issue_refund: issueRefund,
  advance_stay: advanceStay,
  close_stay: closeStayJob,
  post_signed_charges: postSignedCharges,
  source_new_requests: sourceNewRequests,
  fetch_calendar_import: fetchCalendarImport,
};
