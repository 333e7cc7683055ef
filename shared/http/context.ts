import type { Environment, Side, Tenant } from '../db/tenant.ts';

/** The authenticated caller of a request. */
export interface Caller extends Tenant {
  keyId: string;
  side: Side;
  scopes: string[];
}

export interface AppEnv {
  Bindings: {
    /**
     * The method the client sent, when the hosting server could not carry it on the Request (the
     * Fetch API refuses TRACE, so Node's adapter hands it on as GET). Absent on the edge runtime.
     */
    requestMethod?: string;
  } | undefined;
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
