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
