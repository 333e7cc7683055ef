import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../shared/http/context.ts';
import { refusalOf } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { boundedBody } from '../../shared/http/middleware/body.ts';
import { errorFields, log } from '../../shared/log.ts';
import { payPageUrl, PayLinkRejected, readPayLink, readSetupLink, type PayLink } from '../../shared/placements/pay-link.ts';
import { payActions, type PayActions } from '../../shared/placements/commands/pay.ts';
import { renderPayPage, renderSetupPage } from './page.ts';
import { html, methodNotAllowedPage, readForm, renderNoticePage, renderProblemPage } from '../../shared/http/page.ts';
import { chooseLanguage, type Words } from '../../shared/i18n/index.ts';
import type { Catalogue } from '../../shared/i18n/en.ts';
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

const rejectedStatus: Record<PayLinkRejected['reason'], number> = { expired: 410, invalid: 403, replaced: 403 };

/**
 * The words of the page: the household's language on the household's own link (the one it chose,
 * ?lang=, which its page's Pay button carries; else its request's household_language; else its
 * browser's), English on the others' links, whose readers are the carrier's and landlord's staff.
 * Before the link is read (a link refused) only ?lang= can name the household's language.
 */
const wordsOf = (c: Context<AppEnv>, view?: { payer: string; language: string | null }): Words =>
  !view ? chooseLanguage({ chosen: c.req.query('lang') })
    : view.payer === 'policyholder' ? chooseLanguage({ chosen: c.req.query('lang'), stated: view.language, acceptLanguage: c.req.header('accept-language') })
      : chooseLanguage({});

/** A problem page; those about the link end with what to do about it. */
const problem = (c: Context<AppEnv>, key: keyof Catalogue['pay']['problem'], status: number, w: Words = wordsOf(c)) => {
  const [title, text] = w.m.pay.problem[key];
  const aboutLink = key !== 'notConfigured' && key !== 'providerDown' && key !== 'tooLarge';
  return html(c, renderProblemPage(title, text, aboutLink ? w.m.pay.hint : undefined, w.locale), status);
};

/** The page's own address with a payment's result, keeping the language chosen (?lang=). */
const resultAddress = (c: Context<AppEnv>, result: string) => {
  const chosen = c.req.query('lang');
  return `?result=${result}${chosen ? `&lang=${encodeURIComponent(chosen)}` : ''}`;
};

export function createPayApp(actions: PayActions) {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  // The page's form is a few fields: a body past 16 KB is not one of its forms.
  app.use('*', boundedBody(16 * 1024, (c) => problem(c, 'tooLarge', 413)));

  /** The page for a link refused (expired, invalid, replaced), or for signed links not configured. */
  function refusedLink(c: Context<AppEnv>, error: unknown, w?: Words): Response {
    if (error instanceof NotConfigured) return problem(c, 'notConfigured', 503, w);
    if (!(error instanceof PayLinkRejected)) throw error;
    return problem(c, error.reason, rejectedStatus[error.reason], w);
  }

  async function verified(c: Context<AppEnv>): Promise<PayLink | Response> {
    try {
      return await readPayLink(c.req.param('token') ?? '');
    } catch (error) {
      return refusedLink(c, error);
    }
  }


  // A provider's finish_setup_url: on to the processor's onboarding, created on demand.
  // The provider's staff read it: in English.
  const setupRefused = (c: Context<AppEnv>, error: unknown) => {
    const w = chooseLanguage({});
    if (error instanceof NotConfigured) return problem(c, 'notConfigured', 503, w);
    if (!(error instanceof PayLinkRejected)) throw error;
    const [title, text] = w.m.pay.problem[error.reason];
    return html(c, renderProblemPage(title.replace('payment', 'setup'), text, w.m.pay.hint), rejectedStatus[error.reason]);
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
      return c.redirect(await startSetup(c.req.param('token')), 303);
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
    if (!view) return problem(c, 'nothingHere', 404);
    return html(c, renderPayPage(view, wordsOf(c, view), c.req.query('result')), 200);
  });

  app.post('/pay/:token', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    // The household's page posts to ?lang=<its language> (./page.ts), so its answers read in it too.
    const w = wordsOf(c, { payer: link.payer, language: null });
    const form = Submission.safeParse(await readForm(c));
    if (!form.success) return problem(c, 'unreadable', 422, w);
    if (link.environment === 'live' && form.data.outcome) return problem(c, 'sandboxOnly', 422, w);
    try {
      const outcome = await actions.pay(
        link,
        { outcome: form.data.outcome ?? (link.environment === 'sandbox' ? 'succeeded' : undefined), amountCents: form.data.amount_cents, chargeType: form.data.charge_type, payer: form.data.payer },
        // The processor sends the payer back to this page, at the service's public address.
        payPageUrl(c.req.param('token')),
      );
      // Post/redirect/get: a reload of the result never pays twice.
      return c.redirect('redirect' in outcome ? outcome.redirect : resultAddress(c, outcome.result), 303);
    } catch (error) {
      // The command's refusal, at the status the API would answer it with (shared/http/errors.ts).
      const refusal = refusalOf(error);
      // A second submit of a page already paid (two tabs, a double click): the receipt, not an error.
      if (refusal?.code === 'nothing_due') return c.redirect(resultAddress(c, 'succeeded'), 303);
      if (error instanceof PayLinkRejected) return refusedLink(c, error, w);
      if (refusal && refusal.status < 500) {
        // 403: a form for another payer's share than the link's own; 404: the placement is gone. The
        // service's own reason is in English (the API's language): the other languages say it plainly.
        const status = refusal.status === 404 || refusal.status === 403 ? refusal.status : 409;
        const [title, text] = w.m.pay.problem.refused;
        return html(c, renderProblemPage(title, w.language === 'en' ? refusal.message : text, w.m.pay.hint, w.locale), status);
      }
      if (error instanceof NotConfigured) return problem(c, 'notConfigured', 503, w);
      if (error instanceof ProviderError) return problem(c, 'providerDown', 503, w);
      log.error('pay page failed', { request_id: c.get('requestId'), ...errorFields(error as Error) });
      return problem(c, 'failed', 500, w);
    }
  });

  app.all('/pay/setup/:token', methodNotAllowedPage('GET, POST'));
  app.all('/pay/:token', methodNotAllowedPage('GET, POST'));
  app.all('*', (c) => problem(c, 'notFound', 404));
  app.onError((error, c) => {
    log.error('pay page failed', { request_id: c.get('requestId'), ...errorFields(error) });
    return problem(c, 'failed', 500);
  });
  return app;
}

export const app = createPayApp(payActions);
