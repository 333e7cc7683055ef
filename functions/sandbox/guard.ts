import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../shared/http/context.ts';
import { ApiError } from '../../shared/http/errors.ts';

/**
 * Sandbox counterpart helpers act for parties that do not exist in sandbox: live keys are refused
 * before anything else is looked at, so a live caller learns that first, whatever the body.
 */
export const sandboxOnly = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  if (c.get('caller').environment !== 'sandbox') {
    throw new ApiError('sandbox_only', 'Sandbox helpers act for counterparts that exist only in sandbox; use a sandbox key (svc_sk_).');
  }
  await next();
};

/** How the guard answers, as every helper's route documents it (403 beside the route's own errors). */
export const sandboxOnlyRefusal = { sandbox_only: 'a live key, whatever the body.' } as const;

/** The errors every helper acting on a home of a request gives besides its own. */
export const homeHelperErrors = {
  403: sandboxOnlyRefusal,
  404: { not_found: 'no such request for this organisation in this environment.' },
} as const;
