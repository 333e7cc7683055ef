// The lifecycle of a housing request (`status_primary`): its values in order and the one rule
// deciding which moves are allowed. shared/claims/lifecycle.ts applies it in SQL; nothing else
// changes the status.

export const statuses = [
  'housing_needs_collected',
  'housing_options_found',
  'options_sent',
  'awaiting_approval',
  'landlord_approval',
  'lease_execution',
  'lease_signed',
  'payment_setup',
  'booking_confirmed',
  'move_in_complete',
  'in_stay',
  'move_out_closeout',
] as const;

export type RequestStatus = (typeof statuses)[number];

export const initialStatus: RequestStatus = 'housing_needs_collected';

const rank = (status: RequestStatus) => statuses.indexOf(status);

/**
 * Whether `from` may move to `to`:
 * - until the booking is confirmed, a request moves forward to any later stage up to
 *   `move_in_complete` (stages may be skipped: a home placed without the household goes straight
 *   to the landlord; a cleared payment confirms the booking);
 * - from `options_sent` up to `booking_confirmed` it may fall back to `housing_options_found`, when
 *   the home in progress is declined or cancelled (cancelling a home does not close the request);
 * - once the household has moved in, only the stay's own steps follow, one at a time.
 */
export function canMove(from: RequestStatus, to: RequestStatus): boolean {
  const f = rank(from);
  const t = rank(to);
  if (f <= rank('booking_confirmed')) {
    if (t > f && t <= rank('move_in_complete')) return true;
    return to === 'housing_options_found' && f > rank('housing_options_found');
  }
  return t === f + 1;
}

/** The statuses from which a request may move to `to`. */
export function statusesBefore(to: RequestStatus): RequestStatus[] {
  return statuses.filter((from) => canMove(from, to));
}
