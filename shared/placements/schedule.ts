import type { Tx } from '../db/client.ts';
import { enqueue } from '../jobs/queue.ts';
import { addDays } from './stay.ts';

const midnight = (iso: string) => new Date(`${iso}T00:00:00Z`);

/**
 * The stay's scheduled steps are durable jobs on the scheduler that delivers webhooks (on a sandbox
 * clock they wait for the clock): in_stay the day after move-in is confirmed, and the closeout on the
 * move-out date, scheduled when the booking is confirmed (./payments.ts), moved in or not.
 */
export const scheduleInStay = (tx: Tx, placementId: string, today: string) =>
  enqueue(tx, 'advance_stay', { placement_id: placementId, to: 'in_stay' }, { dedupeKey: `${placementId}:in_stay`, runAt: midnight(addDays(today, 1)) });

/**
 * The closeout of a stay that moves out on `moveOut`. A stay shortened or extended schedules a new
 * one for its new date; the job of an older date finds the stay no longer ends then and does nothing.
 * An extension passes its addendum (`by`): it may bring the stay back to a move-out a closeout was
 * queued for already, and that job may never close it (queued before the organisation's sandbox
 * clock existed, it waits for the wall clock), so each extension queues a closeout of its own.
 */
export const scheduleCloseout = (tx: Tx, placementId: string, moveOut: string, by?: string) =>
  enqueue(tx, 'close_stay', { placement_id: placementId, move_out: moveOut }, {
    dedupeKey: by ? `${placementId}:${moveOut}:${by}` : `${placementId}:${moveOut}`,
    runAt: midnight(moveOut),
  });

