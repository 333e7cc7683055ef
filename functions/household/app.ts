import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../shared/http/context.ts';
import { refusalOf } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { boundedBody } from '../../shared/http/middleware/body.ts';
import { calendarDate, storedText } from '../../shared/http/values.ts';
import { errorFields, log } from '../../shared/log.ts';
import { PayLinkRejected, readHouseholdLink, type HouseholdLink } from '../../shared/placements/pay-link.ts';
import { expiredLinkLanguage, householdLease, householdPageAnswer, householdPayLink, householdView } from '../../shared/placements/commands/household.ts';
import { NotConfigured, ProviderError } from '../../shared/placements/ports/provider.ts';
import type { HouseholdAnswer } from '../../shared/placements/commands/answers.ts';
import { html, methodNotAllowedPage, readForm, renderProblemPage } from '../../shared/http/page.ts';
import { renderHouseholdPage } from './page.ts';
import { chooseLanguage, type Words } from '../../shared/i18n/index.ts';
import type { Catalogue } from '../../shared/i18n/en.ts';

// The household's page: a web page, not an API route. The household opens the link its email
// carries (GET /household/<token>), sees the home, and answers with a plain HTML form (POST to the
// same address), which runs the same command as the sandbox household helper. The signed link is
// the page's only credential (no cookie), so a form posted from another site carries no authority
// it did not already have; a cross-site post is refused all the same. Post/redirect/get: a reload
// never answers twice, and what the page shows comes from the server's state only.

const Answer = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('save') }),
  z.strictObject({ action: z.literal('apply') }),
  z.strictObject({ action: z.literal('decline'), reason: storedText(z.string().trim().min(1).max(2000)) }),
  z.strictObject({ action: z.literal('propose_dates'), move_in: calendarDate(), move_out: calendarDate() }),
]);

const rejectedStatus: Record<PayLinkRejected['reason'], number> = { expired: 410, invalid: 403, replaced: 410 };

/**
 * The household's language before its request is read: the one it chose on the page (?lang=, the
 * switch; the email's link carries the request's), else its browser's. The page itself adds the
 * request's household_language between the two.
 */
const wordsOf = (c: Context<AppEnv>, stated?: string | null): Words =>
  chooseLanguage({ chosen: c.req.query('lang'), stated, acceptLanguage: c.req.header('accept-language') });

/** A problem page in the household's language. */
const problem = (c: Context<AppEnv>, key: keyof Catalogue['problem'], status: number, w: Words = wordsOf(c)) => {
  const [title, text] = w.m.problem[key];
  return html(c, renderProblemPage(title, text, undefined, w.locale), status);
};

export function createHouseholdApp() {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  // The page's forms are a few fields: a body past 16 KB is not one of its forms.
  app.use('*', boundedBody(16 * 1024, (c) => problem(c, 'tooLarge', 413)));

  async function verified(c: Context<AppEnv>): Promise<HouseholdLink | Response> {
    const token = c.req.param('token') ?? '';
    try {
      return await readHouseholdLink(token);
    } catch (error) {
      if (error instanceof NotConfigured) {
        return problem(c, 'notConfigured', 503);
      }
      if (!(error instanceof PayLinkRejected)) throw error;
      return rejected(c, error);
    }
  }

  // An expired link is authentic: it says whose it is, and its page reads in that household's language.
  const rejected = async (c: Context<AppEnv>, error: PayLinkRejected) =>
    problem(c, error.reason, rejectedStatus[error.reason], wordsOf(c, error.names ? await expiredLinkLanguage(error.names) : undefined));

  const gone = (c: Context<AppEnv>) => problem(c, 'gone', 404);

  app.get('/household/:token', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    try {
      const view = await householdView(link);
      return view ? html(c, renderHouseholdPage(view, c.req.param('token'), wordsOf(c, view.language)), 200, { photos: true }) : gone(c);
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      throw error;
    }
  });

  // The signed lease as a PDF (after both signatures), fetched from the e-signature provider.
  app.get('/household/:token/lease', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    try {
      const lease = await householdLease(link);
      if (!lease) return problem(c, 'noLease', 404);
      c.header('Cache-Control', 'no-store');
      c.header('Content-Disposition', `attachment; filename="lease-${lease.reference}.pdf"`);
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(lease.pdf.slice().buffer, 200, { 'Content-Type': 'application/pdf' });
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      if (error instanceof ProviderError) {
        log.warn('signed lease not fetched', { request_id: c.get('requestId'), ...errorFields(error) });
        return problem(c, 'leaseNotFetched', 502);
      }
      throw error;
    }
  });

  // The page's Pay button: on to the household's own pay link (the pay page, its share alone), signed
  // now. Opening it only signs a link: nothing is created until the household presses Pay there.
  app.get('/household/:token/pay', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    try {
      const token = await householdPayLink(link);
      if (!token) return problem(c, 'nothingToPay', 404);
      c.header('Cache-Control', 'no-store');
      // Relative to this address (<base>/household/<token>/pay), whatever prefix the gateway serves it
      // under; the language the household chose on its page goes on with it.
      const chosen = c.req.query('lang');
      return c.redirect(`../../pay/${token}${chosen ? `?lang=${encodeURIComponent(chosen)}` : ''}`, 303);
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      if (error instanceof NotConfigured) return problem(c, 'notConfigured', 503);
      throw error;
    }
  });

  app.post('/household/:token', async (c) => {
    // A form posted from another site is refused (the browser says where it came from).
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    if ((site && site !== 'same-origin' && site !== 'none') || (origin && origin !== new URL(c.req.url).origin && origin !== 'null')) {
      return problem(c, 'crossSite', 403);
    }
    const link = await verified(c);
    if (link instanceof Response) return link;
    const form = Answer.safeParse(await readForm(c));
    if (!form.success) {
      return problem(c, 'unreadable', 422);
    }
    try {
      const view = await householdPageAnswer(link, form.data as HouseholdAnswer);
      // Relative to the page's own address: the function does not see the gateway's path prefix. The
      // language the household chose on the page stays chosen.
      const chosen = c.req.query('lang');
      return view ? c.redirect(`./${c.req.param('token')}${chosen ? `?lang=${encodeURIComponent(chosen)}` : ''}`, 303) : gone(c);
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      // The command's refusal, at the status the API would answer it with (shared/http/errors.ts).
      const refusal = refusalOf(error);
      if (refusal && refusal.status < 500) {
        // The service's own reason is in English (the API's language): the household reads it in English only.
        const w = wordsOf(c);
        const [title, text] = w.m.problem.notPossible;
        return html(c, renderProblemPage(title, w.language === 'en' ? refusal.message : text, undefined, w.locale), refusal.status === 422 ? 422 : 409);
      }
      throw error;
    }
  });

  app.all('/household/:token/lease', methodNotAllowedPage('GET'));
  app.all('/household/:token', methodNotAllowedPage('GET, POST'));
  app.all('*', (c) => problem(c, 'notFound', 404));
  app.onError((error, c) => {
    log.error('household page failed', { request_id: c.get('requestId'), ...errorFields(error) });
    return problem(c, 'failed', 500);
  });
  return app;
}

export const app = createHouseholdApp();
