// The pay page's HTML, rendered from data only (no JavaScript): a plain form that works in any
// browser and reads on a phone (viewport meta, one narrow column, large buttons). Every value is
// escaped; nothing from the link or the database is written raw. What it shows is the placement
// module's PayView (shared/placements/commands/pay.ts).

import type { PayView } from '../../shared/placements/commands/pay.ts';
import { payerWords as payerNames } from '../../shared/placements/billing.ts';
import { escapeHtml, formatMoney, layout } from '../../shared/http/page.ts';


const results: Record<string, { title: string; text: string; problem?: boolean }> = {
  succeeded: { title: 'Payment received', text: 'Thank you. The payment went through and the landlord has been told.' },
  failed: { title: 'Payment declined', text: 'The payment did not go through and nothing was charged. You can try again below.', problem: true },
  processing: { title: 'Payment submitted', text: 'The payment processor is confirming your payment; this page shows it once it has cleared.' },
  cancelled: { title: 'Payment not completed', text: 'You left the checkout before paying; nothing was charged.', problem: true },
};

function bannerFor(result: string, view: PayView) {
  if (result === 'processing' && view.latest === null) return results.processing;
  if (result === 'cancelled') return view.latest === 'succeeded' ? undefined : results.cancelled;
  return view.latest ? results[view.latest] : undefined;
}


/** The page for a valid link: what is due now, who is paid, and the Pay button(s). */
export function renderPayPage(view: PayView, result?: string): string {
  const money = (cents: number) => formatMoney(cents, view.currency);
  const sandbox = view.environment === 'sandbox';
  const parts: string[] = [];
  // The banner says what the server recorded, never what the address claims: back from a payment
  // (any result), the latest charge's own outcome; a checkout left before paying says so only while
  // nothing newer cleared. Without a charge there is nothing to announce.
  const outcome = result && Object.hasOwn(results, result) ? bannerFor(result, view) : undefined;
  if (outcome) {
    // Whether the stay is booked is the server's word too: a share paid while another is due books nothing yet.
    const booking = outcome === results.succeeded
      ? (view.booked ? ' The booking is confirmed.' : view.state === 'due' ? ' The booking is confirmed once what is still due below is paid.' : '')
      : '';
    parts.push(`<section class="card ${outcome.problem ? 'problem' : 'notice'}" role="status"><h2>${escapeHtml(outcome.title)}</h2><p class="muted">${escapeHtml(outcome.text + booking)}</p></section>`);
  }
  parts.push(`<section class="card">
${sandbox ? '<p><span class="badge">SANDBOX: no real money moves</span></p>' : ''}
<h1>${escapeHtml(view.home.name)}</h1>
<p class="muted">${escapeHtml(view.home.address)}</p>
<p class="muted">Request ${escapeHtml(view.reference)} · paid to ${escapeHtml(view.payee)}</p>
</section>`);

  if (view.state === 'due' && view.due) {
    const { due } = view;
    const split = due.shares.length > 1;
    parts.push(`<section class="card">
<h2>Due now: ${escapeHtml(due.title)}</h2>
${split ? `<p class="muted">This payment is split between ${due.shares.length} payers: each pays its own share, on its own.</p>` : ''}
</section>`);
    for (const share of due.shares) {
      const payer = payerNames[share.payer];
      const rows = share.lines.map((line) => `<tr><td>${escapeHtml(line.label)}</td><td class="amount">${money(line.cents)}</td></tr>`).join('');
      const table = `<table>${rows}<tr class="total"><td>Total</td><td class="amount">${money(share.totalCents)}</td></tr></table>`;
      if (!share.own) {
        // Shown to the carrier, read-only: this payer pays it through its own link.
        parts.push(`<section class="card">
<h3>Paid by ${escapeHtml(payer)}</h3>
${table}
<p class="muted">${escapeHtml(payer.replace(/^t/, 'T'))} pays this share from its own link.</p>
</section>`);
        continue;
      }
      const label = split ? ` (${escapeHtml(payer)}'s share)` : '';
      const buttons = sandbox
        ? `<button class="pay" type="submit" name="outcome" value="succeeded">Pay ${money(share.totalCents)}${label}</button>
<button class="decline" type="submit" name="outcome" value="failed">Decline${split ? ` ${escapeHtml(payer)}'s share` : ''} (simulate a failed payment)</button>`
        : `<button class="pay" type="submit">Pay ${money(share.totalCents)}${label}</button>
<p class="muted">You will pay on the payment processor's secure page, directly to ${escapeHtml(view.payee)}.</p>`;
      parts.push(`<section class="card">
<h3>Paid by ${escapeHtml(payer)}</h3>
${table}
<form method="post">
<input type="hidden" name="charge_type" value="${due.chargeType}">
<input type="hidden" name="payer" value="${share.payer}">
<input type="hidden" name="amount_cents" value="${share.totalCents}">
${buttons}
</form>
</section>`);
    }
  } else {
    const heading = { due: 'Nothing to pay', not_unlocked: 'Not ready for payment yet', settled: 'Nothing due right now', unavailable: 'Payment is not possible' }[view.state];
    parts.push(`<section class="card ${view.state === 'settled' ? 'notice' : 'problem'}"><h2>${heading}</h2><p class="muted">${escapeHtml(view.note ?? '')}</p></section>`);
  }

  if (view.paid.length > 0) {
    const rows = view.paid
      .map((p) => `<tr><td>${escapeHtml(p.title)}<br><span class="muted">${escapeHtml(p.at.slice(0, 10))} · ${escapeHtml(p.status)}${p.payer ? ` · ${escapeHtml(payerNames[p.payer])}` : ''}</span></td><td class="amount">${money(p.cents)}</td></tr>`)
      .join('');
    parts.push(`<section class="card"><h2>Paid so far</h2><table>${rows}</table></section>`);
  }
  return layout(`Pay for ${view.home.name}`, parts.join('\n'));
}

/** A provider's payout setup: what happens next, and the one button that starts it. */
export function renderSetupPage(): string {
  return layout('Set up how you are paid', `<section class="card notice"><h1>Set up how you are paid</h1>
<p>Payments for your homes are made directly to your own account at the payment processor. Continue to give it your bank and identity details; it takes a few minutes.</p>
<form method="post"><button class="pay" type="submit">Continue to the payment processor</button></form>
<p class="muted">This link is for your organisation only and stops working after a short time.</p></section>`);
}
