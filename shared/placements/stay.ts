import { ApiError } from '../http/errors.ts';

// The rules a stay's dates follow (POST dates, and the household's proposals): move_out after
// move_in (422 invalid_field on move_out), at least 30 days (422 stay_too_short on move_out), and
// move_in not in the past (422 invalid_field on move_in). "Today" is today somewhere: a date that is
// still today in the westernmost time zone (UTC-12) is accepted.

export const minimumStayDays = 30;

const dayMs = 86_400_000;
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / dayMs);
const earliestToday = () => new Date(Date.now() - 12 * 3_600_000).toISOString().slice(0, 10);

/** Throws the specification's error for dates that break a rule. */
export function checkStay(moveIn: string, moveOut: string, now = earliestToday()): void {
  if (moveOut <= moveIn) throw new ApiError('invalid_field', 'move_out must be after move_in.', 'move_out');
  if (daysBetween(moveIn, moveOut) < minimumStayDays) {
    throw new ApiError('stay_too_short', `The stay is ${daysBetween(moveIn, moveOut)} days; the minimum is ${minimumStayDays}.`, 'move_out');
  }
  if (moveIn < now) throw new ApiError('invalid_field', 'move_in must not be in the past.', 'move_in');
}
