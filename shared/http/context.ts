import type { Caller, Environment, Side } from '../db/tenant.ts';

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

export type { Caller, Environment, Side };
