import { invalid } from '../domain-errors.ts';
import { addMonths } from './periods.ts';

// The rules a stay's dates follow (POST dates, and the household's proposals): move_out after
// move_in (422 invalid_field on move_out), at least 30 days (422 stay_too_short on move_out), and
// move_in not in the past (422 invalid_field on move_in). "Today" is today somewhere: a date that is
// still today in the westernmost time zone (UTC-12) is accepted. Now is the tenant's
// (shared/clock/time.ts: a sandbox clock's time, or the wall clock).
//
// A stay occupies its nights, [move_in, move_out): the move-out day is free for the next check-in.

export const minimumStayDays = 30;

const dayMs = 86_400_000;
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / dayMs);

/** The earliest calendar day that is still today somewhere (UTC-12) at `now`. */
export const earliestToday = (now: Date) => new Date(now.getTime() - 12 * 3_600_000).toISOString().slice(0, 10);

/** The latest calendar day that is already today somewhere (UTC+14) at `now`. */
export const latestToday = (now: Date) => new Date(now.getTime() + 14 * 3_600_000).toISOString().slice(0, 10);

/** The day `days` after (or before) an ISO date. */
export const addDays = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);

/** The last night of a stay that moves out on `moveOut`: the inclusive end of its calendar hold. */
export const lastNight = (moveOut: string) => addDays(moveOut, -1);

/**
 * The nights a request wants before dates are set: from its target move-in for its estimated months
 * (the stay the budget review prices, ./pricing.ts), [target_move_in, target_move_in + months), as
 * its first and last night. Nights already past everywhere at the tenant's `now` are left out (no
 * stay can take them any more); null when none is left.
 */
export function wantedNights(request: { target_move_in: string; est_length_months: number }, now: Date): { first: string; last: string } | null {
  const today = earliestToday(now);
  const first = request.target_move_in > today ? request.target_move_in : today;
  const last = lastNight(addMonths(request.target_move_in, request.est_length_months));
  return first <= last ? { first, last } : null;
}

/** Throws invalid_field on move_out when it is not after move_in. */
export function checkStayOrder(moveIn: string, moveOut: string): void {
  if (moveOut <= moveIn) throw invalid('invalid_field', 'move_out must be after move_in.', 'move_out');
}

/** Throws the specification's error for dates out of order or too short a stay (no clock needed). */
export function checkStayLength(moveIn: string, moveOut: string): void {
  checkStayOrder(moveIn, moveOut);
  if (daysBetween(moveIn, moveOut) < minimumStayDays) {
    throw invalid('stay_too_short', `The stay is ${daysBetween(moveIn, moveOut)} days; the minimum is ${minimumStayDays}.`, 'move_out');
  }
}

/** Throws invalid_field on `field` when the day has passed everywhere at the tenant's `now`. */
export function checkNotPast(day: string, field: 'move_in' | 'move_out', now: Date): void {
  if (day < earliestToday(now)) throw invalid('invalid_field', `${field} must not be in the past.`, field);
}

/** Every rule of a new stay's dates; `now` is the tenant's. */
export function checkStay(moveIn: string, moveOut: string, now: Date): void {
  checkStayLength(moveIn, moveOut);
  checkNotPast(moveIn, 'move_in', now);
}
