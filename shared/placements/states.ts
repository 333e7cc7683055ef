// The placement's state machines, as tables: the lease (per contract version) and the option
// (option_status and application_status of a home on a request). Every command looks its move up
// here and applies it in SQL guarded by the state it read (`update ... where status = any(<from>)`),
// so two concurrent calls can never both move the same row. Nothing else changes these columns.

export const leaseStatuses = [
  'awaiting_lease',
  'sent_for_signature',
  'policyholder_signed',
  'fully_signed',
  /** Replaced by a newer version (re-dated, proposal approved, signer changed); kept, readable. */
  'superseded',
  /** Withdrawn without replacement (the placement was cancelled, part 2). */
  'withdrawn',
] as const;
export type LeaseStatus = (typeof leaseStatuses)[number];

/** The states in which a contract may still be replaced: every state before both signatures. */
export const unsignedLeaseStatuses = ['awaiting_lease', 'sent_for_signature', 'policyholder_signed'] as const satisfies readonly LeaseStatus[];

export type LeaseEvent =
  | 'contract_sent'
  | 'first_signed'
  | 'countersigned'
  | 'superseded'
  | 'withdrawn';

/**
 * The lease state machine of the specification. A new version always starts at awaiting_lease
 * (POST dates, POST dates/approve-proposal, POST signer); POST dates on a fully signed lease is
 * refused with already_signed.
 */
export const leaseTransitions: Record<LeaseEvent, { from: readonly LeaseStatus[]; to: LeaseStatus; by: string }> = {
  contract_sent: { from: ['awaiting_lease'], to: 'sent_for_signature', by: 'the send-contract job, within seconds, when the home has the standard template' },
  first_signed: { from: ['sent_for_signature'], to: 'policyholder_signed', by: 'the household or the named signer signs' },
  countersigned: { from: ['policyholder_signed'], to: 'fully_signed', by: 'the landlord countersigns' },
  superseded: { from: unsignedLeaseStatuses, to: 'superseded', by: 'POST dates with new dates, POST dates/approve-proposal, POST signer' },
  withdrawn: { from: ['awaiting_lease', 'sent_for_signature', 'policyholder_signed', 'fully_signed'], to: 'withdrawn', by: 'POST cancel-booking (part 2)' },
};

/** The state `event` moves a lease in `from` to, or null when the event does not fit. */
export function leaseMove(event: LeaseEvent, from: LeaseStatus | null): LeaseStatus | null {
  const move = leaseTransitions[event];
  return from !== null && move.from.includes(from) ? move.to : null;
}

export const optionStatuses = ['sent', 'saved', 'approved', 'declined', 'cancelled'] as const;
export type OptionStatus = (typeof optionStatuses)[number];

export const applicationStatuses = ['not_applied', 'applied', 'approved_to_lease', 'declined'] as const;
export type ApplicationStatus = (typeof applicationStatuses)[number];

export interface OptionState {
  option_status: OptionStatus;
  application_status: ApplicationStatus;
}

export type OptionEvent = 'send' | 'place' | 'save' | 'decline' | 'apply' | 'approve_application' | 'decline_application';

/**
 * The option's moves. `from` lists the states the event fits (null: the home is not on the request
 * yet); `to` the state it leaves. POST options is safe to retry: sending again rewrites the same row,
 * and placing a sent home (the household is not on the platform after all) is allowed until the
 * landlord approved an application.
 */
export const optionTransitions: Record<OptionEvent, { from: readonly (OptionState | null)[]; to: OptionState }> = {
  send: {
    from: [null, { option_status: 'sent', application_status: 'not_applied' }, { option_status: 'saved', application_status: 'not_applied' }],
    to: { option_status: 'sent', application_status: 'not_applied' },
  },
  place: {
    from: [
      null,
      { option_status: 'sent', application_status: 'not_applied' },
      { option_status: 'saved', application_status: 'not_applied' },
      { option_status: 'sent', application_status: 'applied' },
      { option_status: 'saved', application_status: 'applied' },
      { option_status: 'approved', application_status: 'approved_to_lease' },
    ],
    to: { option_status: 'approved', application_status: 'approved_to_lease' },
  },
  save: {
    from: [{ option_status: 'sent', application_status: 'not_applied' }, { option_status: 'saved', application_status: 'not_applied' }],
    to: { option_status: 'saved', application_status: 'not_applied' },
  },
  decline: {
    from: [
      { option_status: 'sent', application_status: 'not_applied' },
      { option_status: 'saved', application_status: 'not_applied' },
      { option_status: 'sent', application_status: 'applied' },
      { option_status: 'saved', application_status: 'applied' },
    ],
    to: { option_status: 'declined', application_status: 'not_applied' },
  },
  apply: {
    from: [{ option_status: 'sent', application_status: 'not_applied' }, { option_status: 'saved', application_status: 'not_applied' }],
    to: { option_status: 'sent', application_status: 'applied' },
  },
  approve_application: {
    from: [{ option_status: 'sent', application_status: 'applied' }, { option_status: 'saved', application_status: 'applied' }],
    to: { option_status: 'approved', application_status: 'approved_to_lease' },
  },
  // The landlord turns the application down: the option stays the household's; the home is out of play.
  decline_application: {
    from: [{ option_status: 'sent', application_status: 'applied' }, { option_status: 'saved', application_status: 'applied' }],
    to: { option_status: 'sent', application_status: 'declined' },
  },
};

const same = (a: OptionState | null, b: OptionState | null) =>
  a === b || (a !== null && b !== null && a.option_status === b.option_status && a.application_status === b.application_status);

/** The option state `event` leaves from `from`, or null when the event does not fit. */
export function optionMove(event: OptionEvent, from: OptionState | null): OptionState | null {
  const move = optionTransitions[event];
  if (!move.from.some((state) => same(state, from))) return null;
  // Applying, and the landlord's decline, keep a saved home saved.
  if ((event === 'apply' || event === 'decline_application') && from) return { option_status: from.option_status, application_status: move.to.application_status };
  return move.to;
}

/** The SQL guard of an option move: the (option_status, application_status) pairs it may leave. */
export function optionGuard(event: OptionEvent): { options: string[]; applications: string[] } {
  const from = optionTransitions[event].from.filter((s): s is OptionState => s !== null);
  return { options: from.map((s) => s.option_status), applications: from.map((s) => s.application_status) };
}
