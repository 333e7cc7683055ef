import { inOneWrite, withTenant, type Caller } from '../../shared/db/tenant.ts';
import { claimByReference, foundClaim } from '../../shared/claims/repository.ts';
import { listClaims } from './repository.ts';

// Reading housing requests, each in its own unit of work (the routes open none); the SQL is in the
// repositories.

/** A page of the caller's requests. */
export const requestsPage = (caller: Caller, query: Parameters<typeof listClaims>[1]) => withTenant(caller, (tx) => listClaims(tx, query));

/** The request by its claim_ref or id, read with `begin` and `commit` in one write; not_found when there is none. */
export async function requestOf(caller: Caller, reference: string) {
  const [rows] = await inOneWrite(caller, (tx) => [claimByReference(tx, reference)]);
  return foundClaim(rows);
}
