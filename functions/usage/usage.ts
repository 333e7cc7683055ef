import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { revokeKey, usageSince } from './repository.ts';

// The usage group's query and command, each in its own unit of work (the routes open none); the SQL
// is the repository's.

/** The organisation's request counts per key and day since the start of the window. */
export const usageOf = (caller: Caller) => withTenant(caller, (tx) => usageSince(tx));

/** Revokes the calling key itself. */
export const revokeOwnKey = (caller: Caller) => withTenant(caller, (tx) => revokeKey(tx, caller.keyId));
