// The pay page's HTML, rendered from data only (no JavaScript): a plain form that works in any
// browser and reads on a phone (viewport meta, one narrow column, large buttons). Every value is
// escaped; nothing from the link or the database is written raw. What it shows is the placement
// module's PayView (shared/placements/commands/pay.ts).

import type { PayView } from '../../shared/placements/commands/pay.ts';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

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
  button { display: block; width: 100%; font-size: 1.1rem; padding: .9rem; border-radius: 10px; border: 0; margin-top: .75rem; cursor: pointer; }
  .pay { background: #2f5bea; color: #fff; }
  .decline { background: #eceef2; color: #1d2330; }
  .badge { display: inline-block; background: #fff4d6; color: #7a5600; border-radius: 6px; padding: .1rem .5rem; font-size: .8rem; font-weight: 600; }
  .notice { border-left: 4px solid #2f5bea; }
  .problem { border-left: 4px solid #c62828; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
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

const results: Record<string, { title: string; text: string; problem?: boolean }> = {
  succeeded: { title: 'Payment received', text: 'Thank you. The payment went through and the landlord has been told; the booking is confirmed.' },
  failed: { title: 'Payment declined', text: 'The payment did not go through and nothing was charged. You can try again below.', problem: true },
  processing: { title: 'Payment submitted', text: 'The payment processor is confirming your payment; this page shows it once it has cleared.' },
  cancelled: { title: 'Payment not completed', text: 'You left the checkout before paying; nothing was charged.', problem: true },
};

/** The page for a valid link: what is due now, who is paid, and the Pay button(s). */
export function renderPayPage(view: PayView, result?: string): string {
  const money = (cents: number) => formatMoney(cents, view.currency);
  const sandbox = view.environment === 'sandbox';
  const parts: string[] = [];
  // Only the page's own outcomes: a query naming anything else (an inherited name such as
  // `constructor`) shows no banner.
  const outcome = result && Object.hasOwn(results, result) ? results[result] : undefined;
  if (outcome) {
    parts.push(`<section class="card ${outcome.problem ? 'problem' : 'notice'}" role="status"><h2>${escapeHtml(outcome.title)}</h2><p class="muted">${escapeHtml(outcome.text)}</p></section>`);
  }
  parts.push(`<section class="card">
${sandbox ? '<p><span class="badge">SANDBOX: no real money moves</span></p>' : ''}
<h1>${escapeHtml(view.home.name)}</h1>
<p class="muted">${escapeHtml(view.home.address)}</p>
<p class="muted">Request ${escapeHtml(view.reference)} · paid to ${escapeHtml(view.payee)}</p>
</section>`);

  if (view.state === 'due' && view.due) {
    const rows = view.due.lines.map((line) => `<tr><td>${escapeHtml(line.label)}</td><td class="amount">${money(line.cents)}</td></tr>`).join('');
    const buttons = sandbox
      ? `<button class="pay" type="submit" name="outcome" value="succeeded">Pay ${money(view.due.totalCents)}</button>
<button class="decline" type="submit" name="outcome" value="failed">Decline (simulate a failed payment)</button>`
      : `<button class="pay" type="submit">Pay ${money(view.due.totalCents)}</button>
<p class="muted">You will pay on the payment processor's secure page, directly to ${escapeHtml(view.payee)}.</p>`;
    parts.push(`<section class="card">
<h2>Due now: ${escapeHtml(view.due.title)}</h2>
<table>${rows}<tr class="total"><td>Total</td><td class="amount">${money(view.due.totalCents)}</td></tr></table>
<form method="post">
<input type="hidden" name="charge_type" value="${view.due.chargeType}">
<input type="hidden" name="amount_cents" value="${view.due.totalCents}">
${buttons}
</form>
</section>`);
  } else {
    const heading = { due: 'Nothing to pay', not_unlocked: 'Not ready for payment yet', settled: 'Nothing due right now', unavailable: 'Payment is not possible' }[view.state];
    parts.push(`<section class="card ${view.state === 'settled' ? 'notice' : 'problem'}"><h2>${heading}</h2><p class="muted">${escapeHtml(view.note ?? '')}</p></section>`);
  }

  if (view.paid.length > 0) {
    const rows = view.paid
      .map((p) => `<tr><td>${escapeHtml(p.title)}<br><span class="muted">${escapeHtml(p.at.slice(0, 10))} · ${escapeHtml(p.status)}</span></td><td class="amount">${money(p.cents)}</td></tr>`)
      .join('');
    parts.push(`<section class="card"><h2>Paid so far</h2><table>${rows}</table></section>`);
  }
  return layout(`Pay for ${view.home.name}`, parts.join('\n'));
}

/** A short page with a message that is not a problem. */
export function renderNoticePage(title: string, text: string): string {
  return layout(title, `<section class="card notice"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></section>`);
}

/** A page that explains why the link or the action was refused, and what to do. */
export function renderProblemPage(title: string, text: string): string {
  return layout(title, `<section class="card problem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>
<p class="muted">Ask the person who sent you this link for a new one; links are valid for a short time only.</p></section>`);
}
