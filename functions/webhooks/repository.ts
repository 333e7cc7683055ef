import type { Tx } from '../../shared/db/client.ts';
import { olderThan, positionColumn, type Keyset } from '../../shared/db/paging.ts';
import { randomString } from '../../shared/keys.ts';
import type { DeliveryRow, EndpointChanges, EndpointInput, EndpointRow } from './rows.ts';

// The webhooks group's statements. They run inside withTenant: row-level security limits each one
// to the caller's organisation and environment, so none of them repeats that filter, and a new
// endpoint is filed under the transaction's tenant. An endpoint's secret is written here and never
// read back: the API role cannot select it (column grants in the webhooks migration). Deliveries
// are written only by the fan-out, the queueing functions and the dispatcher; the API role reads them.

const endpointColumns = (tx: Tx) =>
  tx`id, url, events, description, is_active, created_at, updated_at, secret_rotated_at, ${positionColumn(tx)}`;

/** A new signing secret: `whsec_` and 32 random base62 characters (about 190 bits). */
const newSecret = () => `whsec_${randomString(32)}`;

/** Files a new endpoint under the tenant with a new secret: the row, and the secret to show once. */
export async function createEndpoint(tx: Tx, input: EndpointInput) {
  const secret = newSecret();
  const [row] = await tx<EndpointRow[]>`
    insert into app.webhook_endpoints (org_id, environment, url, events, description, secret)
    values (app.current_org(), app.current_env(), ${input.url}, ${input.events}, ${input.description}, ${secret})
    returning ${endpointColumns(tx)}`;
  return { row, secret };
}

/** A newest-first page of the tenant's endpoints, `limit + 1` rows, after the keyset. */
export function listEndpoints(tx: Tx, query: { limit: number; after?: Keyset }) {
  return tx<EndpointRow[]>`
    select ${endpointColumns(tx)} from app.webhook_endpoints
     where true ${olderThan(tx, query.after)}
     order by created_at desc, id desc
     limit ${query.limit + 1}`;
}

/** Applies the changes; undefined when the endpoint is not the tenant's. */
export async function updateEndpoint(tx: Tx, id: string, changes: EndpointChanges): Promise<EndpointRow | undefined> {
  const [row] = await tx<EndpointRow[]>`
    update app.webhook_endpoints set ${tx(changes)}, updated_at = now()
     where id = ${id}
    returning ${endpointColumns(tx)}`;
  return row;
}

/** Deletes the endpoint (its deliveries go with it); whether it was the tenant's. */
export async function deleteEndpoint(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx`delete from app.webhook_endpoints where id = ${id} returning id`;
  return rows.length > 0;
}

/** Issues a new secret to the endpoint: the secret to show once and when; undefined when not the tenant's. */
export async function rotateSecret(tx: Tx, id: string) {
  const secret = newSecret();
  const [row] = await tx<{ secret_rotated_at: Date }[]>`
    update app.webhook_endpoints set secret = ${secret}, secret_rotated_at = now(), updated_at = now()
     where id = ${id}
    returning secret_rotated_at`;
  return row && { secret, rotatedAt: row.secret_rotated_at };
}

/** Queues a ping to the endpoint (app.queue_ping): the delivery's id; null when not the tenant's. */
export async function queuePing(tx: Tx, id: string): Promise<string | null> {
  const [row] = await tx<{ delivery_id: string | null }[]>`select app.queue_ping(${id}) as delivery_id`;
  return row.delivery_id;
}

export interface DeliveryFilter {
  endpointId?: string;
  eventId?: string;
  status?: DeliveryRow['status'];
  since?: string;
  after?: Keyset;
  limit: number;
}

/**
 * A newest-first page of the tenant's deliveries, `limit + 1` rows, read along webhook_deliveries_feed
 * with the keyset as an index condition.
 */
export function listDeliveries(tx: Tx, filter: DeliveryFilter) {
  return tx<DeliveryRow[]>`
    select id, endpoint_id, event_id, event, replay, status, attempts, next_attempt_at, created_at, completed_at,
           history, ${positionColumn(tx)}
      from app.webhook_deliveries
     where true
       ${filter.endpointId ? tx`and endpoint_id = ${filter.endpointId}` : tx``}
       ${filter.eventId ? tx`and event_id = ${filter.eventId}` : tx``}
       ${filter.status ? tx`and status = ${filter.status}` : tx``}
       ${filter.since ? tx`and created_at > ${filter.since}::text::timestamptz` : tx``}
       ${olderThan(tx, filter.after)}
     order by created_at desc, id desc
     limit ${filter.limit + 1}`;
}

/**
 * Replays to the endpoint the events whose delivery to it was abandoned after `since` and never
 * succeeded (app.recover_deliveries, which queues them as POST /events/{id}/replay does); undefined
 * when the endpoint is not the tenant's.
 */
export async function recoverDeliveries(tx: Tx, endpointId: string, since: string) {
  const [row] = await tx<{ active: boolean; abandoned: number; queued: number }[]>`
    select active, abandoned, queued from app.recover_deliveries(${endpointId}, ${since}::text::timestamptz)`;
  return row;
}
