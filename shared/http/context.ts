import type { Environment, Side, Tenant } from '../db/tenant.ts';

/** The authenticated caller of a request. */
export interface Caller extends Tenant {
  keyId: string;
  side: Side;
  scopes: string[];
}

export interface AppEnv {
  Variables: {
    requestId: string;
    caller: Caller;
    /** Whether the matched route declares a request body (set by the route check). */
    takesBody: boolean;
    /** The request body as read once, within the size limit, by the body middleware. */
    rawBody: Uint8Array;
  };
}

export type { Environment, Side };
