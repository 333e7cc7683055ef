import { Hono } from 'hono';
import type { AppEnv } from '../../shared/http/context.ts';
import { renderError } from '../../shared/http/app.ts';
import { single } from '../../shared/http/envelope.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { boundedBody, refuseKeysNamedTwice } from '../../shared/http/middleware/body.ts';
import { limitByAddress } from '../../shared/http/middleware/authenticate.ts';
import { log } from '../../shared/log.ts';
import { placementPorts } from '../../shared/placements/ports/index.ts';
import { CallbackRejected, type ESignaturePort } from '../../shared/placements/ports/types.ts';
import { NotConfigured } from '../../shared/placements/ports/provider.ts';
import { queueContractReread } from '../../shared/placements/commands/callback.ts';

// Internal function, not part of the public API: the live e-signature provider posts its callbacks
// here (configure its webhook address as <base_url>/esign-callback). The port verifies the sender
// (Documenso's shared secret, compared in constant time; 401 invalid_signature when it fails). The
// secret does not sign the body, so a callback carries no state: it queues a durable re-read of the
// document it names, and the job applies the signatures the provider's own record shows, with the
// command the sandbox helpers apply (commands/callback.ts). Sandbox contracts never call back.

/** The function's app; `port` gives the live e-signature adapter (replaceable in tests). */
export function createCallbackApp(port: () => ESignaturePort = () => placementPorts('live').esign) {
  // strict: false answers /esign-callback/ like /esign-callback (a provider may be set up with either).
  const app = new Hono<AppEnv>({ strict: false });
  app.use('*', requestId());
  // The secret is a static one: guesses at it are limited per address as guesses at API keys are.
  app.use('*', limitByAddress('esign-callback'));
  // A provider's callback is a few kilobytes: past 1 MB it is not one, and is not read further.
  app.use('*', boundedBody(1024 * 1024, (c) => renderError(new ApiError('file_too_large', 'The body is larger than the 1 MB a callback may be.'), c)));
  app.post('/esign-callback', async (c) => {
    const raw = await c.req.text();
    // Read as the API reads JSON: one value per key, whatever a parser in between kept.
    refuseKeysNamedTwice(raw);
    const esign = port();
    let notice;
    try {
      notice = await esign.readCallback(c.req.raw.headers, raw);
    } catch (error) {
      if (error instanceof CallbackRejected) throw new ApiError('invalid_signature', `The callback's signature does not verify: ${error.message}`);
      if (error instanceof NotConfigured) throw new ApiError('not_configured', `This deployment cannot take e-signature callbacks yet: ${error.message}.`);
      throw error;
    }
    if (!notice) return c.json(single({ received: true, queued: false, note: 'not an event the service acts on' }), 200);
    const outcome = await queueContractReread(notice);
    log.info('e-signature callback', { request_id: c.get('requestId'), provider_ref: notice.providerRef, outcome });
    return c.json(single({ received: true, ...outcome }), 200);
  });
  app.all('*', () => {
    throw new ApiError('not_found', 'The e-signature callback answers POST /functions/v1/esign-callback only.');
  });
  app.onError(renderError);
  return app;
}

export const app = createCallbackApp();
