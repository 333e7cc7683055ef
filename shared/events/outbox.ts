import type { Tx } from '../db/client.ts';
import type { Tenant } from '../db/tenant.ts';
import { boolSetting } from '../config.ts';
import { type EventName } from './definition.ts';
import { eventDefinitions, type EventPayload } from './registry.ts';
import { log, errorFields } from '../log.ts';

/**
 * Checks a payload against the registry's schemas for the event (any audience: the side of a
 * target organisation is not known here). Returns the problems, none when it fits.
 */
function payloadProblems(event: EventName, payload: Record<string, unknown>): string[] {
  const definitions = eventDefinitions.filter((d) => d.event === event);
  if (definitions.length === 0) return [`${event} has no definition in the event registry`];
  const results = definitions.map((d) => d.payload.safeParse(payload));
  if (results.some((r) => r.success)) return [];
  return results.flatMap((r) => (r.success ? [] : r.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`)));
}

/**
 * Records events in the caller's transaction, in one statement under a savepoint: a failure to
 * record never fails the operation, and a committed operation never loses its events (they commit
 * with it). Without `target` the events are filed under the transaction's tenant; with it, under
 * another organisation (a provider's booking raised by a carrier's action), always in the same
 * environment. Returns the event ids in payload order, or nulls when they could not be recorded.
 *
 * With STRICT_EVENT_PAYLOADS=true (the test suite), a payload that does not fit the registry fails
 * the operation instead, so every test that raises an event also checks its payload.
 */
export async function emitMany<E extends EventName>(
  tx: Tx,
  event: E,
  payloads: EventPayload<E>[],
  target?: Tenant,
): Promise<(string | null)[]> {
  if (payloads.length === 0) return [];
  try {
    const rows = await tx.savepoint((sp) => recordEvents(sp, event, payloads, target));
    return rows.map((row) => row.id);
  } catch (error) {
    if (error instanceof PayloadMismatch) throw error;
    log.error('event not recorded', { event, count: payloads.length, ...errorFields(error) });
    return payloads.map(() => null);
  }
}

/** A payload that does not fit the event registry, under STRICT_EVENT_PAYLOADS. */
class PayloadMismatch extends Error {}

/**
 * The statement recording events (one or more payloads of one event), built and not yet run; its
 * rows are the event ids in payload order. Where a failure to record must not fail the operation,
 * run it as emitMany does, under a savepoint; a caller that runs it bare (in one write, inOneWrite)
 * has a way to do the operation again without it failing (create.ts).
 */
export function recordEvents<E extends EventName>(tx: Tx, event: E, payloads: EventPayload<E>[], target?: Tenant) {
  if (boolSetting('STRICT_EVENT_PAYLOADS', false)) {
    const problems = payloads.flatMap((payload) => payloadProblems(event, payload as Record<string, unknown>));
    if (problems.length) throw new PayloadMismatch(`payload of ${event} does not match the event registry: ${problems.join('; ')}`);
  }
  return tx<{ id: string }[]>`
    select app.record_event(${event}, p.payload, ${target?.orgId ?? null}, ${target?.environment ?? null}) as id
      from jsonb_array_elements(${tx.json(payloads as never)}) with ordinality as p (payload, n)
     order by p.n`;
}

/** Records one event; see emitMany. */
export async function emit<E extends EventName>(
  tx: Tx,
  event: E,
  payload: EventPayload<E>,
  target?: Tenant,
): Promise<string | null> {
  const [id] = await emitMany(tx, event, [payload], target);
  return id;
}
