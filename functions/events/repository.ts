import type { Tx } from '../../shared/db/client.ts';
import { type EventName } from '../../shared/events/definition.ts';
import { olderThan, positionColumn, type Keyset } from '../../shared/db/paging.ts';

// The event log's statements. They run inside withTenant: row-level security limits each one to the
// caller's organisation and environment (none of them repeats that filter), so a live key sees live
// events and a sandbox key sandbox events, simulated ones included (simulated events exist in sandbox
// only: a database constraint). Reading changes nothing.

export interface EventRow {
  id: string;
  event: string;
  created_at: Date;
  data: Record<string, unknown>;
}

export interface LoggedEvent extends EventRow {
  /** The keyset position of the row (see keysetPage). */
  position: string;
  /** Not listed (the data says so); a delivery's envelope carries it (the console's listen builds one). */
  simulated: boolean;
}

export interface DeliveryCounts {
  total: number;
  succeeded: number;
  pending: number;
  abandoned: number;
  cancelled: number;
}

export interface EventDetail extends EventRow {
  simulated: boolean;
  deliveries: DeliveryCounts;
}

export interface EventFilter {
  /** Only these events; empty: all. */
  names: readonly EventName[];
  /** Only events recorded after this ISO timestamp. */
  since?: string;
  after?: Keyset;
  limit: number;
}

/**
 * A newest-first page of the log, `limit + 1` rows (the extra one says whether a page follows).
 * Without a type filter it is read along events_feed (org_id, environment, created_at desc, id desc):
 * the policy's tenant condition and the keyset are its index conditions.
 *
 * Filtered by type, it is read per name along events_by_type (org_id, environment, event,
 * created_at desc, id desc): one ordered scan of at most `limit + 1` rows per name, the pages merged.
 * Not `event = any (...)` along events_feed: a prepared statement's generic plan (which a pooled
 * connection settles on after five calls) cannot know how rare a name is, walks events_feed and
 * filters, and for a name the tenant has few or no events of that reads its whole 90 days (about
 * 600,000 events of a large carrier: 400 ms a call). Per name, the cost is the page's whatever the
 * plan cache does. Returned unawaited, so that a test can look at its plan.
 */
export function listEvents(tx: Tx, filter: EventFilter) {
  const conditions = tx`
       ${filter.since ? tx`and created_at > ${filter.since}::text::timestamptz` : tx``}
       ${olderThan(tx, filter.after)}`;
  if (!filter.names.length) {
    return tx<LoggedEvent[]>`
      select id, event, created_at, payload as data, simulated, ${positionColumn(tx)}
        from app.events
       where true ${conditions}
       order by created_at desc, id desc
       limit ${filter.limit + 1}`;
  }
  return tx<LoggedEvent[]>`
    select e.id, e.event, e.created_at, e.data, e.simulated, e.position
      from unnest(${filter.names}::text[]) as n (name)
     cross join lateral (
       select id, event, created_at, payload as data, simulated, ${positionColumn(tx)}
         from app.events
        where event = n.name ${conditions}
        order by created_at desc, id desc
        limit ${filter.limit + 1}) e
     order by e.created_at desc, e.id desc
     limit ${filter.limit + 1}`;
}

/** One event with its simulated flag and its deliveries counted by status; undefined when not the tenant's. */
export async function readEvent(tx: Tx, id: string): Promise<EventDetail | undefined> {
  const [row] = await tx<EventDetail[]>`
    select e.id, e.event, e.created_at, e.payload as data, e.simulated,
           (select json_build_object(
                     'total', count(*),
                     'succeeded', count(*) filter (where d.status = 'succeeded'),
                     'pending', count(*) filter (where d.status = 'pending'),
                     'abandoned', count(*) filter (where d.status = 'abandoned'),
                     'cancelled', count(*) filter (where d.status = 'cancelled'))
              from app.webhook_deliveries d where d.event_id = e.id) as deliveries
      from app.events e
     where e.id = ${id}`;
  return row;
}

/**
 * Records a simulated event in the tenant's (sandbox) log; the fan-out trigger queues it to the
 * subscribed endpoints in the same statement. Returns its id and how many deliveries were queued.
 */
export async function recordSimulatedEvent(tx: Tx, event: EventName, data: Record<string, unknown>) {
  const [recorded] = await tx<{ id: string }[]>`
    select app.record_event(${event}, ${tx.json({ ...data, simulated: true } as never)}, null, null, true) as id`;
  // A second statement: the first one's snapshot does not see the rows its trigger queued.
  const [{ queued }] = await tx<{ queued: number }[]>`
    select count(*)::int as queued from app.webhook_deliveries where event_id = ${recorded.id}`;
  return { id: recorded.id, queued };
}

/**
 * Queues an event of the tenant again to its active endpoints subscribed now (app.queue_replay):
 * how many subscribe and how many deliveries were queued; undefined when the event is not the tenant's.
 */
export async function queueReplay(tx: Tx, id: string): Promise<{ subscribed: number; queued: number } | undefined> {
  const [row] = await tx<{ subscribed: number; queued: number }[]>`select subscribed, queued from app.queue_replay(${id})`;
  return row;
}
