import { Hono } from 'hono';
import type { AppEnv } from '../../shared/http/context.ts';
import { renderError } from '../../shared/http/app.ts';
import { single } from '../../shared/http/envelope.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { boundedBody } from '../../shared/http/middleware/body.ts';
import { log } from '../../shared/log.ts';
import { paymentsPort } from '../../shared/placements/ports/index.ts';
import { CallbackRejected, type PaymentsPort } from '../../shared/placements/ports/types.ts';
import { NotConfigured } from '../../shared/placements/ports/provider.ts';
import { applyNotification } from '../../shared/placements/commands/notifications.ts';

// Internal function, not part of the public API: the payment processor posts its notifications
// here (a Connect webhook endpoint at <base_url>/payments-webhook listening to events of connected
// accounts). The signature is verified by the port over the raw body (401 invalid_signature when it
// fails); the event is then applied once by its id. 2xx tells the processor to stop retrying, so a
// duplicate or an event the service ignores answers 200; a failure answers 500 and is retried.

export function createPaymentsWebhookApp(port: () => PaymentsPort = () => paymentsPort('live')) {
  // strict: false answers /payments-webhook/ like /payments-webhook (the endpoint may be registered with either).
  const app = new Hono<AppEnv>({ strict: false });
  app.use('*', requestId());
  // A provider's notification is a few kilobytes: past 1 MB it is not one, and is not read further.
  app.use('*', boundedBody(1024 * 1024, (c) => renderError(new ApiError('file_too_large', 'The body is larger than the 1 MB a notification may be.'), c)));
  app.post('/payments-webhook', async (c) => {
    const raw = await c.req.text();
    let notification;
    try {
      notification = await port().readNotification(c.req.raw.headers, raw);
    } catch (error) {
      if (error instanceof CallbackRejected) throw new ApiError('invalid_signature', `The notification's signature does not verify: ${error.message}`);
      if (error instanceof NotConfigured) throw new ApiError('not_configured', `This deployment cannot take payment notifications yet: ${error.message}.`);
      throw error;
    }
    if (!notification) return c.json(single({ received: true, outcome: 'ignored: not an event the service acts on' }), 200);
    const outcome = await applyNotification(notification);
    log.info('processor notification', { request_id: c.get('requestId'), event_id: notification.eventId, kind: notification.kind, outcome });
    return c.json(single({ received: true, event_id: notification.eventId, outcome }), 200);
  });
  app.all('*', () => {
    throw new ApiError('not_found', 'The payment notifications endpoint answers POST /functions/v1/payments-webhook only.');
  });
  app.onError(renderError);
  return app;
}

export const app = createPaymentsWebhookApp();
