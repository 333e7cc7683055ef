import { withTenant, type Caller } from '../db/tenant.ts';
import { invalid, notFound } from '../domain-errors.ts';
import { runDueJobs, type JobRegistry } from '../jobs/runner.ts';
import { advanceClock, findClock, removeClock, upsertClock, type ClockRow } from './repository.ts';

// A sandbox organisation's own clock, in the manner of a payment processor's test clocks: created
// at a time, moved only forward, and removed when done. While it exists, every date rule of the
// organisation's sandbox requests reads its time (shared/clock/time.ts), and jobs scheduled for a
// later time wait for it; advancing it runs the jobs that fall due, before answering, so a stay can
// be walked through move-in, a change and its closeout in seconds. Live keys never reach it (the
// sandbox helpers' guard, and the table's environment).

/** How far ahead of the wall clock a clock may go: a year-long stay and its closeout, with room. */
const maxAheadMs = 2 * 366 * 86_400_000;

export function renderClock(row: ClockRow) {
  return {
    frozen_time: row.frozen_time.toISOString(),
    created_at: row.created_at.toISOString(),
    advanced_at: row.advanced_at?.toISOString() ?? null,
  };
}

function checkWithinReach(at: Date) {
  if (at.getTime() > Date.now() + maxAheadMs) {
    throw invalid('invalid_field', 'frozen_time may be at most two years after now.', 'frozen_time');
  }
}

/** Puts the organisation on a clock at `frozenTime` (default now), replacing any it had; `created` says which. */
export async function setClock(caller: Caller, frozenTime: Date | undefined) {
  const at = frozenTime ?? new Date();
  if (at.getTime() < Date.now() - 60_000) throw invalid('invalid_field', 'frozen_time must not be in the past.', 'frozen_time');
  checkWithinReach(at);
  return withTenant(caller, async (tx) => {
    const { row, created } = await upsertClock(tx, at);
    return { clock: renderClock(row), created };
  });
}

export async function readClock(caller: Caller) {
  const clock = await withTenant(caller, (tx) => findClock(tx));
  if (!clock) throw notFound('sandbox clock');
  return renderClock(clock);
}

/**
 * Moves the clock forward and runs the jobs that fell due, with the handlers `jobs` (the caller's
 * registry: the clock knows no job kind); answers the clock and how many ran.
 */
export async function moveClock(caller: Caller, frozenTime: Date, jobs: JobRegistry) {
  checkWithinReach(frozenTime);
  const { clock, due } = await withTenant(caller, async (tx) => {
    const current = await findClock(tx, { lock: true });
    if (!current) throw notFound('sandbox clock');
    if (frozenTime < current.frozen_time) {
      throw invalid('invalid_field', `frozen_time must not be before the clock's time (${current.frozen_time.toISOString()}).`, 'frozen_time');
    }
    const due = await advanceClock(tx, frozenTime);
    return { clock: { ...current, frozen_time: frozenTime, advanced_at: new Date() }, due };
  });
  const report = due.length > 0 ? await runDueJobs({ registry: jobs, ids: due }) : { succeeded: 0, failed: 0 };
  return { ...renderClock(clock), jobs_run: report.succeeded, jobs_failed: report.failed };
}

/** Back to the wall clock; deleted is false when there was no clock (deleting is safe to repeat). */
export async function deleteClock(caller: Caller) {
  return { deleted: await withTenant(caller, (tx) => removeClock(tx)) };
}
