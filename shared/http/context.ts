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
    /** The request body as read once, within the size limit, by the body middleware. */
    rawBody: Uint8Array;
  };
}

export type { Environment, Side };
