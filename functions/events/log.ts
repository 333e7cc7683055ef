import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { listEvents, queueReplay, readEvent, recordSimulatedEvent, type EventFilter } from './repository.ts';
import type { EventName } from '../../shared/events/definition.ts';

// The event log's queries and commands, each in its own unit of work (the routes open none); the
// SQL is the repository's.

/** A page of the caller's events. */
export const eventsPage = (caller: Caller, filter: EventFilter) => withTenant(caller, (tx) => listEvents(tx, filter));

/** One event with its deliveries, or undefined. */
export const eventOf = (caller: Caller, id: string) => withTenant(caller, (tx) => readEvent(tx, id));

/** Queues the event again to the endpoints that subscribe to it; undefined when there is no such event. */
export const replayEvent = (caller: Caller, id: string) => withTenant(caller, (tx) => queueReplay(tx, id));

/** Records a simulated event in the sandbox log and queues it to the subscribed endpoints. */
export const simulateEvent = (caller: Caller, name: EventName, data: Record<string, unknown>) =>
  withTenant(caller, (tx) => recordSimulatedEvent(tx, name, data));
