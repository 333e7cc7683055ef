import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import type { Keyset } from '../../shared/db/paging.ts';
import {
  createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, queuePing, recoverDeliveries, rotateSecret, updateEndpoint,
  type DeliveryFilter,
} from './repository.ts';
import type { EndpointChanges, EndpointInput } from './rows.ts';

// The webhook endpoints' and deliveries' queries and commands, each in its own unit of work (the
// routes open none); the SQL is the repository's.

/** A new endpoint and its signing secret, shown this once. */
export const addEndpoint = (caller: Caller, input: EndpointInput) => withTenant(caller, (tx) => createEndpoint(tx, input));

/** A page of the caller's endpoints. */
export const endpointsPage = (caller: Caller, query: { limit: number; after?: Keyset }) => withTenant(caller, (tx) => listEndpoints(tx, query));

/** The endpoint with `changes` applied, or undefined when there is no such endpoint. */
export const changeEndpoint = (caller: Caller, id: string, changes: EndpointChanges) => withTenant(caller, (tx) => updateEndpoint(tx, id, changes));

/** Whether an endpoint was there to delete. */
export const removeEndpoint = (caller: Caller, id: string) => withTenant(caller, (tx) => deleteEndpoint(tx, id));

/** The endpoint's new secret, or undefined when there is no such endpoint. */
export const newSecret = (caller: Caller, id: string) => withTenant(caller, (tx) => rotateSecret(tx, id));

/** The queued ping's delivery id, or null when there is no such endpoint. */
export const ping = (caller: Caller, id: string) => withTenant(caller, (tx) => queuePing(tx, id));

/** Queues again the endpoint's deliveries abandoned since `since`; undefined when there is no such endpoint. */
export const recoverSince = (caller: Caller, id: string, since: string) => withTenant(caller, (tx) => recoverDeliveries(tx, id, since));

/** A page of the caller's deliveries. */
export const deliveriesPage = (caller: Caller, filter: DeliveryFilter) => withTenant(caller, (tx) => listDeliveries(tx, filter));
