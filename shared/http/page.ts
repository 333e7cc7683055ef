import type { Context } from 'hono';
import type { AppEnv } from './context.ts';
import { chooseLanguage } from '../i18n/index.ts';
import { escapeHtml } from '../html.ts';

// What the service's own web pages share (the pay page, the household's page): one layout that
// reads on a phone, escaping, and the headers every page is answered with. Rendered from data only,
// no JavaScript, no script or style from another origin.

export { escapeHtml };

/** An amount in cents as a person reads it: $1,500.00. */
export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}

const styles = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
  main { max-width: 32rem; margin: 0 auto; padding: 1.25rem 1rem 2rem; }
  .card { background: #fff; border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); margin-bottom: 1rem; }
  .card > :first-child { margin-top: 0; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  h2 { font-size: 1.05rem; margin: 0 0 .75rem; }
  .muted { color: #5b6475; font-size: .92rem; margin: 0; }
  table { width: 100%; border-collapse: collapse; }
  td { padding: .4rem 0; border-bottom: 1px solid #eceef2; vertical-align: top; }
  td.amount { text-align: right; white-space: nowrap; padding-left: 1rem; }
  tr.total td { font-weight: 700; border-bottom: 0; padding-top: .7rem; }
  button, a.button { display: block; box-sizing: border-box; width: 100%; font-size: 1.1rem; padding: .9rem; border-radius: 10px; border: 0; margin-top: .75rem; cursor: pointer; text-align: center; text-decoration: none; }
  /* Every link is a touch target of at least 44 px. */
  a { display: inline-flex; align-items: center; min-height: 44px; color: #1d4ed8; }
  .pay { background: #2f5bea; color: #fff; }
  .decline { background: #eceef2; color: #1d2330; }
  .badge { display: inline-block; background: #fff4d6; color: #7a5600; border-radius: 6px; padding: .1rem .5rem; font-size: .8rem; font-weight: 600; }
  .notice { border-left: 4px solid #2f5bea; }
  .problem { border-left: 4px solid #c62828; }
  .secondary { background: #eceef2; color: #1d2330; }
  label { display: block; font-weight: 600; margin-top: .75rem; }
  input, textarea { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: .6rem; border: 1px solid #8a93a6; border-radius: 8px; margin-top: .25rem; }
  button:focus-visible, input:focus-visible, textarea:focus-visible, a:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
  img { max-width: 100%; height: auto; border-radius: 8px; margin-top: .5rem; }
  ul { padding-left: 1.2rem; }
`;

/** The page in `lang` (a BCP 47 tag: the household's pages are in its language, see shared/i18n). */
export function layout(title: string, body: string, lang = 'en'): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

/** A short page with a message that is not a problem. */
export function renderNoticePage(title: string, text: string): string {
  return layout(title, `<section class="card notice"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></section>`);
}

/** A page that explains why the link or the action was refused, and what to do. */
export function renderProblemPage(title: string, text: string, hint?: string, lang?: string): string {
  return layout(title, `<section class="card problem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>
${hint ? `<p class="muted">${escapeHtml(hint)}</p>` : ''}</section>`, lang);
}

/**
 * Where a page's form may send the browser: the page itself, and on from there (the browser holds a
 * form's redirects to form-action too) to the payment processor's own pages: its checkout, from the
 * pay page, and its payout onboarding, from the setup page.
 */
const formTargets = "'self' https://checkout.stripe.com https://connect.stripe.com";

/**
 * A page answer: never cached, never framed, no referrer, no script, and nothing loaded but its own
 * inline style. `photos`: the household's page shows the home's photos, which the provider hosts
 * where it likes (https only), so that page alone may load images, from https addresses.
 */
export const html = (c: Context<AppEnv>, body: string, status: number, { photos = false } = {}) => {
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  c.header('Content-Security-Policy', `default-src 'none'; ${photos ? 'img-src https:; ' : ''}style-src 'unsafe-inline'; form-action ${formTargets}; base-uri 'none'; frame-ancestors 'none'`);
  return c.html(body, status as 200);
};

/**
 * A page address asked with a method it does not take (TRACE, OPTIONS, PUT, ...): 405 with Allow, as
 * the API answers, never the page-not-found, since the address is right and the method is not. Whose
 * page it is is not read (the link is not), so it reads in the language the address (?lang=) or the
 * browser asks for, else English.
 */
export const methodNotAllowedPage = (allow: string) => (c: Context<AppEnv>) => {
  c.header('Allow', allow);
  const w = chooseLanguage({ chosen: c.req.query('lang'), acceptLanguage: c.req.header('accept-language') });
  return html(c, renderProblemPage(w.m.methodNotAllowed.title, w.m.methodNotAllowed.text(c.req.method), undefined, w.locale), 405);
};

/**
 * The text fields of a page's posted form; null when the body cannot be read as a form (a malformed
 * multipart body, a broken encoding), which the page answers as a form it could not read (422),
 * never a failure of its own.
 */
export async function readForm(c: Context<AppEnv>): Promise<Record<string, string> | null> {
  try {
    const body = await c.req.parseBody();
    return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return null;
  }
}
