import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../shared/http/context.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { boundedBody } from '../../shared/http/middleware/body.ts';
import { errorFields, log } from '../../shared/log.ts';
import { PayLinkRejected, readPayLink, readSetupLink, type PayLink } from '../../shared/placements/pay-link.ts';
import { payActions, type PayActions } from '../../shared/placements/commands/pay.ts';
import { renderPayPage, renderSetupPage } from './page.ts';
import { html, methodNotAllowedPage, readForm, renderNoticePage, renderProblemPage as problemPage } from '../../shared/http/page.ts';

/** The pay page's problems end with what to do about the link. */
const renderProblemPage = (title: string, text: string) =>
  problemPage(title, text, 'Ask the person who sent you this link for a new one; links are valid for a short time only.');
import { startSetup } from '../../shared/placements/commands/payout-setup.ts';
import { chargeTypes } from '../../shared/placements/billing.ts';
import { payers } from '../../shared/claims/values.ts';
import { NotConfigured, ProviderError } from '../../shared/placements/ports/provider.ts';

// The pay-in-app page: a web page, not an API route. The payer opens the `pay_in_app_url` of a
// placement (GET /pay/<token>), sees what is due now and who is paid, and submits a plain HTML form
// (POST /pay/<token>). The signed token is the page's only credential (shared/placements/pay-link.ts).
// Sandbox: the form offers pay and decline and does exactly what the sandbox `payment` helper does.
// Live: the form creates a checkout on the landlord's own processor account and redirects to it;
// the processor's notification (functions/payments-webhook) records the outcome.

const Submission = z.strictObject({
  outcome: z.enum(['succeeded', 'failed']).optional(),
  amount_cents: z.coerce.number().int().nonnegative(),
  charge_type: z.enum(chargeTypes),
  payer: z.enum(payers),
});


const problems: Record<PayLinkRejected['reason'], [string, string, number]> = {
  expired: ['This payment link has expired', 'For your safety, payment links stop working after a short time.', 410],
  invalid: ['This payment link is not valid', 'The link is incomplete, was changed, or was not issued for this service.', 403],
  replaced: ['This payment link is not valid any more', 'The lease changed since this link was issued (new dates, a new version); use the latest link you received.', 403],
};

/** A live deployment whose payment processor is not set up: say so, not a 500. */
const notConfiguredPage = () =>
  problemPage('Payments are not available yet', 'This service has not been connected to its payment processor yet. Nothing was charged; please try again later.');

export function createPayApp(actions: PayActions) {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  // The page's form is a few fields: a body past 16 KB is not one of its forms.
  app.use('*', boundedBody(16 * 1024, (c) => html(c, problemPage('The form could not be read', 'The form sent was far larger than this page\'s form.'), 413)));

  /** The page for a link refused (expired, invalid, replaced), or for signed links not configured. */
  function refusedLink(c: Context<AppEnv>, error: unknown): Response {
    if (error instanceof NotConfigured) return html(c, notConfiguredPage(), 503);
    if (!(error instanceof PayLinkRejected)) throw error;
    const [title, text, status] = problems[error.reason];
    return html(c, renderProblemPage(title, text), status);
  }

  async function verified(c: Context<AppEnv>): Promise<PayLink | Response> {
    try {
      return await readPayLink(c.req.param('token') ?? '');
    } catch (error) {
      return refusedLink(c, error);
    }
  }

  const notFound = (c: Context<AppEnv>) =>
    html(c, renderProblemPage('Nothing to pay here', 'This link does not lead to a placement that can be paid (it may have been cancelled).'), 404);

  // A provider's finish_setup_url: on to the processor's onboarding, created on demand.
  const setupRefused = (c: Context<AppEnv>, error: unknown) => {
    if (error instanceof NotConfigured) return html(c, notConfiguredPage(), 503);
    if (!(error instanceof PayLinkRejected)) throw error;
    const [title, text, status] = problems[error.reason];
    return html(c, renderProblemPage(title.replace('payment', 'setup'), text), status);
  };

  // Opening the link only shows where it leads: nothing is created at the processor until someone at
  // the provider presses Continue (a POST), so a link fetched by a preview or a crawler does nothing.
  app.get('/pay/setup/:token', async (c) => {
    if (c.req.query('result') === 'returned') {
      return html(c, renderNoticePage('Thank you', 'The payment processor has your details. The payout account shows the outcome within minutes; you can close this page.'), 200);
    }
    try {
      await readSetupLink(c.req.param('token'));
      return html(c, renderSetupPage(), 200);
    } catch (error) {
      return setupRefused(c, error);
    }
  });

  app.post('/pay/setup/:token', async (c) => {
    try {
      return c.redirect(await startSetup(c, c.req.param('token')), 303);
    } catch (error) {
      return setupRefused(c, error);
    }
  });

  app.get('/pay/:token', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    let view;
    try {
      view = await actions.view(link);
    } catch (error) {
      // A link issued under a contract version that was since replaced.
      return refusedLink(c, error);
    }
    if (!view) return notFound(c);
    return html(c, renderPayPage(view, c.req.query('result')), 200);
  });

  app.post('/pay/:token', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    const form = Submission.safeParse(await readForm(c));
    if (!form.success) return html(c, renderProblemPage('The form could not be read', 'Go back to the payment page and press the button again.'), 422);
    if (link.environment === 'live' && form.data.outcome) {
      return html(c, renderProblemPage('The form could not be read', 'Choosing an outcome is possible in sandbox only.'), 422);
    }
    const returnUrl = new URL(c.req.url);
    returnUrl.search = '';
    try {
      const outcome = await actions.pay(
        link,
        { outcome: form.data.outcome ?? (link.environment === 'sandbox' ? 'succeeded' : undefined), amountCents: form.data.amount_cents, chargeType: form.data.charge_type, payer: form.data.payer },
        returnUrl.toString(),
      );
      // Post/redirect/get: a reload of the result never pays twice.
      return c.redirect('redirect' in outcome ? outcome.redirect : `?result=${outcome.result}`, 303);
    } catch (error) {
      // A second submit of a page already paid (two tabs, a double click): the receipt, not an error.
      if (error instanceof ApiError && error.code === 'nothing_due') return c.redirect('?result=succeeded', 303);
      if (error instanceof PayLinkRejected) return refusedLink(c, error);
      if (error instanceof ApiError && error.status < 500) {
        // 403: a form for another payer's share than the link's own; 404: the placement is gone.
        const status = error.status === 404 || error.status === 403 ? error.status : 409;
        return html(c, renderProblemPage('Payment not possible', error.message), status);
      }
      if (error instanceof NotConfigured) return html(c, notConfiguredPage(), 503);
      if (error instanceof ProviderError) {
        return html(c, problemPage('Payment is not possible right now', 'The payment processor could not be reached. Nothing was charged; please try again in a few minutes.'), 503);
      }
      log.error('pay page failed', { request_id: c.get('requestId'), ...errorFields(error as Error) });
      return html(c, renderProblemPage('Something went wrong', 'Nothing was charged. Please try again in a few minutes.'), 500);
    }
  });

  app.all('/pay/setup/:token', methodNotAllowedPage('GET, POST'));
  app.all('/pay/:token', methodNotAllowedPage('GET, POST'));
  app.all('*', (c) => html(c, renderProblemPage('Page not found', 'Open the payment link exactly as you received it.'), 404));
  app.onError((error, c) => {
    log.error('pay page failed', { request_id: c.get('requestId'), ...errorFields(error) });
    return html(c, renderProblemPage('Something went wrong', 'Nothing was charged. Please try again in a few minutes.'), 500);
  });
  return app;
}

export const app = createPayApp(payActions);
