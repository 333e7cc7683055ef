import type { Caller } from '../../shared/http/context.ts';
import { ApiError } from '../../shared/http/errors.ts';

/** Sandbox counterpart helpers act for parties that do not exist in sandbox: live keys are refused. */
export function assertSandbox(caller: Caller): void {
  if (caller.environment !== 'sandbox') {
    throw new ApiError('sandbox_only', 'Sandbox helpers act for counterparts that exist only in sandbox; use a sandbox key (svc_sk_).');
  }
}
