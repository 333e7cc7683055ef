import type { Tx } from '../db/client.ts';
import type { Tenant } from '../db/tenant.ts';
import type { EventName } from './registry.ts';
import { log, errorFields } from '../log.ts';

/**
 * Records an event in the caller's transaction, under a savepoint: a failure to record never fails
 * the operation, and a committed operation never loses its event (it commits with it).
 * Without `target` the event is filed under the transaction's tenant; with it, under another
 * organisation (a provider's booking raised by a carrier's action), always in the same environment.
 * Returns the event id, or null when it could not be recorded.
 */
export async function emit(
  tx: Tx,
  event: EventName,
  payload: Record<string, unknown>,
  target?: Tenant,
): Promise<string | null> {
  try {
    const [row] = await tx.savepoint((sp) => sp<{ id: string }[]>`
      select app.record_event(${event}, ${sp.json(payload as never)}, ${target?.orgId ?? null}, ${target?.environment ?? null}) as id`);
    return row.id;
  } catch (error) {
    log.error('event not recorded', { event, ...errorFields(error) });
    return null;
  }
}
