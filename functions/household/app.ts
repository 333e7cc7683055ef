import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../shared/http/context.ts';
import { ApiError } from '../../shared/http/errors.ts';
import { requestId } from '../../shared/http/middleware/request-id.ts';
import { boundedBody } from '../../shared/http/middleware/body.ts';
import { calendarDate, storedText } from '../../shared/http/values.ts';
import { errorFields, log } from '../../shared/log.ts';
import { PayLinkRejected, readHouseholdLink, type HouseholdLink } from '../../shared/placements/pay-link.ts';
import { householdLease, householdPageAnswer, householdPayLink, householdView } from '../../shared/placements/commands/household.ts';
import { NotConfigured, ProviderError } from '../../shared/placements/ports/provider.ts';
import type { HouseholdAnswer } from '../../shared/placements/commands/answers.ts';
import { html, methodNotAllowedPage, readForm, renderProblemPage } from '../../shared/http/page.ts';
import { renderHouseholdPage } from './page.ts';

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

const problems: Record<PayLinkRejected['reason'], [string, string, number]> = {
  expired: ['This link has expired', 'Ask your insurer to send the link again.', 410],
  invalid: ['This link is not valid', 'The link is incomplete or was changed. Open it exactly as you received it.', 403],
  replaced: ['This link was replaced', 'A newer link was sent to you for this home: use the latest email.', 410],
};

export function createHouseholdApp() {
  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  // The page's forms are a few fields: a body past 16 KB is not one of its forms.
  app.use('*', boundedBody(16 * 1024, (c) => html(c, renderProblemPage('The answer could not be read', 'The form sent was far larger than this page\'s forms.'), 413)));

  async function verified(c: Context<AppEnv>): Promise<HouseholdLink | Response> {
    const token = c.req.param('token') ?? '';
    try {
      return await readHouseholdLink(token);
    } catch (error) {
      if (error instanceof NotConfigured) {
        return html(c, renderProblemPage('This page is not available yet', 'The service is being set up. Please try again later.'), 503);
      }
      if (!(error instanceof PayLinkRejected)) throw error;
      return rejected(c, error);
    }
  }

  const rejected = (c: Context<AppEnv>, error: PayLinkRejected) => {
    const [title, text, status] = problems[error.reason];
    return html(c, renderProblemPage(title, text), status);
  };

  const gone = (c: Context<AppEnv>) => html(c, renderProblemPage('This home is no longer here', 'Your insurer took it off your request; they will be in touch.'), 404);

  app.get('/household/:token', async (c) => {
    const link = await verified(c);
    if (link instanceof Response) return link;
    try {
      const view = await householdView(link);
      return view ? html(c, renderHouseholdPage(view, c.req.param('token')), 200) : gone(c);
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
      if (!lease) return html(c, renderProblemPage('No signed lease yet', 'The lease can be downloaded here once you and the landlord have both signed it.'), 404);
      c.header('Cache-Control', 'no-store');
      c.header('Content-Disposition', `attachment; filename="lease-${lease.reference}.pdf"`);
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(lease.pdf.slice().buffer, 200, { 'Content-Type': 'application/pdf' });
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      if (error instanceof ProviderError) {
        log.warn('signed lease not fetched', { request_id: c.get('requestId'), ...errorFields(error) });
        return html(c, renderProblemPage('The lease could not be fetched', 'The signature service did not answer. Please try again in a few minutes.'), 502);
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
      if (!token) return html(c, renderProblemPage('Nothing for you to pay now', 'Nothing of what you pay is due right now. Go back to your page to see why.'), 404);
      c.header('Cache-Control', 'no-store');
      // Relative to this address (<base>/household/<token>/pay), whatever prefix the gateway serves it under.
      return c.redirect(`../../pay/${token}`, 303);
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      if (error instanceof NotConfigured) return html(c, renderProblemPage('This page is not available yet', 'The service is being set up. Please try again later.'), 503);
      throw error;
    }
  });

  app.post('/household/:token', async (c) => {
    // A form posted from another site is refused (the browser says where it came from).
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    if ((site && site !== 'same-origin' && site !== 'none') || (origin && origin !== new URL(c.req.url).origin && origin !== 'null')) {
      return html(c, renderProblemPage('Answer not accepted', 'Answer from the page itself: open the link from your email.'), 403);
    }
    const link = await verified(c);
    if (link instanceof Response) return link;
    const form = Answer.safeParse(await readForm(c));
    if (!form.success) {
      return html(c, renderProblemPage('The answer could not be read', 'Go back, fill in every field of the form, and send it again.'), 422);
    }
    try {
      const view = await householdPageAnswer(link, form.data as HouseholdAnswer);
      // Relative to the page's own address: the function does not see the gateway's path prefix.
      return view ? c.redirect(`./${c.req.param('token')}`, 303) : gone(c);
    } catch (error) {
      if (error instanceof PayLinkRejected) return rejected(c, error);
      if (error instanceof ApiError && error.status < 500) {
        return html(c, renderProblemPage('That answer is not possible now', error.message), error.status === 422 ? 422 : 409);
      }
      throw error;
    }
  });

  app.all('/household/:token/lease', methodNotAllowedPage('GET'));
  app.all('/household/:token', methodNotAllowedPage('GET, POST'));
  app.all('*', (c) => html(c, renderProblemPage('Page not found', 'Open the link exactly as you received it.'), 404));
  app.onError((error, c) => {
    log.error('household page failed', { request_id: c.get('requestId'), ...errorFields(error) });
    return html(c, renderProblemPage('Something went wrong', 'Your answer was not recorded. Please try again in a few minutes.'), 500);
  });
  return app;
}

export const app = createHouseholdApp();
