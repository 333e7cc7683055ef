// Every kind of durable job the service queues, with its payload: the one typed map that enqueue()
// and the registry (registry.ts) are checked against. Queuing an unknown kind or a payload of the
// wrong shape fails the type check; so does a registry that misses a kind or files a handler under
// another kind's name. A new kind is a line here, its JobDefinition beside the command that owns
// it, and a line in the registry.

export interface JobPayloads {
  /** The placement: create the contract at the e-signature provider (shared/placements/jobs.ts). */
  send_contract: { lease_id: string };
  /** The placement: stop the signature links of a superseded or withdrawn contract. */
  withdraw_contract: { provider_ref: string; reason: string };
  /** The placement: the household's link to a home sent to it, signed when the email goes out (commands/household-link.ts). */
  send_household_link: { placement_id: string };
  /** The placement: read a contract again at the e-signature provider after its callback, and apply what it shows (commands/callback.ts). */
  reread_contract: { provider_ref: string };
  /** The placement: one message through the email port. */
  send_email: EmailMessage;
  /** The placement: refund an approved refund request on the landlord's account (commands/refunds.ts). */
  issue_refund: { refund_request_id: string };
  /**
   * The placement: move a stay to in_stay the day after move-in (commands/booking.ts). Jobs queued
   * before closeout moved to close_stay may still say move_out_closeout; they do nothing.
   */
  advance_stay: { placement_id: string; to: 'in_stay' | 'move_out_closeout' };
  /** The placement: close out a stay on its move-out date (commands/booking.ts closeStay). */
  close_stay: { placement_id: string; move_out: string };
  /** The placement: post what its signed versions charge where a stay signed before the ledger existed has it unposted (shared/placements/jobs.ts). */
  post_signed_charges: { placement_id: string };
  /** Calendars: fetch one imported iCalendar feed into its home's blocks (shared/properties/calendar-import-job.ts). */
  fetch_calendar_import: { import_id: string };
  /** Sourcing: the opening round of new requests (shared/claims/sourcing.ts). */
  source_new_requests: { request_ids: string[] };
}

export type JobKind = keyof JobPayloads;

/**
 * One email, as the send_email job carries it and the email port (shared/placements/ports/types.ts)
 * sends it. Declared here, with the payloads, so that the job kinds import no domain.
 */
export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  /** The same message as HTML, when it has a link to follow. */
  html?: string;
  /** Why the message was sent (placement.offered, lease.sent, booking.cancelled, ...), for the record. */
  topic: string;
}
