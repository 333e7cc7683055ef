import type { Tx } from '../db/client.ts';

// The sandbox clocks' SQL (app.sandbox_clocks, the stays-over-time migration). Every statement runs
// in the caller's tenant transaction: an organisation sees and moves only its own sandbox clock.

export interface ClockRow {
  org_id: string;
  frozen_time: Date;
  created_at: Date;
  advanced_at: Date | null;
}

export async function findClock(tx: Tx, options: { lock?: boolean } = {}): Promise<ClockRow | null> {
  const [row] = await tx<ClockRow[]>`
    select org_id, frozen_time, created_at, advanced_at from app.sandbox_clocks ${options.lock ? tx`for update` : tx``}`;
  return row ?? null;
}

/**
 * Sets the organisation's clock to `frozenTime`: a new clock, or the one it had set anew (jobs
 * waiting for it keep waiting for their time on it). `created` is false for the latter.
 */
export async function upsertClock(tx: Tx, frozenTime: Date): Promise<{ row: ClockRow; created: boolean }> {
  const [row] = await tx<(ClockRow & { created: boolean })[]>`
    insert into app.sandbox_clocks (org_id, frozen_time) values (app.current_org(), ${frozenTime})
    on conflict (org_id) do update set frozen_time = excluded.frozen_time, created_at = clock_timestamp(), advanced_at = null
    returning org_id, frozen_time, created_at, advanced_at, (xmax = 0) as created`;
  const { created, ...clock } = row;
  return { row: clock, created };
}

/** Moves the clock to `frozenTime` and makes due the jobs that waited for it: their ids. */
export async function advanceClock(tx: Tx, frozenTime: Date): Promise<string[]> {
  const [row] = await tx<{ due: string[] | null }[]>`select app.advance_clock(${frozenTime}) as due`;
  return row.due ?? [];
}

/** Removes the clock (its waiting jobs fall due on the wall clock); false when there was none. */
export async function removeClock(tx: Tx): Promise<boolean> {
  const [row] = await tx<{ removed: boolean }[]>`select app.remove_clock() as removed`;
  return row.removed;
}
