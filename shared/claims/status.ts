// The lifecycle of a housing request (`status_primary`): its values in order and the one rule
// deciding which moves are allowed. shared/claims/lifecycle.ts applies it in SQL; nothing else
// changes the status.

import { statuses } from '../request-values.ts';

// The values themselves sit below the domains, for the event definitions (../request-values.ts).
export { statuses };

export type RequestStatus = (typeof statuses)[number];

export const initialStatus: RequestStatus = 'housing_needs_collected';

const rank = (status: RequestStatus) => statuses.indexOf(status);

/**
 * Which action moves a request where (the lifecycle, one table). Moves are applied by
 * shared/claims/lifecycle.ts under the rule `canMove` below; an action whose move the rule does not
 * allow (for example sending a second home while the first is already at lease_execution) leaves
 * the status as it is, so the status follows the most advanced home.
 */
export const statusMoves: readonly { action: string; to: RequestStatus; part: 1 | 2 }[] = [
  { action: 'POST /claims (creation)', to: 'housing_needs_collected', part: 1 },
  { action: 'matching finds homes (creation, amendment, source-more)', to: 'housing_options_found', part: 1 },
  { action: 'POST options, action send', to: 'options_sent', part: 1 },
  { action: 'household proposes other dates', to: 'awaiting_approval', part: 1 },
  { action: 'household applies; POST options, action place', to: 'landlord_approval', part: 1 },
  { action: 'the contract goes out for signature (lease.sent)', to: 'lease_execution', part: 1 },
  { action: 'the landlord countersigns (lease.signed)', to: 'lease_signed', part: 1 },
  { action: 'household declines the last home in play', to: 'housing_options_found', part: 1 },
  { action: 'both have signed: payment is unlocked and awaited (right after lease_signed)', to: 'payment_setup', part: 2 },
  { action: 'the payment clears (booking.confirmed)', to: 'booking_confirmed', part: 2 },
  { action: 'POST confirm-move-in', to: 'move_in_complete', part: 2 },
  { action: 'the stay starts (the day after move-in is confirmed)', to: 'in_stay', part: 2 },
  { action: 'the stay nears its end (move-out within 14 days)', to: 'move_out_closeout', part: 2 },
  { action: 'cancelling a home (back to what the remaining homes support)', to: 'housing_options_found', part: 2 },
];

/**
 * Whether `from` may move to `to`:
 * - until the booking is confirmed, a request moves forward to any later stage up to
 *   `move_in_complete` (stages may be skipped: a home placed without the household goes straight
 *   to the landlord; a cleared payment confirms the booking);
 * - from `options_sent` up to `booking_confirmed` it may fall back to `housing_options_found`, when
 *   the home in progress is declined or cancelled (cancelling a home does not close the request);
 * - from `landlord_approval` or `lease_execution` it may fall back to `awaiting_approval`, when the
 *   household proposes other dates (the placement waits on the caller's decision);
 * - once the household has moved in, only the stay's own steps follow, one at a time.
 */
export function canMove(from: RequestStatus, to: RequestStatus): boolean {
  const f = rank(from);
  const t = rank(to);
  if (f <= rank('booking_confirmed')) {
    if (t > f && t <= rank('move_in_complete')) return true;
    if (to === 'awaiting_approval') return from === 'landlord_approval' || from === 'lease_execution';
    return to === 'housing_options_found' && f > rank('housing_options_found');
  }
  return t === f + 1;
}

/** The statuses from which a request may move to `to`. */
export function statusesBefore(to: RequestStatus): RequestStatus[] {
  return statuses.filter((from) => canMove(from, to));
}
